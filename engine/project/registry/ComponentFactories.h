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
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/core/Device.h"
#include "engine/data/DataFlow.h"
#include "engine/input/InputSource.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/TrainingMonitor.h"
#include "engine/project/Project.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/savers/ModelSaver.h"
#include "engine/train/ModelDesc.h"
#include "engine/train/SingleCostTrainer.h"

namespace tbench {

class DistributedGroup;

/// What a model is built for: the training data's samples and task, and the optimizer.
struct ModelContext {
  ImageShape input;        ///< one sample; [1, 1, D] is a feature vector (a table row)
  int64_t numClasses = 0;  ///< > 0: classification
  int64_t numTargets = 0;  ///< > 0: regression
  SupervisedModel::OptimizerFactory optimizer;
  std::string dataName = "the data";  ///< for messages: "data.train (csv)"
  /// The outputs a network needs: one per class or per target.
  int64_t outputs() const { return numClasses > 0 ? numClasses : numTargets; }
};

/// "model": the ModelDesc of a project, one replica per tower. Throws InputError when the model
/// cannot fit the data (a TorchScript module whose inputs or outputs do not match).
/// A ModelDesc for the single-cost strategies, or another description (a GanModelDesc) for
/// the trainers that take it.
using ModelMaker = std::function<ModelDescBasePtr(const Settings&, const ModelContext&)>;

/// What a data source learned from the training data: its validation copy is opened with it
/// (so both see the same class names and the same standardisation), and checkpoints keep it
/// (the "data" entry, Checkpoint.h).
struct DataFacts {
  /// The training source's classes (> 0 for classification): the model's outputs, which the
  /// validation data may not all have (set by buildRun from OpenedSource::numClasses).
  int64_t numClasses = 0;
  /// Class k's name (folder names, a CSV's class column); empty: the classes are numbered.
  std::vector<std::string> classNames;
  /// Per-feature statistics computed on the training data, by name ("feature_mean",
  /// "feature_std"): what a source subtracts and divides by. Empty when it standardises nothing.
  std::map<std::string, std::vector<double>> statistics;
  /// Samples per class in this source (after its split and limit), when it knows them without
  /// decoding its data; empty otherwise. For previews and logs.
  std::vector<int64_t> classCounts;
};

/// DataFacts::classCounts of int64 class labels [N] (classes 0..numClasses-1).
std::vector<int64_t> classCountsOf(const torch::Tensor& labels, int64_t numClasses);

/// A data source opened for reading, with what the model needs to know about it.
struct OpenedSource {
  /// One datapoint per sample: {input float32 [C, H, W] (a table row is [1, 1, D]), then either
  /// label int64 0-dim (classification) or target float32 [T] (regression)}.
  DataFlowPtr flow;
  ImageShape image;
  int64_t numClasses = 0;  ///< > 0: classification into that many classes
  int64_t numTargets = 0;  ///< > 0: regression onto that many float targets
  DataFacts facts;
  /// The names of a table's feature columns (a CSV header); empty when it has none.
  std::vector<std::string> featureNames;
};

/// How a source is opened.
struct OpenRequest {
  bool shuffle = false;
  uint64_t seed = 0;
  /// When opening validation data: what the training source learned (class names to follow,
  /// statistics to apply instead of computing its own). Null for the training source.
  const DataFacts* training = nullptr;
};

/// "data": opens a source (reads headers and labels, so bad files fail here with their path).
struct DataSourceMaker {
  std::function<OpenedSource(const Settings&, const OpenRequest&)> open;
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
  /// What the training source learned (validation data is opened with it).
  const DataFacts* trainingFacts = nullptr;
  /// The run's model (what its validation outputs are).
  std::shared_ptr<ModelDescBase> model;
  /// This process's rank in a multi-process run (0 otherwise).
  int rank = 0;
};
/// "callback": the callback of one entry of "callbacks".
using CallbackMaker = std::function<CallbackPtr(const Settings&, CallbackBuildContext&)>;

/// "monitor": the monitor, or null when it writes files and the run has no directory.
using MonitorMaker = std::function<TrainingMonitorPtr(bool withFiles)>;

/// "strategy": the trainer over one device per tower for `model`, and its input source. A
/// strategy picks the trainer for the model's kind (a single-cost ModelDesc, a GanModelDesc)
/// and throws InputError for a kind it cannot train.
struct StrategyMaker {
  std::function<std::unique_ptr<TowerTrainer>(const Settings&, const std::vector<Device>&,
                                              const ModelDescBase& model)>
      trainer;
  std::function<InputSourcePtr(DataFlowPtr batches, const Settings&)> input;
  /// For a strategy whose towers are processes (`distributed`): joins this process to its
  /// group before the run directory is chosen (prepareRun), refusing a rank whose
  /// `projectHash` differs. Returns null when the process runs alone. Null for in-process
  /// strategies.
  std::function<std::shared_ptr<DistributedGroup>(const Settings&, const std::string& projectHash,
                                                  const std::string& projectName)>
      join;
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
