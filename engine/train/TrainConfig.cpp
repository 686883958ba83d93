#include "engine/train/TrainConfig.h"

#include <nlohmann/json.hpp>

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

/// Issue 25 (F5): the data position of a resume is global_step x batches a step in this
/// process's stream; another tower count, GAN d_steps, world size or batch size would put it
/// elsewhere than where the interrupted run stopped. Such a resume is refused, naming both.
void checkSameTopology(const std::string& path, const TrainingState& state,
                       const TowerTrainer& trainer) {
  const auto saved = [&](const char* key) -> int64_t {
    auto it = state.topology.find(key);
    return it == state.topology.end() ? -1 : it->second;
  };
  const int64_t batches = saved("batches_per_step"), world = saved("world_size");
  if (batches > 0 && world > 0 &&
      (batches != trainer.batchesPerStep() || world != trainer.worldSize())) {
    throw InputError(
        str(path, ": saved by a run that took ", batches, " batch(es) a step in each of ", world,
            " process(es); this run takes ", trainer.batchesPerStep(), " in each of ",
            trainer.worldSize(),
            " (towers, a GAN's d_steps or ranks differ), so it cannot continue at the same sample. "
            "Resume with the same devices and processes, or start a new run from its weights "
            "(init.checkpoint)"));
  }
  // The batch size, from the project texts both runs keep.
  auto batchSizeOf = [](const std::string& text) -> int64_t {
    try {
      const auto json = nlohmann::json::parse(text);
      return json.at("data").at("batch_size").get<int64_t>();
    } catch (const std::exception&) {
      return -1;
    }
  };
  if (state.project.empty() || trainer.projectText().empty()) return;
  const int64_t before = batchSizeOf(state.project), now = batchSizeOf(trainer.projectText());
  if (before > 0 && now > 0 && before != now) {
    throw InputError(str(path, ": saved by a run with data.batch_size ", before, "; this run has ",
                         now, ", so it cannot continue at the same sample. Resume with batch_size ",
                         before, ", or start a new run from its weights (init.checkpoint)"));
  }
}

void resume(const std::string& path, TowerTrainer& trainer, InputSource& input,
            LoopOptions& options) {
  const TrainingState state = readCheckpointFile(path);
  checkSameTopology(path, state, trainer);
  trainer.restoreTrainingState(state);
  const int64_t steps = options.stepsPerEpoch;
  // The run's first global step: a run that began at starting_epoch E counted its steps from
  // (E - 1) x steps_per_epoch while its input began at the first batch. E is the saved
  // project's (the run's own; 1 when it has none, its default), else, for a checkpoint without
  // its project, this run's.
  int64_t firstEpoch = options.startingEpoch;
  if (!state.project.empty()) {
    try {
      firstEpoch = nlohmann::json::parse(state.project).value("starting_epoch", int64_t{1});
    } catch (const std::exception&) {
    }
  }
  const int64_t firstGlobalStep = std::max<int64_t>(0, (firstEpoch - 1) * steps);
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
  // many datapoints came before, so skipping the batches the run consumed (its steps since its
  // first global step) puts the data exactly where the uninterrupted run would be.
  input.skipBatches(std::max<int64_t>(0, state.globalStep - firstGlobalStep) *
                    trainer.batchesPerStep());
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
    singleCost->setAccumulation(config.accumulate);
  } else if (config.accumulate != 1) {
    throw InputError("trainer.accumulate is implemented by the single-cost trainers only");
  } else if (config.gradients.clipGlobalNorm_ > 0 || config.gradients.clipValue_ > 0) {
    throw InputError("gradient clipping is implemented by the single-cost trainers only");
  } else if (config.precision != Precision::Full32) {
    throw InputError(str("precision \"", precisionName(config.precision),
                         "\" is implemented by the single-cost trainers only; this trainer "
                         "trains in \"32\""));
  }
  TB_LOG(Info) << "speed: " << applySpeedSettings(config.speed, trainer.devices());
  trainer.setSpeedSettings(config.speed);
  trainer.setParamGroups(config.paramGroups);
  trainer.setWeightAverage(config.emaDecay);
  trainer.setStepScalarReads(config.speed.readScalarsEverySteps,
                             config.speed.readScalarsEverySeconds);
  trainer.setupGraph(input, config.model);
  for (const auto& cb : config.callbacks) trainer.registerCallback(cb);
  for (const auto& cb : config.extraCallbacks ? *config.extraCallbacks
                                              : defaultCallbacks(trainer.progressScalars())) {
    trainer.registerCallback(cb);
  }
  if (!config.init.path.empty()) {
    initFromWeights(trainer.mainModule(), config.init);
  }
  LoopOptions options = resolveLoopOptions(config, *input);
  if (!config.resumeFrom.empty()) resume(config.resumeFrom, trainer, *input, options);
  TB_LOG(Info) << "training " << options.maxEpoch - options.startingEpoch + 1 << " epochs of "
               << options.stepsPerEpoch << " steps on " << trainer.numTowers() << " tower(s)";
  return options;
}

}  // namespace tbench
