#include "engine/train/TrainConfig.h"

#include <torch/torch.h>

#include "engine/callbacks/EstimatedTimeLeft.h"
#include "engine/callbacks/ProgressBar.h"
#include "engine/callbacks/ThroughputTracker.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/input/QueueInput.h"
#include "engine/monitors/JSONWriter.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/monitors/ScalarPrinter.h"
#include "engine/train/Environment.h"

namespace tbench {

std::vector<CallbackPtr> defaultCallbacks() {
  return {std::make_shared<ProgressBar>(std::vector<std::string>{"cost"}),
          std::make_shared<EstimatedTimeLeft>(), std::make_shared<ThroughputTracker>()};
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

void launchTrainWithConfig(const TrainConfig& config, SingleCostTrainer& trainer) {
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
  trainer.setupGraph(input, config.model);
  for (const auto& cb : config.callbacks) trainer.registerCallback(cb);
  for (const auto& cb : config.extraCallbacks ? *config.extraCallbacks : defaultCallbacks()) {
    trainer.registerCallback(cb);
  }
  const LoopOptions options = resolveLoopOptions(config, *input);
  TB_LOG(Info) << "training " << options.maxEpoch - options.startingEpoch + 1 << " epochs of "
               << options.stepsPerEpoch << " steps on " << trainer.numTowers() << " tower(s)";
  trainer.train(options);
}

}  // namespace tbench
