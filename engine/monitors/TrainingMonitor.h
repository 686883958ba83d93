#pragma once
// TrainingMonitor: receives every scalar and image put during training (tensorpack's
// TrainingMonitor). A monitor is also a callback; Monitors forwards the lifecycle hooks to it.
// Called on the engine thread.

#include <string>

#include "engine/callbacks/Callback.h"
#include "engine/callbacks/MonitorSink.h"

namespace tbench {

// Note [Records that cannot be written]
// The files a run records as it goes (stats.json, scalars.jsonl, the TensorBoard events) are
// not what training depends on: a write that fails (disk full, a read-only or deleted
// directory) is logged at once as an error naming the file and the reason, and training goes
// on, so that the checkpoints, written by ModelSaver, keep being tried (Note [A checkpoint that
// cannot be written]). But a run whose records have a hole is not a clean success: the writer's
// afterTrain throws, naming the file, the global step from which it lacks values and why, so
// the run ends failed (the CLI exits 1, run.json's error and the window say it; several
// failures are reported together by Callbacks::onAfterTrain). stats.json is rewritten whole at
// every epoch, so a later write that works fills its hole: only a file whose last write failed
// counts. Values that were not written cannot be made again; the checkpoints are unaffected.
class TrainingMonitor : public Callback {
 public:
  virtual void processScalar(const std::string& name, double value, const MetricStamp& stamp) {}
  virtual void processImage(const std::string& name, const ImageData& image,
                            const MetricStamp& stamp) {}
};

using TrainingMonitorPtr = std::shared_ptr<TrainingMonitor>;

}  // namespace tbench
