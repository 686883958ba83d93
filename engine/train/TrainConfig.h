#pragma once
// TrainConfig and launchTrainWithConfig (tensorpack's TrainConfig / launch_train_with_config).
//
//   tbench::TrainConfig config;
//   config.model = std::make_shared<MyModel>();
//   config.dataflow = std::make_shared<BatchData>(std::make_shared<FashionMnist>(...), 128);
//   config.maxEpoch = 10;
//   tbench::SimpleTrainer trainer;
//   tbench::launchTrainWithConfig(config, trainer);

#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint/SessionInit.h"
#include "engine/data/DataFlow.h"
#include "engine/input/InputSource.h"
#include "engine/monitors/TrainingMonitor.h"
#include "engine/train/ModelDesc.h"
#include "engine/train/SingleCostTrainer.h"
#include "engine/train/SpeedSettings.h"

namespace tbench {

struct TrainConfig {
  /// A ModelDesc for the single-cost strategies; what the trainer takes for others
  /// (a GanModelDesc for GanTrainer).
  ModelDescBasePtr model;
  /// Either a DataFlow (wrapped in a QueueInput) or an InputSource.
  DataFlowPtr dataflow;
  InputSourcePtr input;
  int64_t queueCapacity = 50;  ///< for the QueueInput made from `dataflow`

  /// The user's callbacks, run before extraCallbacks; the monitors run after every callback
  /// (so that in triggerEpoch they flush what the callbacks put).
  std::vector<CallbackPtr> callbacks;
  /// Default: ProgressBar(the trainer's progressScalars()), EstimatedTimeLeft,
  /// ThroughputTracker.
  std::optional<std::vector<CallbackPtr>> extraCallbacks;
  /// Default: ScalarHistory, JSONWriter (when runDir is set), ScalarPrinter.
  std::optional<std::vector<TrainingMonitorPtr>> monitors;

  /// A config without the default callbacks and monitors (tests and benchmarks, which add
  /// their own): extraCallbacks and monitors empty.
  static TrainConfig quiet() {
    TrainConfig config;
    config.extraCallbacks.emplace();
    config.monitors.emplace();
    return config;
  }

  /// Gradient clipping and the "grad_norm" scalar, for every strategy.
  GradientProcessing gradients;
  /// Frozen parameters, per-group rate multipliers and weight decay (ParamGroups.h); the
  /// single-cost trainers.
  ParamGroupSettings paramGroups;
  /// Micro-batches per tower and step, one update with their mean gradient (the single-cost
  /// trainers; SingleCostTrainer::setAccumulation).
  int64_t accumulate = 1;
  /// > 0: an exponential moving average of the weights with this decay, used for validation and
  /// kept in checkpoints (TowerTrainer::setWeightAverage).
  double emaDecay = 0;
  /// "32", "bf16-mixed" or "16-mixed" (MixedPrecision.h); the single-cost trainers only.
  Precision precision = Precision::Full32;
  /// TF32, cuDNN autotuning, channels-last, how often step scalars are read (SpeedSettings.h).
  SpeedSettings speed;

  int64_t stepsPerEpoch = 0;  ///< 0: the input's size (batches per pass)
  int64_t startingEpoch = 1;
  int64_t maxEpoch = 1;

  /// Where the run writes log.log, stats.json and checkpoints; empty: no files.
  std::string runDir;
  /// Seeds LibTorch's generator before the towers are built.
  std::optional<uint64_t> seed;
  /// Intra-op threads; 0: the cores available.
  int64_t numThreads = 0;

  /// Continue a run from this checkpoint (tensorpack's AutoResumeTrainConfig): everything the
  /// trainer owns restored (Note [Trainer state]: model, every optimizer with its learning
  /// rate, RNG state, callbacks' and the trainer's own state); training continues at the
  /// step after the checkpoint's, inside its epoch when it was taken mid-epoch, and the input
  /// skips the batches already consumed. (tensorpack resumes at epoch boundaries only.)
  std::string resumeFrom;
  /// Start from these weights (SessionInit: a checkpoint, run directory, state_dict,
  /// safetensors or TorchScript file; fine-tuning); empty path: not. The report is logged.
  InitOptions init;
};

std::vector<CallbackPtr> defaultCallbacks(const std::vector<std::string>& progressScalars = {
                                              "cost"});
std::vector<TrainingMonitorPtr> defaultMonitors(bool withFiles);

/// Sets up `trainer` with the config's model and input (a bare DataFlow becomes a QueueInput)
/// and trains. Throws InputError for an incomplete config; propagates training failures.
void launchTrainWithConfig(const TrainConfig& config, TowerTrainer& trainer);

/// The first half of launchTrainWithConfig: everything but trainer.train(), so that callers
/// can tell bad input (thrown here) from a failed run (thrown by train()).
LoopOptions setupTrainWithConfig(const TrainConfig& config, TowerTrainer& trainer);

/// The loop options `config` resolves to once `input` is known (steps_per_epoch from the
/// input's size when 0). Throws InputError when neither gives a step count.
LoopOptions resolveLoopOptions(const TrainConfig& config, const InputSource& input);

}  // namespace tbench
