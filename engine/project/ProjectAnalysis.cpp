#include "engine/project/ProjectAnalysis.h"
#include "engine/core/Names.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/callbacks/HyperParamSetter.h"
#include "engine/callbacks/NamedSchedule.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/train/GanModelDesc.h"

namespace tbench {
namespace {

bool hasTrait(const std::string& kind, const std::string& type, const std::string& trait,
              const std::string& value) {
  const ComponentType* t = ComponentRegistry::global().find(kind, type);
  if (t == nullptr) return false;
  const auto it = t->traits.find(trait);
  return it != t->traits.end() && it->second == value;
}

/// Samples in the training source without reading it (the type's count function), capped by
/// its "limit"; 0 when unknown.
int64_t countWithoutReading(const ComponentSpec& spec) {
  const DataSourceMaker& factory = dataSourceMaker(spec.type);
  const Settings settings = spec.resolved();
  int64_t count = factory.count ? factory.count(settings) : 0;
  const int64_t limit = settings.has("limit") ? settings.integer("limit") : 0;
  if (limit > 0 && (count == 0 || limit < count)) count = limit;
  return count;
}

std::vector<std::pair<int64_t, double>> curveOf(const Project& project, int64_t spe, double base) {
  const int64_t first = (project.startingEpoch - 1) * spe;
  const int64_t last = project.maxEpoch * spe;
  std::vector<std::pair<int64_t, double>> curve;
  const bool named = project.schedule.shape != "points";
  const std::shared_ptr<HyperParamSetter> schedule =
      !project.schedule.enabled || (!named && project.schedule.points.empty())
          ? nullptr
          : learningRateScheduleOf(project.schedule, base,
                                   project.schedule.unit == "epoch" ? project.maxEpoch : last);
  if (!schedule) {
    curve = {{first, base}, {last, base}};
    return curve;
  }
  // The value holds from one application to the next; before the first point the optimizer's
  // own rate applies.
  double current = base;
  auto valueAt = [&](int64_t position) {
    if (auto v = schedule->valueFor(position)) current = *v;
    return current;
  };
  if (project.schedule.unit == "epoch") {
    // A point (E, v) applies after epoch E: epoch e runs with the value at position e - 1.
    for (int64_t epoch = project.startingEpoch; epoch <= project.maxEpoch; ++epoch) {
      const double value = valueAt(epoch - 1);
      curve.emplace_back((epoch - 1) * spe, value);
      curve.emplace_back(epoch * spe, value);
    }
    return curve;
  }
  // Steps: every schedule point inside the run, plus enough samples to draw interpolation.
  std::vector<int64_t> positions;
  const int64_t samples = 256;
  for (int64_t i = 0; i <= samples; ++i) positions.push_back(first + (last - first) * i / samples);
  for (const auto& [position, value] : project.schedule.points) {
    if (position > first && position < last) {
      positions.push_back(position - 1);
      positions.push_back(position);
    }
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  for (int64_t position : positions) curve.emplace_back(position, valueAt(position));
  return curve;
}

/// The facts readable from a document that does not validate, with the engine's defaults.
void readRaw(const nlohmann::json& doc, ProjectAnalysis& a) {
  if (!doc.is_object()) return;
  const auto text = [&](const nlohmann::json& object, const char* key, std::string& out) {
    if (object.is_object() && object.contains(key) && object[key].is_string()) {
      out = object[key].get<std::string>();
    }
  };
  text(doc, "name", a.name);
  text(doc, "run_root", a.runRoot);
  if (doc.contains("trainer")) text(doc["trainer"], "strategy", a.strategy);
  a.batchSize = Project{}.data.batchSize;
  if (doc.contains("data") && doc["data"].is_object() && doc["data"].contains("batch_size") &&
      doc["data"]["batch_size"].is_number_integer()) {
    a.batchSize = doc["data"]["batch_size"].get<int64_t>();
  }
}

}  // namespace

std::shared_ptr<HyperParamSetter> learningRateScheduleOf(const ScheduleSpec& schedule, double base,
                                                         int64_t runLength) {
  if (!schedule.enabled) return nullptr;
  const auto unit =
      schedule.unit == "step" ? HyperParamSetter::Unit::Step : HyperParamSetter::Unit::Epoch;
  if (schedule.shape != "points") {
    NamedScheduleShape shape;
    shape.shape = schedule.shape;
    shape.base = base;
    shape.length = schedule.length;
    shape.warmup = schedule.warmup;
    shape.minValue = schedule.minLearningRate;
    shape.pctStart = schedule.pctStart;
    shape.divFactor = schedule.divFactor;
    shape.finalDivFactor = schedule.finalDivFactor;
    return std::make_shared<NamedScheduleSetter>(names::kLearningRate, shape, unit, runLength);
  }
  return std::make_shared<ScheduledHyperParamSetter>(
      names::kLearningRate, schedule.points, unit,
      schedule.interpolation == "linear" ? ScheduledHyperParamSetter::Interpolation::Linear
                                         : ScheduledHyperParamSetter::Interpolation::Piecewise);
}

int64_t batchesPerStepOf(const Project& project, const ModelDescBase* model) {
  const Settings trainer = project.trainer.resolved();
  // Gradient accumulation takes its micro-batches from the input too (SingleCostTrainer).
  const int64_t accumulate =
      trainer.has("accumulate") ? std::max<int64_t>(1, trainer.integer("accumulate")) : 1;
  const auto towers = static_cast<int64_t>(project.devices().size()) * accumulate;
  if (model != nullptr) {
    const auto* gan = dynamic_cast<const GanModelDesc*>(model);
    return gan != nullptr ? towers * gan->schedule().discriminatorSteps : towers;
  }
  if (hasTrait("model", project.model.type, "trainer", "gan")) {
    const Settings settings = project.model.resolved();
    if (settings.has("d_steps")) return towers * std::max<int64_t>(1, settings.integer("d_steps"));
  }
  return towers;
}

int64_t samplesPerStepOf(const Project& project, const ModelDescBase* model) {
  return project.data.batchSize * batchesPerStepOf(project, model);
}

int64_t stepsPerEpochOf(const Project& project, std::optional<int64_t> samples) {
  if (project.stepsPerEpoch > 0) return project.stepsPerEpoch;
  const int64_t count = samples ? *samples : countWithoutReading(project.data.train);
  const int64_t batch = std::max<int64_t>(1, project.data.batchSize);
  return project.data.remainder ? (count + batch - 1) / batch : count / batch;
}

ProjectAnalysis analyzeProject(const nlohmann::json& doc) {
  ProjectAnalysis a;
  readRaw(doc, a);
  a.issues = validateProjectJson(doc);
  if (!a.valid()) return a;
  try {
    const Project project = projectFromJson(doc, "project");
    a.towers = static_cast<int64_t>(project.devices().size());
    a.batchesPerStep = batchesPerStepOf(project);
    a.manyProcesses = hasTrait("strategy", project.trainer.type, "processes", "many");
    const Settings trainer = project.trainer.resolved();
    if (a.manyProcesses && trainer.has("local_processes")) {
      a.processes = std::max<int64_t>(1, trainer.integer("local_processes"));
    }
    a.samplesPerStep = samplesPerStepOf(project) * a.processes;
    a.stepsPerEpoch = stepsPerEpochOf(project);
    // Each rank of a many-process strategy reads its shard of the batches (ShardedData).
    if (a.manyProcesses && project.stepsPerEpoch <= 0) a.stepsPerEpoch /= a.processes;
    a.startingEpoch = project.startingEpoch;
    a.maxEpoch = project.maxEpoch;
    const Settings optimizer = project.optimizer.resolved();
    const double base = optimizer.has(names::kLearningRate)
                            ? optimizer.number(names::kLearningRate)
                            : std::numeric_limits<double>::quiet_NaN();
    a.learningRateCurve = curveOf(project, std::max<int64_t>(1, a.stepsPerEpoch), base);
    a.startingLearningRate =
        a.learningRateCurve.empty() ? base : a.learningRateCurve.front().second;
  } catch (const std::exception& e) {
    // validateProjectJson and projectFromJson read the same registry; a difference is a bug,
    // reported where the user sees it rather than thrown at the window.
    a.issues.push_back({"$", e.what()});
  }
  return a;
}

ProjectAnalysis analyzeProjectText(const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or a number out of range
    ProjectAnalysis a;
    a.issues.push_back({"$", std::string("not valid JSON: ") + e.what()});
    return a;
  }
  return analyzeProject(doc);
}

bool ScalarNames::named(const std::string& name) const {
  if (std::binary_search(names.begin(), names.end(), name)) return true;
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return name.rfind(p, 0) == 0; });
}

ScalarNames scalarNamesOf(const Project& project) {
  std::set<std::string> names = {tbench::names::kLearningRate, "QueueInput/queue_size",
                                 "QueueInput/queue_fullness"};
  ScalarNames out;
  const bool gan = hasTrait("model", project.model.type, "trainer", "gan");
  if (gan) {
    names.insert({"d_loss", "g_loss"});
  } else {
    names.insert("cost");
    if (project.optimizer.boolean("report_grad_norm")) names.insert("grad_norm");
    if (project.precision == "16-mixed") names.insert({"grad_scale", "skipped_steps"});
  }
  // The built-in models' summaries (engine/models: a classifier's train_error); a TorchScript
  // model's own summaries and a plugin's are not known ahead.
  const std::string& model = project.model.type;
  if (model == "mlp" || model == "convnet") {
    names.insert("train_error");
  } else if (model != "dcgan") {
    names.insert("train_error");  // a classifier's loss puts it, whatever the model
    out.unknown.push_back(str("model \"", model, "\" (the summaries its cost puts)"));
  }
  for (const ComponentSpec& callback : project.callbacks) {
    const std::string& type = callback.type;
    if (type == "inference") {
      names.insert({"validation_cost", "validation_error"});
      out.prefixes.push_back("validation_accuracy/");
    } else if (type == "throughput") {
      names.insert({"ThroughputTracker/steps_per_sec", "ThroughputTracker/samples_per_sec",
                    "ThroughputTracker/host_syncs_per_step"});
    } else if (type == "gpu_tracker") {
      out.prefixes.push_back("GPUUtil");
      out.prefixes.push_back("PeakMemory(MB)");
    } else if (type == "progress_bar" || type == "estimated_time_left" ||
               type == "check_numerics" || type == "lr_on_plateau" || type == "model_saver" ||
               type == "min_saver" || type == "max_saver" || type == "dump_images" ||
               type == "gan_samples") {
      // Put no scalar of their own (a plateau changes learning_rate, already named).
    } else {
      out.unknown.push_back(str("callback \"", type, "\""));
    }
  }
  out.names.assign(names.begin(), names.end());
  return out;
}

}  // namespace tbench
