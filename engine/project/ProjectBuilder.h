#pragma once
// Project -> TrainConfig and trainer: the one path from a project file into the engine,
// shared by the CLI, the GUI's bridge and C++ users. Every component is made by its registered
// factory (ComponentFactories.h); nothing here knows a type by name.

#include <memory>
#include <string>

#include "engine/inference/InferenceRunner.h"
#include "engine/models/SupervisedModel.h"
#include "engine/project/Project.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/savers/ModelSaver.h"
#include "engine/train/TrainConfig.h"

namespace tbench {

/// Opens a data source (reads headers and labels, so bad files fail here with their path).
/// Relative paths of `spec` are resolved against `baseDir` (Project::baseDir).
OpenedSource openDataSource(const ComponentSpec& spec, const OpenRequest& request = {},
                            const std::string& baseDir = "");

/// The project's "init" as the engine takes it, a relative checkpoint path resolved against
/// project.baseDir (as every other file of the project).
InitOptions initOptionsOf(const Project& project);

/// The optimizer factory of `spec` (an optimizer ComponentSpec).
SupervisedModel::OptimizerFactory optimizerFactory(const ComponentSpec& spec);

/// The model of `spec` (with the optimizer of `optimizer`) for the data of `context`; context's
/// optimizer is set here. Throws InputError when the model cannot fit the data.
ModelDescBasePtr buildModel(const ComponentSpec& spec, ModelContext context,
                            const ComponentSpec& optimizer, const std::string& baseDir = "");
/// The checkpoints' "data" entry for `source` (Checkpoint.h).
nlohmann::json dataFactsJson(const OpenedSource& source, const std::string& baseDir);
/// The ModelContext of an opened training source.
ModelContext modelContext(const OpenedSource& source, const std::string& dataName);

/// The InferenceRunner of the project's validation data, opened with what the training source
/// learned: ScalarStats for validation_cost, ClassificationError for validation_error when
/// `model` outputs "wrong", and ConfusionMatrix (per-class accuracy, confusion/epoch-<E>.json,
/// the "confusion_matrix" and "misclassified" images) when it outputs "prediction" and "label"
/// for a classification source. CheckError when there is no validation data.
std::shared_ptr<InferenceRunner> buildInferenceRunner(const Project& project,
                                                      const DataFacts& trainingFacts,
                                                      const ModelDescBase& model);

/// A run ready to start: launchTrainWithConfig(run.config, *run.trainer).
struct BuiltRun {
  TrainConfig config;
  std::unique_ptr<TowerTrainer> trainer;
  /// The project's model_saver (also somewhere in config.callbacks), or null when it has none.
  std::shared_ptr<ModelSaver> modelSaver;
  /// What the training source learned (validation and eval open their data with it).
  DataFacts dataFacts;
};

/// Builds the config and trainer of `project`, writing into `runDir` (empty: no files).
/// Throws InputError when a data source cannot be opened or a device is not available.
/// `rank` > 0: a non-zero rank of a multi-process run (Note [One run, one directory]): callbacks
/// of types with the trait {"ranks": "zero"} (the savers) are left out.
BuiltRun buildRun(const Project& project, const std::string& runDir, int rank = 0);

}  // namespace tbench
