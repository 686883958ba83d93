#include "engine/project/ProjectBuilder.h"
#include "engine/core/Names.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>

#include "engine/callbacks/HyperParamSetter.h"
#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/inference/ClassificationError.h"
#include "engine/inference/ConfusionMatrix.h"
#include "engine/inference/InferenceRunner.h"
#include "engine/inference/ScalarStats.h"
#include "engine/input/ResidentInput.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectJson.h"

namespace tbench {

OpenedSource openDataSource(const ComponentSpec& spec, const OpenRequest& request,
                            const std::string& baseDir) {
  return dataSourceMaker(spec.type).open(spec.resolved(baseDir), request);
}

InitOptions initOptionsOf(const Project& project) {
  std::string path = project.init.checkpoint;
  if (!path.empty() && !project.baseDir.empty() && std::filesystem::path(path).is_relative()) {
    path = (std::filesystem::path(project.baseDir) / path).lexically_normal().string();
  }
  return {path, project.init.ignore, project.init.rename, project.init.strict};
}

SupervisedModel::OptimizerFactory optimizerFactory(const ComponentSpec& spec) {
  const OptimizerMaker& make = optimizerMaker(spec.type);
  const Settings settings = spec.resolved();
  return [make, settings](std::vector<torch::Tensor> params) {
    return make(std::move(params), settings);
  };
}

ModelDescBasePtr buildModel(const ComponentSpec& spec, ModelContext context,
                            const ComponentSpec& optimizer, const std::string& baseDir) {
  context.optimizer = optimizerFactory(optimizer);
  return modelMaker(spec.type)(spec.resolved(baseDir), context);
}

nlohmann::json dataFactsJson(const OpenedSource& source, const std::string& baseDir) {
  return {{"input_shape", {source.image.channels, source.image.height, source.image.width}},
          {"num_classes", source.numClasses},
          {"num_targets", source.numTargets},
          {"class_names", source.facts.classNames},
          {"statistics", source.facts.statistics},
          {"base_dir", baseDir}};
}

ModelContext modelContext(const OpenedSource& source, const std::string& dataName) {
  ModelContext context;
  context.input = source.image;
  context.numClasses = source.numClasses;
  context.numTargets = source.numTargets;
  context.dataName = dataName;
  return context;
}

std::shared_ptr<InferenceRunner> buildInferenceRunner(const Project& project,
                                                      const DataFacts& trainingFacts,
                                                      const ModelDescBase& model) {
  TB_CHECK(project.data.hasValidation, "the project has no validation data");
  const auto takes = model.inferenceInputs();
  if (takes.empty() || takes.front().name != model.inputs().front().name) {
    throw InputError(
        str("$.callbacks: \"inference\" runs the model on data.validation, but the "
            "inference tower of model \"",
            project.model.type, "\" takes \"", takes.empty() ? "" : takes.front().name,
            "\", not data; remove the inference callback"));
  }
  OpenRequest request;
  request.seed = project.seed;
  request.training = &trainingFacts;
  OpenedSource validation = openDataSource(project.data.validation, request, project.baseDir);
  // Validation sees every sample once: the last, smaller batch is kept.
  auto batches = std::make_shared<BatchData>(validation.flow, project.data.batchSize,
                                             /*remainder=*/true);
  std::vector<InferencerPtr> inferencers{std::make_shared<ScalarStats>()};
  const std::vector<std::string> outputs = model.inferenceOutputNames();
  if (std::find(outputs.begin(), outputs.end(), "wrong") != outputs.end()) {
    inferencers.push_back(std::make_shared<ClassificationError>());
  }
  const auto has = [&](const char* name) {
    return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
  };
  // The model's classes, not the validation file's: a validation set without the last class
  // (its labels give numClasses = largest + 1) still gets predictions of it.
  const int64_t classes = std::max(trainingFacts.numClasses, validation.numClasses);
  if (has("prediction") && has("label") && classes > 0) {
    std::vector<std::string> names = trainingFacts.classNames;
    if (static_cast<int64_t>(names.size()) != classes) names = validation.facts.classNames;
    if (static_cast<int64_t>(names.size()) != classes) names.clear();
    inferencers.push_back(std::make_shared<ConfusionMatrix>(classes, std::move(names)));
  }
  return std::make_shared<InferenceRunner>(batches, std::move(inferencers));
}

namespace {

std::vector<CallbackPtr> buildCallbacks(const Project& project, BuiltRun& run, int rank) {
  std::vector<CallbackPtr> callbacks;
  if (auto schedule = learningRateScheduleOf(project.schedule,
                                             project.optimizer.number(names::kLearningRate))) {
    callbacks.push_back(std::move(schedule));
  }
  CallbackBuildContext context{project, nullptr, &run.dataFacts, run.config.model, rank};
  for (const ComponentSpec& spec : project.callbacks) {
    if (rank > 0) {
      const ComponentType* type = ComponentRegistry::global().find("callback", spec.type);
      if (type != nullptr && type->traits.count("ranks") && type->traits.at("ranks") == "zero") {
        continue;
      }
    }
    if (CallbackPtr callback = callbackMaker(spec.type)(spec.resolved(), context)) {
      callbacks.push_back(callback);
    }
  }
  run.modelSaver = context.modelSaver;
  return callbacks;
}

std::vector<TrainingMonitorPtr> buildMonitors(const Project& project, bool withFiles) {
  std::vector<TrainingMonitorPtr> monitors{std::make_shared<ScalarHistory>()};
  for (const ComponentType* type : ComponentRegistry::global().types("monitor")) {
    if (!project.monitorOn(type->name)) continue;
    if (TrainingMonitorPtr monitor = monitorMaker(type->name)(withFiles)) {
      monitors.push_back(monitor);
    }
  }
  return monitors;
}

}  // namespace

BuiltRun buildRun(const Project& project, const std::string& runDir, int rank) {
  const std::vector<std::string> deviceNames = project.devices();
  TB_CHECK(!deviceNames.empty(), "the project has no device");
  std::vector<Device> devices;
  for (const auto& d : deviceNames) devices.push_back(Device::parse(d));

  OpenRequest request;
  // A resident set is read once in the source's own order and shuffled on the device with the
  // same PassOrder (ResidentInput.h).
  request.shuffle = project.data.shuffle && !project.data.resident;
  request.seed = project.seed;
  OpenedSource train = openDataSource(project.data.train, request, project.baseDir);
  auto batched =
      std::make_shared<BatchData>(train.flow, project.data.batchSize, project.data.remainder);

  BuiltRun run;
  run.dataFacts = train.facts;
  run.dataFacts.numClasses = train.numClasses;
  TrainConfig& config = run.config;
  config.model = buildModel(project.model,
                            modelContext(train, str("data.train (", project.data.train.type, ")")),
                            project.optimizer, project.baseDir);
  const StrategyMaker& strategy = strategyMaker(project.trainer.type);
  if (project.data.resident) {
    config.input = std::make_shared<ResidentInput>(
        train.flow, ResidentInputOptions{project.data.batchSize, project.data.remainder,
                                         project.data.shuffle, project.seed});
  } else {
    config.input = strategy.input(batched, project.trainer.resolved());
  }
  run.trainer = strategy.trainer(project.trainer.resolved(), devices, *config.model);
  config.extraCallbacks = buildCallbacks(project, run, rank);
  config.monitors = buildMonitors(project, !runDir.empty());
  config.gradients = GradientProcessing()
                         .clipGlobalNorm(project.optimizer.number("clip_global_norm"))
                         .clipValue(project.optimizer.number("clip_value"))
                         .reportNorm(project.optimizer.boolean("report_grad_norm"))
                         .reportEvery(project.optimizer.integer("grad_norm_every"));
  config.paramGroups = {project.paramGroups, project.optimizer.boolean("frozen_batchnorm_eval")};
  config.accumulate = project.trainer.integer("accumulate");
  config.emaDecay = project.trainer.number("ema_decay");
  config.stepsPerEpoch = project.stepsPerEpoch;
  config.startingEpoch = project.startingEpoch;
  config.maxEpoch = project.maxEpoch;
  config.runDir = runDir;
  config.seed = project.seed;
  config.numThreads = project.numThreads;
  config.precision = parsePrecision(project.precision);
  config.speed = project.speed;
  config.init = initOptionsOf(project);
  run.trainer->setProjectText(projectToJson(project).dump());
  run.trainer->setDataText(dataFactsJson(train, project.baseDir).dump());
  return run;
}

}  // namespace tbench
