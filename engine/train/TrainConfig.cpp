#include "engine/train/TrainConfig.h"

#include <torch/torch.h>

#include "engine/callbacks/EstimatedTimeLeft.h"
#include "engine/callbacks/ProgressBar.h"
#include "engine/callbacks/ThroughputTracker.h"
#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/SessionInit.h"
#include "engine/core/Check.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/input/QueueInput.h"
#include "engine/monitors/JSONWriter.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/monitors/ScalarPrinter.h"

namespace tbench {

std::vector<CallbackPtr> defaultCallbacks(const std::vector<std::string>& progressScalars) {
  return {std::make_shared<ProgressBar>(progressScalars), std::make_shared<EstimatedTimeLeft>(),
          std::make_shared<ThroughputTracker>()};
}

std::vector<TrainingMonitorPtr> defaultMonitors(bool withFiles) {
  std::vector<TrainingMonitorPtr> monitors{std::make_shared<ScalarHistory>()};
  if (withFiles) monitors.push_back(std::make_shared<JSONWriter>());
  monitors.push_back(std::make_shared<ScalarPrinter>());
  return monitors;
}

LoopOptions resolveLoopOptions(const TrainConfig& config, const InputSource& input) {
  LoopOptions options;
  options.startingEpoch = config.startingEpoch;
  options.maxEpoch = config.maxEpoch;
  options.stepsPerEpoch = config.stepsPerEpoch;
  if (options.stepsPerEpoch <= 0) {
    const auto size = input.size();
    if (!size || *size <= 0) {
      throw InputError(
          "steps_per_epoch is not set and the input's size is unknown; set steps_per_epoch");
    }
    options.stepsPerEpoch = *size;
  }
  if (options.maxEpoch < 1 || options.startingEpoch < 1 ||
      options.startingEpoch > options.maxEpoch) {
    throw InputError(str("starting_epoch must be in [1, max_epoch], got starting_epoch=",
                         options.startingEpoch, " max_epoch=", options.maxEpoch));
  }
  return options;
}

namespace {

void resume(const std::string& path, TowerTrainer& trainer, InputSource& input,
            LoopOptions& options) {
  const TrainingState state = readCheckpointFile(path);
  trainer.restoreTrainingState(state);
  const int64_t steps = options.stepsPerEpoch;
  // Steps of the checkpoint's epoch already run. Files from before "epoch_step" existed only
  // say the global step: derive it, assuming steps_per_epoch did not change.
  int64_t done = state.epochStep;
  if (done < 0) {
    done = state.globalStep - (state.epochNum - 1) * steps;
    if (done < 0 || done > steps) done = steps;
  }
  if (done > steps) {
    TB_LOG(Warning) << path << " was saved after step " << done << " of epoch " << state.epochNum
                    << ", more than steps_per_epoch=" << steps << "; that epoch counts as complete";
    done = steps;
  }
  if (state.epochNum == 0) done = steps;  // saved before the first epoch began
  const bool epochComplete = done == steps;
  const int64_t nextEpoch = epochComplete ? state.epochNum + 1 : state.epochNum;
  if (nextEpoch > options.maxEpoch) {
    throw InputError(str(path, ": the run already finished epoch ", state.epochNum,
                         " of max_epoch ", options.maxEpoch,
                         "; raise max_epoch (--max-epoch) to train further"));
  }
  options.startingEpoch = nextEpoch;
  options.startingLocalStep = epochComplete ? 0 : done;
  options.startingGlobalStep = state.globalStep;
  // Note [Restorable data order]: every DataFlow's order is a function of its seed and of how
  // many datapoints came before, so skipping the batches the run consumed puts the data
  // exactly where the uninterrupted run would be.
  input.skipBatches(state.globalStep * trainer.batchesPerStep());
  TB_LOG(Info) << "resuming from " << path << " at epoch " << options.startingEpoch << ", step "
               << options.startingLocalStep + 1 << " of " << steps << " (global step "
               << state.globalStep << ")";
}

}  // namespace

void launchTrainWithConfig(const TrainConfig& config, TowerTrainer& trainer) {
  trainer.train(setupTrainWithConfig(config, trainer));
}

LoopOptions setupTrainWithConfig(const TrainConfig& config, TowerTrainer& trainer) {
  if (!config.model) throw InputError("TrainConfig has no model");
  if (!config.input && !config.dataflow) throw InputError("TrainConfig has no dataflow or input");
  if (config.input && config.dataflow) {
    throw InputError("TrainConfig has both a dataflow and an input; give one");
  }
  configureThreads(config.numThreads);
  if (config.seed) torch::manual_seed(*config.seed);

  InputSourcePtr input = config.input;
  if (!input) input = std::make_shared<QueueInput>(config.dataflow, config.queueCapacity);

  trainer.setRunDir(config.runDir);
  auto monitors = std::make_shared<Monitors>(
      config.monitors ? *config.monitors : defaultMonitors(!config.runDir.empty()));
  trainer.setMonitors(monitors);
  if (auto* singleCost = dynamic_cast<SingleCostTrainer*>(&trainer)) {
    singleCost->setGradientProcessing(config.gradients);
    singleCost->setPrecision(config.precision);
  } else if (config.gradients.clipGlobalNorm_ > 0 || config.gradients.clipValue_ > 0) {
    throw InputError("gradient clipping is implemented by the single-cost trainers only");
  } else if (config.precision != Precision::Full32) {
    throw InputError(str("precision \"", precisionName(config.precision),
                         "\" is implemented by the single-cost trainers only; this trainer "
                         "trains in \"32\""));
  }
  trainer.setupGraph(input, config.model);
  for (const auto& cb : config.callbacks) trainer.registerCallback(cb);
  for (const auto& cb : config.extraCallbacks ? *config.extraCallbacks
                                              : defaultCallbacks(trainer.progressScalars())) {
    trainer.registerCallback(cb);
  }
  if (!config.initFrom.empty()) {
    initFromCheckpoint(trainer.mainModule(), config.initFrom, config.initIgnore);
  }
  LoopOptions options = resolveLoopOptions(config, *input);
  if (!config.resumeFrom.empty()) resume(config.resumeFrom, trainer, *input, options);
  TB_LOG(Info) << "training " << options.maxEpoch - options.startingEpoch + 1 << " epochs of "
               << options.stepsPerEpoch << " steps on " << trainer.numTowers() << " tower(s)";
  return options;
}

}  // namespace tbench
