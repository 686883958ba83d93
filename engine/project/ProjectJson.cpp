#include "engine/project/ProjectJson.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/core/Device.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/project/JsonReader.h"

namespace tbench {

using nlohmann::json;

namespace {

constexpr int64_t kFormat = 1;

// Note [Variant keys]
// Models, data sources, optimizers, callbacks and strategies come in types, each with its own
// keys. One table per kind lists them: the reader reports a key of another type as "not a
// setting of ...", and the writer drops the keys that do not belong to the type, so that
// what it writes always reads back. Keys every type has are not listed.
struct VariantTable {
  std::string typeKey;  // "type" or "strategy"
  std::string what;     // "model type", for messages
  std::vector<std::pair<std::string, std::vector<std::string>>> keysByType;

  std::vector<std::string> types() const {
    std::vector<std::string> names;
    for (const auto& entry : keysByType) names.push_back(entry.first);
    return names;
  }
  std::vector<std::string> allKeys() const {
    std::set<std::string> keys;
    for (const auto& entry : keysByType) keys.insert(entry.second.begin(), entry.second.end());
    return {keys.begin(), keys.end()};
  }
  /// The variant keys `type` does not have (all of them for an unknown type).
  std::vector<std::string> foreignKeys(const std::string& type) const {
    std::vector<std::string> own;
    for (const auto& entry : keysByType) {
      if (entry.first == type) own = entry.second;
    }
    std::vector<std::string> foreign;
    for (const auto& key : allKeys()) {
      if (std::find(own.begin(), own.end(), key) == own.end()) foreign.push_back(key);
    }
    return foreign;
  }
};

const VariantTable kModelTypes{
    "type",
    "model type",
    {{"mlp", {"hidden"}},
     {"convnet", {"conv1_channels", "conv2_channels", "kernel_size", "fc_width", "batch_norm"}}}};
const VariantTable kSourceTypes{
    "type",
    "source type",
    {{"fashion-mnist", {"split", "dir"}},
     {"idx", {"images", "labels"}},
     {"synthetic", {"num_samples", "image_size", "num_classes", "noise", "seed", "sample_seed"}}}};
const VariantTable kOptimizerTypes{"type",
                                   "optimizer type",
                                   {{"sgd", {"momentum", "nesterov"}},
                                    {"adam", {"beta1", "beta2", "eps"}},
                                    {"adamw", {"beta1", "beta2", "eps"}},
                                    {"rmsprop", {"momentum", "eps"}}}};
const VariantTable kCallbackTypes{
    "type",
    "callback type",
    {{"progress_bar", {"scalars"}},
     {"estimated_time_left", {}},
     {"throughput", {}},
     {"model_saver", {"max_to_keep", "keep_every_hours", "every_k_epochs"}},
     {"min_saver", {"stat"}},
     {"max_saver", {"stat"}},
     {"inference", {"every_k_epochs"}},
     {"check_numerics", {"every_k_steps"}},
     {"lr_on_plateau", {"stat", "factor", "patience", "threshold", "mode", "min_value"}},
     {"gpu_tracker", {}}}};
const VariantTable kStrategies{"strategy",
                               "strategy",
                               {{"simple", {}},
                                {"queue_input", {"queue_size"}},
                                {"sync_parameter_server", {"queue_size", "ps_device"}},
                                {"sync_replicated", {"queue_size", "average", "check_replicas"}},
                                {"async", {"queue_size", "ps_device"}}}};
// Strategies that run one tower; the others take one device per tower.
const std::vector<std::string> kSingleTowerStrategies = {"simple", "queue_input"};

/// Reads the type key of a variant object and checks the other keys against it. Returns
/// false when the type is missing (and required) or unknown: its keys are then not checked.
bool readVariant(ObjectReader& obj, std::string& type, const VariantTable& table,
                 bool required = false) {
  const bool given = obj.has(table.typeKey);
  if (!given && required) obj.get(table.typeKey, true);
  const bool valid = given ? obj.choice(table.typeKey, type, table.types()) : !required;
  obj.get(table.typeKey);  // known even when absent
  if (!valid) {
    obj.ignore(table.allKeys());
    return false;
  }
  obj.notApplicable(table.foreignKeys(type),
                    str("not a setting of ", table.what, " \"", type, "\"",
                        given ? "" : " (the default when \"" + table.typeKey + "\" is not given)"));
  return true;
}

void readModel(JsonReader& r, const json& node, ModelSpec& model) {
  ObjectReader obj(r, node, "$.model");
  if (!obj.valid()) return;
  if (readVariant(obj, model.type, kModelTypes)) {
    if (model.type == "mlp") {
      const json* hidden = obj.get("hidden");
      if (hidden != nullptr && r.isArray(*hidden, obj.pathOf("hidden"))) {
        model.hidden.clear();
        for (size_t i = 0; i < hidden->size(); ++i) {
          int64_t width = 0;
          if (r.integer((*hidden)[i], indexPath(obj.pathOf("hidden"), i), width,
                        IntRange::atLeast(1))) {
            model.hidden.push_back(width);
          }
        }
      }
    } else {
      obj.integer("conv1_channels", model.conv1Channels, IntRange::atLeast(1));
      obj.integer("conv2_channels", model.conv2Channels, IntRange::atLeast(1));
      if (obj.integer("kernel_size", model.kernelSize, IntRange::atLeast(1)) &&
          model.kernelSize % 2 == 0) {
        r.report(obj.pathOf("kernel_size"), str("must be odd, got ", model.kernelSize));
      }
      obj.integer("fc_width", model.fcWidth, IntRange::atLeast(1));
      obj.boolean("batch_norm", model.batchNorm);
    }
  }
  obj.number("dropout", model.dropout, NumberRange::halfOpen(0, 1));
  obj.finish();
}

void readSource(JsonReader& r, const json& node, const std::string& path, DataSourceSpec& source) {
  ObjectReader obj(r, node, path);
  if (!obj.valid()) return;
  if (readVariant(obj, source.type, kSourceTypes)) {
    if (source.type == "fashion-mnist") {
      obj.choice("split", source.split, {"train", "test"});
      obj.string("dir", source.dir);
    } else if (source.type == "idx") {
      obj.string("images", source.images, false, true);
      obj.string("labels", source.labels, false, true);
    } else {
      obj.integer("num_samples", source.numSamples, IntRange::atLeast(1));
      obj.integer("image_size", source.imageSize, IntRange::atLeast(4));
      obj.integer("num_classes", source.numClasses, IntRange::atLeast(2));
      obj.number("noise", source.noise, NumberRange::atLeast(0));
      obj.unsignedInteger("seed", source.dataSeed);
      obj.unsignedInteger("sample_seed", source.sampleSeed);
    }
  }
  obj.integer("limit", source.limit, IntRange::atLeast(0));
  obj.finish();
}

void readData(JsonReader& r, const json& node, DataSpec& data) {
  ObjectReader obj(r, node, "$.data");
  if (!obj.valid()) return;
  if (const json* train = obj.get("train", true)) {
    readSource(r, *train, obj.pathOf("train"), data.train);
  }
  if (const json* validation = obj.get("validation")) {
    data.hasValidation = true;
    data.validation.split = "test";  // a validation source validates on the test split by default
    readSource(r, *validation, obj.pathOf("validation"), data.validation);
  }
  obj.integer("batch_size", data.batchSize, IntRange::atLeast(1));
  obj.boolean("shuffle", data.shuffle);
  obj.boolean("remainder", data.remainder);
  obj.finish();
}

void readOptimizer(JsonReader& r, const json& node, OptimizerSpec& opt) {
  ObjectReader obj(r, node, "$.optimizer");
  if (!obj.valid()) return;
  obj.number("learning_rate", opt.learningRate, NumberRange::greaterThan(0));
  obj.number("weight_decay", opt.weightDecay, NumberRange::atLeast(0));
  obj.number("clip_global_norm", opt.clipGlobalNorm, NumberRange::atLeast(0));
  obj.number("clip_value", opt.clipValue, NumberRange::atLeast(0));
  obj.boolean("report_grad_norm", opt.reportGradNorm);
  if (readVariant(obj, opt.type, kOptimizerTypes)) {
    const size_t issuesBefore = r.issueCount();
    if (opt.type == "sgd" || opt.type == "rmsprop") {
      obj.number("momentum", opt.momentum, NumberRange::atLeast(0));
    }
    if (opt.type == "adam" || opt.type == "adamw") {
      obj.number("beta1", opt.beta1, NumberRange::halfOpen(0, 1));
      obj.number("beta2", opt.beta2, NumberRange::halfOpen(0, 1));
    }
    if (opt.type != "sgd") obj.number("eps", opt.eps, NumberRange::greaterThan(0));
    // A bad momentum is reported already; nesterov is judged against a valid one only.
    if (opt.type == "sgd" && obj.boolean("nesterov", opt.nesterov) && opt.nesterov &&
        r.issueCount() == issuesBefore && opt.momentum <= 0) {
      r.report(obj.pathOf("nesterov"), "requires momentum > 0");
    }
  }
  obj.finish();
}

void readSchedule(JsonReader& r, const json& node, ScheduleSpec& schedule) {
  ObjectReader obj(r, node, "$.schedule");
  if (!obj.valid()) return;
  schedule.enabled = true;
  if (const json* lr = obj.get("learning_rate", true)) {
    ObjectReader lrObj(r, *lr, obj.pathOf("learning_rate"));
    lrObj.choice("unit", schedule.unit, {"epoch", "step"});
    lrObj.choice("interpolation", schedule.interpolation, {"piecewise", "linear"});
    const json* points = lrObj.get("points", true);
    const std::string path = lrObj.pathOf("points");
    if (points != nullptr && r.isArray(*points, path)) {
      if (points->empty()) r.report(path, "must have at least one point");
      schedule.points.clear();
      bool havePrevious = false;
      int64_t previous = 0;
      for (size_t i = 0; i < points->size(); ++i) {
        const json& point = (*points)[i];
        const std::string pointPath = indexPath(path, i);
        if (!point.is_array() || point.size() != 2) {
          r.report(pointPath, "expected a pair [" + schedule.unit + ", learning rate], found " +
                                  (point.is_array() ? str("an array of ", point.size(), " elements")
                                                    : describeJson(point)));
          continue;
        }
        int64_t at = 0;
        double value = 0;
        const bool atOk = r.integer(point[0], indexPath(pointPath, 0), at, IntRange::atLeast(0));
        const bool valueOk =
            r.number(point[1], indexPath(pointPath, 1), value, NumberRange::greaterThan(0));
        if (!atOk) continue;
        if (havePrevious && at <= previous) {
          r.report(indexPath(pointPath, 0),
                   str("must be greater than the previous point's ", previous, ", got ", at));
        }
        havePrevious = true;
        previous = at;
        if (valueOk) schedule.points.emplace_back(at, value);
      }
    }
    lrObj.finish();
  }
  obj.finish();
}

void readCallbacks(JsonReader& r, const json& node, const DataSpec& data,
                   std::vector<CallbackSpec>& callbacks) {
  if (!r.isArray(node, "$.callbacks")) return;
  callbacks.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    ObjectReader obj(r, node[i], indexPath("$.callbacks", i));
    if (!obj.valid()) continue;
    CallbackSpec callback;
    if (readVariant(obj, callback.type, kCallbackTypes, true)) {
      const std::string& type = callback.type;
      if (type == "progress_bar") {
        const json* scalars = obj.get("scalars");
        if (scalars != nullptr && r.isArray(*scalars, obj.pathOf("scalars"))) {
          for (size_t k = 0; k < scalars->size(); ++k) {
            std::string name;
            if (r.string((*scalars)[k], indexPath(obj.pathOf("scalars"), k), name, false)) {
              callback.scalars.push_back(name);
            }
          }
        }
      } else if (type == "model_saver") {
        obj.integer("max_to_keep", callback.maxToKeep, IntRange::atLeast(1));
        obj.number("keep_every_hours", callback.keepEveryHours, NumberRange::atLeast(0));
        obj.integer("every_k_epochs", callback.everyKEpochs, IntRange::atLeast(1));
      } else if (type == "min_saver" || type == "max_saver") {
        obj.string("stat", callback.stat, false, true);
      } else if (type == "inference") {
        obj.integer("every_k_epochs", callback.everyKEpochs, IntRange::atLeast(1));
        if (!data.hasValidation) {
          r.report(indexPath("$.callbacks", i),
                   "an \"inference\" callback needs validation data ($.data.validation)");
        }
      } else if (type == "check_numerics") {
        obj.integer("every_k_steps", callback.everyKSteps, IntRange::atLeast(0));
      } else if (type == "lr_on_plateau") {
        obj.string("stat", callback.stat, false, true);
        if (obj.number("factor", callback.factor, NumberRange::greaterThan(0)) &&
            callback.factor == 1.0) {
          r.report(obj.pathOf("factor"), "must not be 1 (< 1 lowers the rate, > 1 raises it)");
        }
        obj.integer("patience", callback.patience, IntRange::atLeast(1));
        obj.number("threshold", callback.threshold, NumberRange::atLeast(0));
        obj.number("min_value", callback.minValue, NumberRange::atLeast(0));
        obj.choice("mode", callback.mode, {"min", "max"});
      }
    }
    obj.finish();
    callbacks.push_back(callback);
  }
}

void readInit(JsonReader& r, const json& node, InitSpec& init) {
  ObjectReader obj(r, node, "$.init");
  if (!obj.valid()) return;
  obj.string("checkpoint", init.checkpoint, false, true);
  if (const json* ignore = obj.get("ignore"); ignore && r.isArray(*ignore, obj.pathOf("ignore"))) {
    for (size_t k = 0; k < ignore->size(); ++k) {
      std::string name;
      if (r.string((*ignore)[k], indexPath(obj.pathOf("ignore"), k), name, false)) {
        init.ignore.push_back(name);
      }
    }
  }
  obj.finish();
}

void readMonitors(JsonReader& r, const json& node, MonitorSpec& monitors) {
  ObjectReader obj(r, node, "$.monitors");
  obj.boolean("json", monitors.json);
  obj.boolean("scalar_printer", monitors.scalarPrinter);
  obj.boolean("tensorboard", monitors.tensorboard);
  obj.finish();
}

void readDevices(JsonReader& r, const json& node, const std::string& path,
                 std::vector<std::string>& devices) {
  if (!r.isArray(node, path)) return;
  if (node.empty()) r.report(path, "must list at least one device");
  const std::vector<Device> available = availableDevices();
  devices.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    std::string text;
    if (!r.string(node[i], indexPath(path, i), text)) continue;
    try {
      const Device device = Device::parse(text);
      if (std::find(available.begin(), available.end(), device) == available.end()) {
        r.report(indexPath(path, i),
                 str("unknown device \"", text, "\" (available: ", availableDevicesText(), ")"));
        continue;
      }
      devices.push_back(device.toString());
    } catch (const InputError& e) {
      r.report(indexPath(path, i), e.what());
    }
  }
}

void readTrainer(JsonReader& r, const json& node, TrainerSpec& trainer) {
  ObjectReader obj(r, node, "$.trainer");
  if (!obj.valid()) return;
  const bool strategyOk = readVariant(obj, trainer.strategy, kStrategies);
  bool devicesOk = false;
  if (const json* devices = obj.get("devices")) {
    const size_t issuesBefore = r.issueCount();
    readDevices(r, *devices, obj.pathOf("devices"), trainer.devices);
    devicesOk = r.issueCount() == issuesBefore;
  }
  const auto& single = kSingleTowerStrategies;
  if (strategyOk && devicesOk && trainer.devices.size() != 1 &&
      std::find(single.begin(), single.end(), trainer.strategy) != single.end()) {
    r.report(obj.pathOf("devices"),
             str("strategy \"", trainer.strategy, "\" takes exactly one device, got ",
                 trainer.devices.size()));
  }
  if (strategyOk && trainer.strategy != "simple") {
    obj.integer("queue_size", trainer.queueSize, IntRange::atLeast(1));
  }
  if (strategyOk && (trainer.strategy == "sync_parameter_server" || trainer.strategy == "async")) {
    if (const json* ps = obj.get("ps_device")) {
      std::vector<std::string> one;
      readDevices(r, json::array({*ps}), obj.pathOf("ps_device"), one);
      if (one.size() == 1) trainer.psDevice = one.front();
    }
  }
  if (strategyOk && trainer.strategy == "sync_replicated") {
    obj.boolean("average", trainer.average);
    obj.boolean("check_replicas", trainer.checkReplicas);
  }
  obj.finish();
}

bool usableAsDirectoryName(const std::string& name) {
  if (name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

void readProject(JsonReader& r, const json& doc, Project& project) {
  ObjectReader top(r, doc, "$");
  if (!top.valid()) return;
  if (const json* format = top.get("format", true)) {
    int64_t value = 0;
    // The other keys of another format mean something else: checking them would only add
    // noise to the one message that matters.
    if (r.integer(*format, "$.format", value) && value != kFormat) {
      r.report("$.format",
               str("unsupported format ", value, " (this Towerbench reads format ", kFormat, ")"));
      return;
    }
  }
  if (top.string("name", project.name, false, true) && !usableAsDirectoryName(project.name)) {
    r.report("$.name", str("must be usable as a directory name (letters, digits, \".\", \"_\" "
                           "and \"-\"), got ",
                           describeJson(project.name)));
  }
  top.string("description", project.description);
  if (const json* model = top.get("model", true)) readModel(r, *model, project.model);
  if (const json* data = top.get("data", true)) readData(r, *data, project.data);
  if (const json* optimizer = top.get("optimizer")) readOptimizer(r, *optimizer, project.optimizer);
  if (const json* schedule = top.get("schedule")) readSchedule(r, *schedule, project.schedule);
  top.integer("steps_per_epoch", project.stepsPerEpoch, IntRange::atLeast(0));
  const size_t issuesBefore = r.issueCount();
  top.integer("max_epoch", project.maxEpoch, IntRange::atLeast(1));
  top.integer("starting_epoch", project.startingEpoch, IntRange::atLeast(1));
  if (r.issueCount() == issuesBefore && project.startingEpoch > project.maxEpoch) {
    r.report("$.starting_epoch",
             str("must be <= max_epoch (", project.maxEpoch, "), got ", project.startingEpoch));
  }
  if (const json* callbacks = top.get("callbacks")) {
    readCallbacks(r, *callbacks, project.data, project.callbacks);
  }
  if (const json* init = top.get("init")) readInit(r, *init, project.init);
  if (const json* monitors = top.get("monitors")) readMonitors(r, *monitors, project.monitors);
  if (const json* trainer = top.get("trainer")) readTrainer(r, *trainer, project.trainer);
  top.unsignedInteger("seed", project.seed);
  top.integer("num_threads", project.numThreads, IntRange::atLeast(0));
  top.string("run_root", project.runRoot, false);
  top.finish();
}

std::vector<ProjectIssue> collectIssues(const json& doc, Project& project) {
  std::vector<ProjectIssue> issues;
  try {
    JsonReader reader(issues);
    readProject(reader, doc, project);
  } catch (const std::exception& e) {
    // Not expected: every read checks its type first. Kept so that validation never throws.
    issues.push_back({"$", str("internal error while validating: ", e.what())});
  }
  return issues;
}

/// Drops the keys of `j` that do not belong to its type (Note [Variant keys]).
json onlyKeysOf(json j, const VariantTable& table) {
  const std::string type = j.value(table.typeKey, std::string());
  for (const auto& key : table.foreignKeys(type)) j.erase(key);
  return j;
}

json sourceToJson(const DataSourceSpec& s) {
  return onlyKeysOf({{"type", s.type},
                     {"split", s.split},
                     {"dir", s.dir},
                     {"images", s.images},
                     {"labels", s.labels},
                     {"num_samples", s.numSamples},
                     {"image_size", s.imageSize},
                     {"num_classes", s.numClasses},
                     {"noise", s.noise},
                     {"seed", s.dataSeed},
                     {"sample_seed", s.sampleSeed},
                     {"limit", s.limit}},
                    kSourceTypes);
}

}  // namespace

// ---- Validation

ProjectError::ProjectError(const std::string& source, std::vector<ProjectIssue> issues)
    : InputError([&] {
        std::string text = source + ": invalid project:";
        for (const auto& issue : issues) text += "\n  " + issue.toString();
        return text;
      }()),
      issues_(std::move(issues)) {}

Project projectFromJson(const json& doc, const std::string& source) {
  Project project;
  std::vector<ProjectIssue> issues = collectIssues(doc, project);
  if (!issues.empty()) throw ProjectError(source, std::move(issues));
  return project;
}

std::vector<ProjectIssue> validateProjectJson(const json& doc) {
  Project scratch;
  return collectIssues(doc, scratch);
}

// ---- Writing

json projectToJson(const Project& p) {
  json doc;
  doc["format"] = p.format;
  doc["name"] = p.name;
  doc["description"] = p.description;
  doc["model"] = onlyKeysOf({{"type", p.model.type},
                             {"hidden", p.model.hidden},
                             {"conv1_channels", p.model.conv1Channels},
                             {"conv2_channels", p.model.conv2Channels},
                             {"kernel_size", p.model.kernelSize},
                             {"fc_width", p.model.fcWidth},
                             {"batch_norm", p.model.batchNorm},
                             {"dropout", p.model.dropout}},
                            kModelTypes);
  doc["data"] = {{"train", sourceToJson(p.data.train)},
                 {"batch_size", p.data.batchSize},
                 {"shuffle", p.data.shuffle},
                 {"remainder", p.data.remainder}};
  if (p.data.hasValidation) doc["data"]["validation"] = sourceToJson(p.data.validation);
  doc["optimizer"] = onlyKeysOf({{"type", p.optimizer.type},
                                 {"learning_rate", p.optimizer.learningRate},
                                 {"momentum", p.optimizer.momentum},
                                 {"nesterov", p.optimizer.nesterov},
                                 {"weight_decay", p.optimizer.weightDecay},
                                 {"beta1", p.optimizer.beta1},
                                 {"beta2", p.optimizer.beta2},
                                 {"eps", p.optimizer.eps},
                                 {"clip_global_norm", p.optimizer.clipGlobalNorm},
                                 {"clip_value", p.optimizer.clipValue},
                                 {"report_grad_norm", p.optimizer.reportGradNorm}},
                                kOptimizerTypes);
  if (p.schedule.enabled) {
    json points = json::array();
    for (const auto& [at, value] : p.schedule.points) points.push_back({at, value});
    doc["schedule"] = {{"learning_rate",
                        {{"unit", p.schedule.unit},
                         {"interpolation", p.schedule.interpolation},
                         {"points", points}}}};
  }
  doc["steps_per_epoch"] = p.stepsPerEpoch;
  doc["max_epoch"] = p.maxEpoch;
  doc["starting_epoch"] = p.startingEpoch;
  doc["callbacks"] = json::array();
  for (const auto& callback : p.callbacks) {
    doc["callbacks"].push_back(onlyKeysOf({{"type", callback.type},
                                           {"scalars", callback.scalars},
                                           {"max_to_keep", callback.maxToKeep},
                                           {"keep_every_hours", callback.keepEveryHours},
                                           {"every_k_epochs", callback.everyKEpochs},
                                           {"stat", callback.stat},
                                           {"every_k_steps", callback.everyKSteps},
                                           {"factor", callback.factor},
                                           {"patience", callback.patience},
                                           {"threshold", callback.threshold},
                                           {"mode", callback.mode},
                                           {"min_value", callback.minValue}},
                                          kCallbackTypes));
  }
  doc["monitors"] = {{"json", p.monitors.json},
                     {"scalar_printer", p.monitors.scalarPrinter},
                     {"tensorboard", p.monitors.tensorboard}};
  if (!p.init.checkpoint.empty()) {
    doc["init"] = {{"checkpoint", p.init.checkpoint}, {"ignore", p.init.ignore}};
  }
  doc["trainer"] = onlyKeysOf({{"strategy", p.trainer.strategy},
                               {"devices", p.trainer.devices},
                               {"queue_size", p.trainer.queueSize},
                               {"ps_device", p.trainer.psDevice},
                               {"average", p.trainer.average},
                               {"check_replicas", p.trainer.checkReplicas}},
                              kStrategies);
  doc["seed"] = p.seed;
  doc["num_threads"] = p.numThreads;
  doc["run_root"] = p.runRoot;
  return doc;
}

}  // namespace tbench
