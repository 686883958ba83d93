#pragma once
// The factories of the component registry with their real signatures, and the functions that
// register a type with its factory (Note [One description per component]).
//
// A new callback type, from any file that links tb_project (a test, later a plugin):
//
//   registerCallback(ComponentRegistry::global(),
//                    {.name = "every_epoch_note", .summary = "Logs a line every epoch",
//                     .keys = {key::string("text", "epoch done").label("Text").help("...")}},
//                    [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
//                      return std::make_shared<MyCallback>(s.string("text"));
//                    });
//
// It then validates, builds, appears in the window's form and in `towerbench-cli types`.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/core/Device.h"
#include "engine/data/DataFlow.h"
#include "engine/input/InputSource.h"
#include "engine/models/ClassificationModel.h"
#include "engine/monitors/TrainingMonitor.h"
#include "engine/project/ComponentRegistry.h"
#include "engine/project/Project.h"
#include "engine/savers/ModelSaver.h"
#include "engine/train/SingleCostTrainer.h"

namespace tbench {

/// "model": the network of each tower for images of `image` and `numClasses` classes.
using ModelMaker =
    std::function<ClassificationModel::NetFactory(const Settings&, ImageShape, int64_t)>;

/// A data source opened for reading, with what the model needs to know about it.
struct OpenedSource {
  DataFlowPtr flow;  ///< one datapoint per sample: {image [C,H,W], label}
  ImageShape image;
  int64_t numClasses = 0;
};

/// "data": opens a source (reads headers and labels, so bad files fail here with their path).
struct DataSourceMaker {
  std::function<OpenedSource(const Settings&, bool shuffle, uint64_t seed)> open;
  /// The number of samples without reading the data, for previews; 0 when unknown. Optional.
  std::function<int64_t(const Settings&)> count;
};

/// "optimizer": an optimizer over `params` with the settings' learning rate and options.
using OptimizerMaker = std::function<std::unique_ptr<torch::optim::Optimizer>(
    std::vector<torch::Tensor> params, const Settings&)>;

/// What a callback factory may use and set.
struct CallbackBuildContext {
  const Project& project;
  /// The first model_saver built: resume and the "save now" action use it.
  std::shared_ptr<ModelSaver> modelSaver;
};
/// "callback": the callback of one entry of "callbacks".
using CallbackMaker = std::function<CallbackPtr(const Settings&, CallbackBuildContext&)>;

/// "monitor": the monitor, or null when it writes files and the run has no directory.
using MonitorMaker = std::function<TrainingMonitorPtr(bool withFiles)>;

/// "strategy": the trainer over one device per tower, and its input source.
struct StrategyMaker {
  std::function<std::unique_ptr<SingleCostTrainer>(const Settings&, const std::vector<Device>&)>
      trainer;
  std::function<InputSourcePtr(DataFlowPtr batches, const Settings&)> input;
};

// Each sets the kind and the factory of `type` and adds it; throws InputError as
// ComponentRegistry::add does.
void registerModel(ComponentRegistry& registry, ComponentType type, ModelMaker factory);
void registerDataSource(ComponentRegistry& registry, ComponentType type, DataSourceMaker factory);
void registerOptimizer(ComponentRegistry& registry, ComponentType type, OptimizerMaker factory);
void registerCallback(ComponentRegistry& registry, ComponentType type, CallbackMaker factory);
void registerMonitor(ComponentRegistry& registry, ComponentType type, MonitorMaker factory);
void registerStrategy(ComponentRegistry& registry, ComponentType type, StrategyMaker factory);

// The factory of a registered type (CheckError when the type is unknown).
const ModelMaker& modelMaker(const std::string& type);
const DataSourceMaker& dataSourceMaker(const std::string& type);
const OptimizerMaker& optimizerMaker(const std::string& type);
const CallbackMaker& callbackMaker(const std::string& type);
const MonitorMaker& monitorMaker(const std::string& type);
const StrategyMaker& strategyMaker(const std::string& type);

}  // namespace tbench
