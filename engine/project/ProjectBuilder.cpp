#include "engine/project/ProjectBuilder.h"

#include <torch/torch.h>

#include <algorithm>

#include "engine/callbacks/CheckNumerics.h"
#include "engine/callbacks/EstimatedTimeLeft.h"
#include "engine/callbacks/GpuUtilizationTracker.h"
#include "engine/callbacks/HyperParamSetter.h"
#include "engine/callbacks/PeriodicTrigger.h"
#include "engine/callbacks/ProgressBar.h"
#include "engine/callbacks/StatMonitorParamSetter.h"
#include "engine/callbacks/ThroughputTracker.h"
#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/FashionMnist.h"
#include "engine/data/SyntheticData.h"
#include "engine/inference/ClassificationError.h"
#include "engine/inference/InferenceRunner.h"
#include "engine/inference/ScalarStats.h"
#include "engine/input/FeedInput.h"
#include "engine/input/QueueInput.h"
#include "engine/models/ConvNet.h"
#include "engine/models/Mlp.h"
#include "engine/monitors/JSONWriter.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/monitors/ScalarPrinter.h"
#include "engine/monitors/TensorBoardWriter.h"
#include "engine/project/ProjectJson.h"
#include "engine/savers/MinMaxSaver.h"
#include "engine/savers/ModelSaver.h"
#include "engine/strategies/AsyncTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncParameterServerTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"

namespace tbench {

OpenedSource openDataSource(const DataSourceSpec& spec, bool shuffle, uint64_t seed) {
  if (spec.type == "synthetic") {
    auto flow = std::make_shared<SyntheticData>(SyntheticData::Options()
                                                    .numSamples(spec.numSamples)
                                                    .imageSize(spec.imageSize)
                                                    .numClasses(spec.numClasses)
                                                    .noise(spec.noise)
                                                    .dataSeed(spec.dataSeed)
                                                    .sampleSeed(spec.sampleSeed)
                                                    .shuffle(shuffle)
                                                    .seed(seed)
                                                    .limit(spec.limit));
    return {flow, ImageShape{1, spec.imageSize, spec.imageSize}, spec.numClasses};
  }
  const auto options =
      IdxClassificationData::Options().limit(spec.limit).shuffle(shuffle).seed(seed);
  std::shared_ptr<IdxClassificationData> flow;
  if (spec.type == "fashion-mnist") {
    flow = std::make_shared<FashionMnist>(spec.split, spec.dir, options);
  } else if (spec.type == "idx") {
    flow = std::make_shared<IdxClassificationData>(spec.images, spec.labels, options);
  } else {
    throw InputError(str("unknown data source type \"", spec.type, "\""));
  }
  const auto shape = flow->imageShape();
  return {flow, ImageShape{shape[0], shape[1], shape[2]}, flow->numClasses()};
}

ClassificationModel::OptimizerFactory optimizerFactory(const OptimizerSpec& spec) {
  return [spec](std::vector<torch::Tensor> params) -> std::unique_ptr<torch::optim::Optimizer> {
    namespace optim = torch::optim;
    if (spec.type == "sgd") {
      return std::make_unique<optim::SGD>(params, optim::SGDOptions(spec.learningRate)
                                                      .momentum(spec.momentum)
                                                      .nesterov(spec.nesterov)
                                                      .weight_decay(spec.weightDecay));
    }
    if (spec.type == "adam") {
      return std::make_unique<optim::Adam>(params, optim::AdamOptions(spec.learningRate)
                                                       .betas({spec.beta1, spec.beta2})
                                                       .eps(spec.eps)
                                                       .weight_decay(spec.weightDecay));
    }
    if (spec.type == "adamw") {
      return std::make_unique<optim::AdamW>(params, optim::AdamWOptions(spec.learningRate)
                                                        .betas({spec.beta1, spec.beta2})
                                                        .eps(spec.eps)
                                                        .weight_decay(spec.weightDecay));
    }
    if (spec.type == "rmsprop") {
      return std::make_unique<optim::RMSprop>(params, optim::RMSpropOptions(spec.learningRate)
                                                          .momentum(spec.momentum)
                                                          .eps(spec.eps)
                                                          .weight_decay(spec.weightDecay));
    }
    throw InputError(str("unknown optimizer type \"", spec.type, "\""));
  };
}

std::shared_ptr<ClassificationModel> buildModel(const ModelSpec& spec, ImageShape image,
                                                int64_t numClasses,
                                                const OptimizerSpec& optimizer) {
  ClassificationModel::NetFactory net;
  if (spec.type == "mlp") {
    MlpOptions o{image, numClasses, spec.hidden, spec.dropout};
    net = [o] { return std::make_shared<Mlp>(o); };
  } else if (spec.type == "convnet") {
    ConvNetOptions o{image,           numClasses,   spec.conv1Channels, spec.conv2Channels,
                     spec.kernelSize, spec.fcWidth, spec.dropout,       spec.batchNorm};
    net = [o] { return std::make_shared<ConvNet>(o); };
  } else {
    throw InputError(str("unknown model type \"", spec.type, "\""));
  }
  return std::make_shared<ClassificationModel>(image, net, optimizerFactory(optimizer));
}

std::shared_ptr<InferenceRunner> buildInferenceRunner(const Project& project) {
  TB_CHECK(project.data.hasValidation, "the project has no validation data");
  OpenedSource validation = openDataSource(project.data.validation, false, project.seed);
  // Validation sees every sample once: the last, smaller batch is kept.
  auto batches = std::make_shared<BatchData>(validation.flow, project.data.batchSize,
                                             /*remainder=*/true);
  return std::make_shared<InferenceRunner>(
      batches, std::vector<InferencerPtr>{std::make_shared<ScalarStats>(),
                                          std::make_shared<ClassificationError>()});
}

namespace {

/// The CUDA devices a run uses (the towers', and the master's for the strategies that have
/// one): what a gpu_tracker watches.
std::vector<int> cudaIndicesOf(const TrainerSpec& trainer) {
  std::vector<std::string> devices = trainer.devices;
  if (trainer.strategy == "sync_parameter_server" || trainer.strategy == "async") {
    devices.push_back(trainer.psDevice);
  }
  std::vector<int> indices;
  for (const auto& text : devices) {
    const Device device = Device::parse(text);
    if (device.isCuda()) indices.push_back(device.index);
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

std::vector<CallbackPtr> buildCallbacks(const Project& project,
                                        std::shared_ptr<ModelSaver>* modelSaver) {
  std::vector<CallbackPtr> callbacks;
  const ScheduleSpec& schedule = project.schedule;
  if (schedule.enabled) {
    callbacks.push_back(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", schedule.points,
        schedule.unit == "step" ? HyperParamSetter::Unit::Step : HyperParamSetter::Unit::Epoch,
        schedule.interpolation == "linear" ? ScheduledHyperParamSetter::Interpolation::Linear
                                           : ScheduledHyperParamSetter::Interpolation::Piecewise));
  }
  for (const CallbackSpec& spec : project.callbacks) {
    if (spec.type == "progress_bar") {
      callbacks.push_back(std::make_shared<ProgressBar>(spec.scalars));
    } else if (spec.type == "estimated_time_left") {
      callbacks.push_back(std::make_shared<EstimatedTimeLeft>());
    } else if (spec.type == "throughput") {
      callbacks.push_back(std::make_shared<ThroughputTracker>());
    } else if (spec.type == "inference") {
      CallbackPtr runner = buildInferenceRunner(project);
      if (spec.everyKEpochs > 1) {
        runner = std::make_shared<PeriodicTrigger>(
            runner, PeriodicTriggerOptions().epochs(spec.everyKEpochs));
      }
      callbacks.push_back(runner);
    } else if (spec.type == "model_saver") {
      auto modelSaverOfSpec =
          std::make_shared<ModelSaver>(ModelSaver::Options()
                                           .maxToKeep(spec.maxToKeep)
                                           .keepCheckpointEveryNHours(spec.keepEveryHours));
      if (!*modelSaver) *modelSaver = modelSaverOfSpec;
      CallbackPtr saver = modelSaverOfSpec;
      if (spec.everyKEpochs > 1) {
        saver = std::make_shared<PeriodicTrigger>(
            saver, PeriodicTriggerOptions().epochs(spec.everyKEpochs));
      }
      callbacks.push_back(saver);
    } else if (spec.type == "min_saver") {
      callbacks.push_back(std::make_shared<MinSaver>(spec.stat));
    } else if (spec.type == "max_saver") {
      callbacks.push_back(std::make_shared<MaxSaver>(spec.stat));
    } else if (spec.type == "check_numerics") {
      callbacks.push_back(std::make_shared<CheckNumerics>(spec.everyKSteps));
    } else if (spec.type == "gpu_tracker") {
      callbacks.push_back(std::make_shared<GpuUtilizationTracker>(cudaIndicesOf(project.trainer)));
    } else if (spec.type == "lr_on_plateau") {
      callbacks.push_back(std::make_shared<StatMonitorParamSetter>("learning_rate", spec.stat,
                                                                   StatMonitorParamSetter::Options()
                                                                       .factor(spec.factor)
                                                                       .patience(spec.patience)
                                                                       .threshold(spec.threshold)
                                                                       .maximize(spec.mode == "max")
                                                                       .minValue(spec.minValue)));
    } else {
      throw InputError(str("unknown callback type \"", spec.type, "\""));
    }
  }
  return callbacks;
}

std::vector<TrainingMonitorPtr> buildMonitors(const Project& project, bool withFiles) {
  std::vector<TrainingMonitorPtr> monitors{std::make_shared<ScalarHistory>()};
  if (project.monitors.json && withFiles) monitors.push_back(std::make_shared<JSONWriter>());
  if (project.monitors.scalarPrinter) monitors.push_back(std::make_shared<ScalarPrinter>());
  if (project.monitors.tensorboard && withFiles) {
    monitors.push_back(std::make_shared<TensorBoardWriter>());
  }
  return monitors;
}

}  // namespace

std::unique_ptr<SingleCostTrainer> buildTrainer(const TrainerSpec& spec,
                                                const std::vector<Device>& devices) {
  const std::string& strategy = spec.strategy;
  if (strategy == "simple" || strategy == "queue_input") {
    TB_CHECK(devices.size() == 1, "strategy ", strategy, " takes one device");
    return std::make_unique<SimpleTrainer>(devices.front());
  }
  if (strategy == "sync_parameter_server") {
    return std::make_unique<SyncParameterServerTrainer>(devices, Device::parse(spec.psDevice));
  }
  if (strategy == "sync_replicated") {
    SyncReplicatedOptions options;
    options.average = spec.average;
    options.checkReplicas = spec.checkReplicas;
    return std::make_unique<SyncReplicatedTrainer>(devices, options);
  }
  if (strategy == "async") {
    return std::make_unique<AsyncTrainer>(devices, Device::parse(spec.psDevice));
  }
  throw InputError(str("unknown trainer strategy \"", strategy, "\""));
}

BuiltRun buildRun(const Project& project, const std::string& runDir) {
  const TrainerSpec& trainer = project.trainer;
  TB_CHECK(!trainer.devices.empty(), "the project has no device");
  std::vector<Device> devices;
  for (const auto& d : trainer.devices) devices.push_back(Device::parse(d));

  OpenedSource train = openDataSource(project.data.train, project.data.shuffle, project.seed);
  auto batched =
      std::make_shared<BatchData>(train.flow, project.data.batchSize, project.data.remainder);

  BuiltRun run;
  TrainConfig& config = run.config;
  config.model = buildModel(project.model, train.image, train.numClasses, project.optimizer);
  if (trainer.strategy == "simple") {
    config.input = std::make_shared<FeedInput>(batched);
  } else {
    config.input = std::make_shared<QueueInput>(batched, trainer.queueSize);
  }
  run.trainer = buildTrainer(trainer, devices);
  config.extraCallbacks = buildCallbacks(project, &run.modelSaver);
  config.monitors = buildMonitors(project, !runDir.empty());
  config.gradients = GradientProcessing()
                         .clipGlobalNorm(project.optimizer.clipGlobalNorm)
                         .clipValue(project.optimizer.clipValue)
                         .reportNorm(project.optimizer.reportGradNorm);
  config.stepsPerEpoch = project.stepsPerEpoch;
  config.startingEpoch = project.startingEpoch;
  config.maxEpoch = project.maxEpoch;
  config.runDir = runDir;
  config.seed = project.seed;
  config.numThreads = project.numThreads;
  config.initFrom = project.init.checkpoint;
  config.initIgnore = project.init.ignore;
  run.trainer->setProjectText(projectToJson(project).dump());
  return run;
}

}  // namespace tbench
