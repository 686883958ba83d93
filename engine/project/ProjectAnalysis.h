#pragma once
// What a project will do, computed from its document without opening data or building a model
// (Note [One analysis of a project]): the facts the window shows while the user edits and the
// CLI's `validate` prints. The trainers remain the truth once a run starts
// (TrainerContext::samplesPerStep, the input's size); these are the same rules applied ahead.
//
// Note [One analysis of a project]
// Samples per step, steps per epoch, the starting learning rate and its curve, and the
// strategy's traits used to be re-derived by the window, the bridge and the CLI, each a little
// differently (a GAN's d_steps was missed by the window). They are computed here, once per edit,
// and reach the window as values (bridge::ProjectSummaryView). A rule changed here changes
// everywhere; nothing outside engine/ multiplies a batch size.

#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/project/Project.h"
#include "engine/project/ProjectJson.h"

namespace tbench {

class ModelDescBase;
class HyperParamSetter;

struct ProjectAnalysis {
  /// Every problem of the document (validateProjectJson); empty when it is a valid project. The
  /// facts below are filled only for a valid project, except the four read from the raw
  /// document with the engine's defaults (name, runRoot, strategy, batchSize).
  std::vector<ProjectIssue> issues;
  bool valid() const { return issues.empty(); }

  std::string name = Project{}.name;
  std::string runRoot = Project{}.runRoot;
  std::string strategy = Project{}.trainer.type;
  int64_t batchSize = 0;  ///< per tower (data.batch_size), its default when absent

  int64_t towers = 0;          ///< trainer.devices
  int64_t batchesPerStep = 0;  ///< batchesPerStepOf: towers × accumulate, or × a GAN's d_steps
  /// Processes that train together: local_processes for a strategy of many processes (trait
  /// "processes": "many"), else 1. A cluster launch decides its own world size.
  int64_t processes = 1;
  bool manyProcesses = false;
  int64_t samplesPerStep = 0;  ///< batchSize × batchesPerStep × processes
  /// stepsPerEpochOf: steps_per_epoch, or one pass over the training data (each process's
  /// shard of it for a strategy of many processes); 0 when the source cannot count its samples
  /// without reading them.
  int64_t stepsPerEpoch = 0;
  int64_t startingEpoch = 1;
  int64_t maxEpoch = 1;
  /// The learning rate the first step runs with (the schedule's value at the start, else the
  /// optimizer's learning_rate); NaN when the optimizer has none.
  double startingLearningRate = std::numeric_limits<double>::quiet_NaN();
  /// The learning rate over the run as (global step, value) points, sampled at every epoch
  /// boundary or schedule point.
  std::vector<std::pair<int64_t, double>> learningRateCurve;
};

/// Analyses `doc` (Note [One analysis of a project]). Never throws.
ProjectAnalysis analyzeProject(const nlohmann::json& doc);

/// Note [Scalars a project puts]: the names of the scalars a run of a project puts (stats.json's
/// keys), as far as its document tells: the trainer's ("cost", a GAN's "d_loss" and "g_loss",
/// "learning_rate", "grad_norm", 16-mixed's scaler), a built-in model's summaries
/// ("train_error"), the input queue's, and each built-in callback's. What a component the
/// engine cannot see into puts (a TorchScript model's summaries, a plugin's callback) is listed
/// in `unknown`. A sweep's metric is checked against it before anything trains.
struct ScalarNames {
  std::vector<std::string> names;     ///< sorted
  std::vector<std::string> prefixes;  ///< names put with a suffix: "validation_accuracy/"
  /// Components whose scalars cannot be named ahead: "model \"torchscript\"", ...
  std::vector<std::string> unknown;
  /// Whether `name` is among names or starts with one of the prefixes.
  bool named(const std::string& name) const;
};
ScalarNames scalarNamesOf(const Project& project);
/// Parses `text` first; a parse error is an issue at "$" ("not valid JSON: ...").
ProjectAnalysis analyzeProjectText(const std::string& text);

/// Batches one step of one process takes: one per tower, times d_steps for a GAN. With the
/// model built (`model`), its own GAN schedule decides; else the model type's "d_steps" setting
/// where its type has the trait "trainer": "gan".
int64_t batchesPerStepOf(const Project& project, const ModelDescBase* model = nullptr);

/// Samples one step of one process takes: data.batch_size × batchesPerStepOf.
int64_t samplesPerStepOf(const Project& project, const ModelDescBase* model = nullptr);

/// Steps in an epoch: steps_per_epoch when set, else one pass of `samples` training samples
/// (the count of the source without reading it when not given) in batches of batch_size,
/// keeping a smaller last batch when data.remainder. 0 when the count is unknown.
int64_t stepsPerEpochOf(const Project& project, std::optional<int64_t> samples = std::nullopt);

/// The project's learning-rate schedule as the callback that applies it; null when the
/// schedule is off.
/// A named shape scales `base` (optimizer.learning_rate); its length 0 is `runLength` positions,
/// or when that is 0 the trainer's whole run.
std::shared_ptr<HyperParamSetter> learningRateScheduleOf(const ScheduleSpec& schedule, double base,
                                                         int64_t runLength = 0);

}  // namespace tbench
