// Writing a project back to JSON (projectToJson, ProjectJson.h): every component with the keys
// of its type, the fixed objects, and the optional ones (schedule, init, speed, param_groups)
// only when set. Reading and validation are ProjectJson.cpp.

#include <nlohmann/json.hpp>

#include "engine/core/Names.h"
#include "engine/project/ProjectJson.h"

namespace tbench {

using nlohmann::json;

namespace {

/// The component's type and the keys of that type only (Note [Variant keys]).
json componentToJson(const ComponentSpec& spec) {
  const ComponentRegistry& registry = ComponentRegistry::global();
  json j;
  j[registry.kind(spec.kind).typeKey] = spec.type;
  if (registry.find(spec.kind, spec.type) == nullptr) return j;
  const Settings settings = spec.resolved();
  for (const auto& item : settings.values().items()) j[item.key()] = item.value();
  return j;
}

}  // namespace

// ---- Writing

json projectToJson(const Project& p) {
  json doc;
  doc["format"] = p.format;
  doc["name"] = p.name;
  doc["description"] = p.description;
  doc["model"] = componentToJson(p.model);
  doc["data"] = {{"train", componentToJson(p.data.train)},
                 {"batch_size", p.data.batchSize},
                 {"shuffle", p.data.shuffle},
                 {"remainder", p.data.remainder}};
  if (p.data.resident) doc["data"]["resident"] = true;
  if (p.data.hasValidation) doc["data"]["validation"] = componentToJson(p.data.validation);
  doc["optimizer"] = componentToJson(p.optimizer);
  if (!p.paramGroups.empty()) {
    json groups = json::array();
    for (const ParamGroupRule& rule : p.paramGroups) {
      json g = {{"match", rule.match}};
      if (rule.freeze) g["freeze"] = *rule.freeze;
      if (rule.lrMultiplier) g["lr_multiplier"] = *rule.lrMultiplier;
      if (rule.weightDecay) g["weight_decay"] = *rule.weightDecay;
      groups.push_back(std::move(g));
    }
    doc["optimizer"]["param_groups"] = std::move(groups);
  }
  if (p.schedule.enabled && p.schedule.shape == "points") {
    json points = json::array();
    for (const auto& [at, value] : p.schedule.points) points.push_back({at, value});
    doc["schedule"] = {{names::kLearningRate,
                        {{"unit", p.schedule.unit},
                         {"interpolation", p.schedule.interpolation},
                         {"points", points}}}};
  } else if (p.schedule.enabled) {
    json lr = {
        {"shape", p.schedule.shape}, {"unit", p.schedule.unit}, {"length", p.schedule.length}};
    if (p.schedule.shape == "one_cycle") {
      lr["pct_start"] = p.schedule.pctStart;
      lr["div_factor"] = p.schedule.divFactor;
      lr["final_div_factor"] = p.schedule.finalDivFactor;
    } else {
      lr["min_learning_rate"] = p.schedule.minLearningRate;
      if (p.schedule.shape == "warmup_cosine") lr["warmup"] = p.schedule.warmup;
    }
    doc["schedule"] = {{names::kLearningRate, lr}};
  }
  doc["steps_per_epoch"] = p.stepsPerEpoch;
  doc["max_epoch"] = p.maxEpoch;
  doc["starting_epoch"] = p.startingEpoch;
  doc["callbacks"] = json::array();
  for (const auto& callback : p.callbacks) doc["callbacks"].push_back(componentToJson(callback));
  doc["monitors"] = json::object();
  for (const ComponentType* monitor : ComponentRegistry::global().types("monitor")) {
    doc["monitors"][monitor->name] = p.monitorOn(monitor->name);
  }
  if (!p.init.checkpoint.empty()) {
    doc["init"] = {{"checkpoint", p.init.checkpoint},
                   {"ignore", p.init.ignore},
                   {"rename", p.init.rename},
                   {"strict", p.init.strict}};
  }
  doc["trainer"] = componentToJson(p.trainer);
  doc["seed"] = p.seed;
  doc["num_threads"] = p.numThreads;
  doc["precision"] = p.precision;
  // Written when a setting differs from its default (a project that never mentions speed
  // stays as it was written).
  const SpeedSettings defaults;
  json speed = json::object();
  if (p.speed.tf32 != defaults.tf32) speed["tf32"] = p.speed.tf32;
  if (p.speed.cudnnBenchmark != defaults.cudnnBenchmark) {
    speed["cudnn_benchmark"] = p.speed.cudnnBenchmark;
  }
  if (p.speed.channelsLast != defaults.channelsLast) speed["channels_last"] = p.speed.channelsLast;
  if (p.speed.readScalarsEverySteps != defaults.readScalarsEverySteps) {
    speed["read_scalars_every_steps"] = p.speed.readScalarsEverySteps;
  }
  if (p.speed.readScalarsEverySeconds != defaults.readScalarsEverySeconds) {
    speed["read_scalars_every_seconds"] = p.speed.readScalarsEverySeconds;
  }
  if (!speed.empty()) doc["speed"] = speed;
  doc["run_root"] = p.runRoot;
  return doc;
}

}  // namespace tbench
