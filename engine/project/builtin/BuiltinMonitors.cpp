// The built-in monitors: each is a boolean key of "monitors". ScalarHistory is not one: the
// engine always keeps it (MonitorSink's values).

#include "engine/monitors/ImageFileWriter.h"
#include "engine/monitors/JSONWriter.h"
#include "engine/monitors/ScalarPrinter.h"
#include "engine/monitors/ScalarStream.h"
#include "engine/monitors/TensorBoardWriter.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/project/builtin/Builtin.h"

namespace tbench {

void registerBuiltinMonitors(ComponentRegistry& registry) {
  registerMonitor(registry, describe("json", "Write stats.json in the run directory"),
                  [](bool withFiles) -> TrainingMonitorPtr {
                    return withFiles ? std::make_shared<JSONWriter>() : nullptr;
                  });
  registerMonitor(registry, describe("scalar_printer", "Log the scalars at the end of every epoch"),
                  [](bool) -> TrainingMonitorPtr { return std::make_shared<ScalarPrinter>(); });
  registerMonitor(registry, describe("tensorboard", "Write TensorBoard event files"),
                  [](bool withFiles) -> TrainingMonitorPtr {
                    return withFiles ? std::make_shared<TensorBoardWriter>() : nullptr;
                  });
  registerMonitor(registry,
                  describe("scalar_stream", "Write scalars.jsonl, to follow the run live"),
                  [](bool withFiles) -> TrainingMonitorPtr {
                    return withFiles ? std::make_shared<ScalarStream>() : nullptr;
                  });
  registerMonitor(registry, describe("images", "Write images as PNG files in images/"),
                  [](bool withFiles) -> TrainingMonitorPtr {
                    return withFiles ? std::make_shared<ImageFileWriter>() : nullptr;
                  });
}

}  // namespace tbench
