#pragma once
// The project file as a value type: a TrainConfig written as data (docs/PROJECT-FORMAT.md).
//
// Torch-free on purpose: the CLI, the bridge and tests use it without LibTorch. The fixed parts
// of the file are fields with their defaults written here, once (the registry's descriptions
// of them read these defaults from Project{}); models, data sources, optimizers, callbacks and
// the strategy are ComponentSpecs described by the component registry
// (Note [One description per component]). ProjectJson.h turns JSON into a Project (validating
// every field) and back; ProjectBuilder.h turns a Project into a TrainConfig.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/project/registry/ComponentRegistry.h"
#include "engine/train/ParamGroupRules.h"
#include "engine/train/SpeedSettings.h"

namespace tbench {

struct DataSpec {
  ComponentSpec train = ComponentSpec::defaultOf("data");
  bool hasValidation = false;
  /// Meaningful when hasValidation; its "split" defaults to "test" (componentSlots()).
  ComponentSpec validation = ComponentSpec::defaultOf("data");
  int64_t batchSize = 128;  ///< per tower
  bool shuffle = true;      ///< shuffle the training set every epoch
  bool remainder = false;   ///< keep the last smaller training batch of a pass
  /// Keep the training set on the first tower's device, shuffled and batched there
  /// (engine/input/ResidentInput.h).
  bool resident = false;
};

/// "schedule.learning_rate": the learning rate as a function of epoch or step: a list of points,
/// or a named shape scaled by optimizer.learning_rate (engine/callbacks/NamedSchedule.h).
struct ScheduleSpec {
  bool enabled = false;
  /// "points", "cosine", "warmup_cosine" or "one_cycle"
  std::string shape = "points";
  std::string unit = "epoch";               ///< "epoch" or "step"
  std::string interpolation = "piecewise";  ///< "piecewise" or "linear" (points)
  /// (epoch or step, value) pairs, strictly increasing in the first element (points).
  std::vector<std::pair<int64_t, double>> points;
  int64_t length = 0;           ///< epochs or steps the shape spans; 0: the whole run
  int64_t warmup = 0;           ///< warmup_cosine: epochs or steps of linear warm-up from 0
  double minLearningRate = 0;   ///< cosine, warmup_cosine: the rate at the end
  double pctStart = 0.3;        ///< one_cycle: the rising part of the cycle
  double divFactor = 25;        ///< one_cycle: starts at learning_rate / div_factor
  double finalDivFactor = 1e4;  ///< one_cycle: ends at the start / final_div_factor
};

/// The callbacks of a project without a "callbacks" key: progress_bar (showing cost),
/// estimated_time_left, throughput (defaultCallbacksJson()).
std::vector<ComponentSpec> defaultCallbackSpecs();

/// "init": start from the weights of a checkpoint (fine-tuning, another project's run).
struct InitSpec {
  /// empty: random initialisation; else a Towerbench checkpoint or run directory, a PyTorch
  /// state_dict, a .safetensors file or a TorchScript file (engine/checkpoint/WeightsFile.h)
  std::string checkpoint;
  std::vector<std::string> ignore;  ///< names (or "prefix.") not restored
  std::vector<std::string> rename;  ///< "REGEX=>REPLACEMENT" for the file's names, in order
  bool strict = false;              ///< refuse any missing, unexpected or mismatched tensor
};

struct Project {
  int format = 1;
  std::string name = "untitled";
  std::string description;
  ComponentSpec model = ComponentSpec::defaultOf("model");
  DataSpec data;
  ComponentSpec optimizer = ComponentSpec::defaultOf("optimizer");
  /// "optimizer.param_groups": freeze, rate multiplier and weight decay by parameter name
  /// (engine/train/ParamGroupRules.h), in order.
  std::vector<ParamGroupRule> paramGroups;
  ScheduleSpec schedule;
  int64_t stepsPerEpoch = 0;  ///< 0: one pass over the training data (size / batch)
  int64_t maxEpoch = 1;
  int64_t startingEpoch = 1;
  /// Default: progress_bar, estimated_time_left, throughput.
  std::vector<ComponentSpec> callbacks = defaultCallbackSpecs();
  /// Monitor type -> on ("monitors"; the registered monitors not named take their default).
  std::map<std::string, bool> monitors;
  InitSpec init;
  /// "trainer": the strategy (its type) with "devices" (one per tower) and its settings.
  ComponentSpec trainer = ComponentSpec::defaultOf("strategy");
  uint64_t seed = 42;
  int64_t numThreads = 0;  ///< intra-op threads; 0 = the cores available
  /// "32", "bf16-mixed" or "16-mixed" (engine/train/MixedPrecision.h).
  std::string precision = "32";
  /// "speed": TF32, cuDNN autotuning, channels-last, step-scalar reads (SpeedSettings.h).
  SpeedSettings speed;
  std::string runRoot = "train_log";  ///< runs go to <run_root>/<name>/<run-id>/
  /// The directory of the file the project was read from (not written to the file): relative
  /// file and directory paths of its components (data files, a TorchScript model) are resolved
  /// against it. Empty: against the working directory.
  std::string baseDir;

  /// Whether monitor `type` is on (its registered default when the project does not say).
  bool monitorOn(const std::string& type) const;
  /// trainer.devices: one per tower.
  std::vector<std::string> devices() const { return trainer.strings("devices"); }
};

}  // namespace tbench
