#include "engine/project/ProjectJson.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/core/Device.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Names.h"
#include "engine/project/JsonReader.h"
#include "engine/project/ProjectStructure.h"

namespace tbench {

using nlohmann::json;

namespace {

constexpr int64_t kFormat = 1;

// Note [Variant keys]
// Models, data sources, optimizers, callbacks and strategies come in types, each with its own
// keys, all described by the component registry (Note [One description per component]). The
// reader reports a key of another type of the same kind as "not a setting of ...", and the
// writer writes the keys of the component's type only, so that what it writes always reads
// back.

int64_t lowerBound(const KeyDescription& k) {
  if (!std::isfinite(k.minimum)) return std::numeric_limits<int64_t>::min();
  return k.minimumInclusive ? int64_t(std::ceil(k.minimum)) : int64_t(std::floor(k.minimum)) + 1;
}

int64_t upperBound(const KeyDescription& k) {
  if (!std::isfinite(k.maximum)) return std::numeric_limits<int64_t>::max();
  return k.maximumInclusive ? int64_t(std::floor(k.maximum)) : int64_t(std::ceil(k.maximum)) - 1;
}

IntRange intRange(const KeyDescription& k) { return {lowerBound(k), upperBound(k)}; }

NumberRange numberRange(const KeyDescription& k) {
  return {k.minimum, k.minimumInclusive, k.maximum, k.maximumInclusive};
}

bool readDevice(JsonReader& r, const json& node, const std::string& path,
                const std::vector<Device>& available, std::string& out) {
  std::string text;
  if (!r.string(node, path, text)) return false;
  try {
    const Device device = Device::parse(text);
    if (std::find(available.begin(), available.end(), device) == available.end()) {
      r.report(path,
               str("unknown device \"", text, "\" (available: ", availableDevicesText(), ")"));
      return false;
    }
    out = device.toString();
    return true;
  } catch (const InputError& e) {
    r.report(path, e.what());
    return false;
  }
}

/// Sets key `name` to the items of the array `value` that `readItem(item, itemPath, out)`
/// accepts, one by one (it reports the others); reports a `value` that is not an array.
template <class T, class ReadItem>
void setList(JsonReader& r, const json& value, const std::string& path, const std::string& name,
             Settings& settings, ReadItem&& readItem) {
  if (!r.isArray(value, path)) return;
  std::vector<T> items;
  for (size_t i = 0; i < value.size(); ++i) {
    T v{};
    if (readItem(value[i], indexPath(path, i), v)) items.push_back(std::move(v));
  }
  settings.set(name, items);
}

/// Reads key `k` of `obj` by its description into `settings`. An absent key keeps what
/// `settings` holds (its default). Returns false when the value was rejected.
bool readKey(JsonReader& r, ObjectReader& obj, const KeyDescription& k, Settings& settings) {
  const json* value = obj.get(k.name, k.requiredKey);
  if (value == nullptr) return !(k.requiredKey && obj.valid());
  const std::string path = obj.pathOf(k.name);
  const size_t issuesBefore = r.issueCount();
  switch (k.type) {
    case ValueType::Integer: {
      int64_t v = 0;
      if (r.integer(*value, path, v, intRange(k))) settings.set(k.name, v);
      break;
    }
    case ValueType::Seed: {
      uint64_t v = 0;
      if (r.unsignedInteger(*value, path, v)) settings.set(k.name, v);
      break;
    }
    case ValueType::Number: {
      double v = 0;
      if (r.number(*value, path, v, numberRange(k))) settings.set(k.name, v);
      break;
    }
    case ValueType::Boolean: {
      bool v = false;
      if (r.boolean(*value, path, v)) settings.set(k.name, v);
      break;
    }
    case ValueType::String:
    case ValueType::File:
    case ValueType::Directory: {
      std::string v;
      if (r.string(*value, path, v, !k.nonEmpty)) settings.set(k.name, v);
      break;
    }
    case ValueType::Choice: {
      std::string v;
      if (r.choice(*value, path, v, k.choiceList)) settings.set(k.name, v);
      break;
    }
    case ValueType::IntegerList:
      setList<int64_t>(r, *value, path, k.name, settings,
                       [&](const json& item, const std::string& at, int64_t& v) {
                         return r.integer(item, at, v, intRange(k));
                       });
      break;
    case ValueType::NumberList:
      setList<double>(r, *value, path, k.name, settings,
                      [&](const json& item, const std::string& at, double& v) {
                        return r.number(item, at, v, numberRange(k));
                      });
      break;
    case ValueType::StringList:
      setList<std::string>(r, *value, path, k.name, settings,
                           [&](const json& item, const std::string& at, std::string& v) {
                             return r.string(item, at, v, false);
                           });
      break;
    case ValueType::Device: {
      std::string v;
      if (readDevice(r, *value, path, availableDevices(), v)) settings.set(k.name, v);
      break;
    }
    case ValueType::DeviceList: {
      if (value->is_array() && value->empty()) r.report(path, "must list at least one device");
      const std::vector<Device> available = availableDevices();
      setList<std::string>(r, *value, path, k.name, settings,
                           [&](const json& item, const std::string& at, std::string& v) {
                             return readDevice(r, item, at, available, v);
                           });
      break;
    }
    case ValueType::PointList:
      TB_CHECK(false, "key \"", k.name, "\" is read by its own code (readSchedule)");
  }
  return r.issueCount() == issuesBefore;
}

/// Reads the component at `path` (its slot says which kind) into `spec`. The project read so
/// far is what the type's check sees.
void readComponent(JsonReader& r, const json& node, const std::string& path,
                   const ComponentSlot& slot, const Project& project, ComponentSpec& spec) {
  const ComponentRegistry& registry = ComponentRegistry::global();
  const ComponentKind& kind = registry.kind(slot.kind);
  ObjectReader obj(r, node, path);
  if (!obj.valid()) return;
  const bool required = kind.defaultType.empty();
  const bool given = obj.has(kind.typeKey);
  if (!given && required) obj.get(kind.typeKey, true);
  std::string type = kind.defaultType;
  const bool valid =
      given ? obj.choice(kind.typeKey, type, registry.typeNames(slot.kind)) : !required;
  obj.get(kind.typeKey);  // known even when absent
  if (!valid) {
    // The keys every type has are still checked; the others mean nothing without a type.
    Settings scratch;
    for (const auto* group : {&kind.leadingKeys, &kind.trailingKeys}) {
      for (const KeyDescription& k : *group) readKey(r, obj, k, scratch);
    }
    obj.ignore(registry.allKeys(slot.kind));
    obj.finish();
    spec.kind = slot.kind;
    spec.type = given ? "" : type;
    return;
  }
  spec = ComponentSpec::of(slot.kind, type);
  std::vector<KeyDescription> keys = registry.keysOf(slot.kind, type);
  for (const auto& item : slot.defaultOverrides.items()) {
    if (spec.settings.has(item.key())) spec.settings.set(item.key(), item.value());
  }
  std::vector<std::string> foreign;
  for (const std::string& name : registry.allKeys(slot.kind)) {
    const bool own = name == kind.typeKey ||
                     std::any_of(keys.begin(), keys.end(), [&](auto& k) { return k.name == name; });
    if (!own) foreign.push_back(name);
  }
  obj.notApplicable(foreign,
                    str("not a setting of ", kind.noun, " \"", type, "\"",
                        given ? "" : " (the default when \"" + kind.typeKey + "\" is not given)"));
  CheckContext context{project, [&](const std::string& key, const std::string& message) {
                         r.report(key.empty() ? path : obj.pathOf(key), message);
                       }};
  for (const KeyDescription& k : keys) {
    if (!readKey(r, obj, k, spec.settings)) context.invalidKeys.push_back(k.name);
  }
  const ComponentType& description = registry.get(slot.kind, type);
  if (description.check) description.check(spec.settings, context);
  obj.finish();
}

/// Reads the keys of the fixed object described at `objectPath` into `settings`, which starts
/// with their defaults. Returns the keys whose value was rejected.
std::vector<std::string> readFixedKeys(JsonReader& r, ObjectReader& obj,
                                       const std::string& objectPath, Settings& settings,
                                       const std::vector<std::string>& skip = {}) {
  std::vector<std::string> invalid;
  const std::optional<ObjectDescription> object = objectAt(objectPath);
  TB_CHECK(object.has_value(), "no fixed object at ", objectPath);
  for (const KeyDescription& k : object->keys) {
    if (std::find(skip.begin(), skip.end(), k.name) != skip.end()) continue;
    if (!settings.has(k.name)) settings.set(k.name, k.defaultValue);
    if (!readKey(r, obj, k, settings)) invalid.push_back(k.name);
  }
  return invalid;
}

const ComponentSlot& slotOf(const std::string& path) {
  const ComponentSlot* slot = slotAt(path);
  TB_CHECK(slot != nullptr, "no component slot at ", path);
  return *slot;
}

void readModel(JsonReader& r, const json& node, Project& project) {
  readComponent(r, node, "$.model", slotOf("model"), project, project.model);
}

void readData(JsonReader& r, const json& node, Project& project) {
  DataSpec& data = project.data;
  ObjectReader obj(r, node, "$.data");
  if (!obj.valid()) return;
  if (const json* train = obj.get("train", true)) {
    readComponent(r, *train, obj.pathOf("train"), slotOf("data.train"), project, data.train);
  }
  if (const json* validation = obj.get("validation")) {
    data.hasValidation = true;
    readComponent(r, *validation, obj.pathOf("validation"), slotOf("data.validation"), project,
                  data.validation);
  }
  Settings s;
  readFixedKeys(r, obj, "data", s);
  data.batchSize = s.integer("batch_size");
  data.shuffle = s.boolean("shuffle");
  data.remainder = s.boolean("remainder");
  data.resident = s.boolean("resident");
  obj.finish();
}

/// "optimizer.param_groups": a list of {"match", "freeze", "lr_multiplier", "weight_decay"}.
void readParamGroups(JsonReader& r, const json& node, const std::string& path,
                     std::vector<ParamGroupRule>& rules) {
  if (!r.isArray(node, path)) return;
  rules.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string rulePath = indexPath(path, i);
    ObjectReader obj(r, node[i], rulePath);
    if (!obj.valid()) continue;
    ParamGroupRule rule;
    bool ok = obj.string("match", rule.match, /*allowEmpty=*/false, /*required=*/true);
    if (ok) {
      const std::string problem = regexProblem(rule.match);
      if (!problem.empty()) {
        r.report(obj.pathOf("match"),
                 str("\"", rule.match, "\" is not a regular expression (", problem, ")"));
        ok = false;
      }
    }
    bool freeze = false;
    if (obj.boolean("freeze", freeze)) rule.freeze = freeze;
    double value = 0;
    if (obj.number("lr_multiplier", value, NumberRange::atLeast(0))) rule.lrMultiplier = value;
    if (obj.number("weight_decay", value, NumberRange::atLeast(0))) rule.weightDecay = value;
    if (ok && !rule.freeze && !rule.lrMultiplier && !rule.weightDecay) {
      r.report(rulePath, "says nothing: give \"freeze\", \"lr_multiplier\" or \"weight_decay\"");
    }
    obj.finish();
    if (ok) rules.push_back(std::move(rule));
  }
}

void readOptimizer(JsonReader& r, const json& node, Project& project) {
  const json* groups =
      node.is_object() && node.contains("param_groups") ? &node["param_groups"] : nullptr;
  if (groups == nullptr) {
    readComponent(r, node, "$.optimizer", slotOf("optimizer"), project, project.optimizer);
    return;
  }
  json rest = node;
  rest.erase("param_groups");
  readComponent(r, rest, "$.optimizer", slotOf("optimizer"), project, project.optimizer);
  readParamGroups(r, *groups, "$.optimizer.param_groups", project.paramGroups);
}

void readSchedule(JsonReader& r, const json& node, ScheduleSpec& schedule) {
  ObjectReader obj(r, node, "$.schedule");
  if (!obj.valid()) return;
  schedule.enabled = true;
  if (const json* lr = obj.get(names::kLearningRate, true)) {
    ObjectReader lrObj(r, *lr, obj.pathOf(names::kLearningRate));
    Settings s;
    readFixedKeys(r, lrObj, "schedule.learning_rate", s, {"points"});
    schedule.shape = s.string("shape");
    schedule.unit = s.string("unit");
    schedule.interpolation = s.string("interpolation");
    schedule.length = s.integer("length");
    schedule.warmup = s.integer("warmup");
    schedule.minLearningRate = s.number("min_learning_rate");
    schedule.pctStart = s.number("pct_start");
    schedule.divFactor = s.number("div_factor");
    schedule.finalDivFactor = s.number("final_div_factor");
    const bool named = schedule.shape != "points";
    if (named) schedule.points.clear();
    if (named && lrObj.has("points")) {
      r.report(lrObj.pathOf("points"),
               str("points are for shape \"points\"; shape \"", schedule.shape,
                   "\" is computed from optimizer.learning_rate"));
      lrObj.get("points");  // reported here, not again as unknown
    }
    if (schedule.shape == "warmup_cosine" && schedule.length > 0 &&
        schedule.warmup >= schedule.length) {
      r.report(lrObj.pathOf("warmup"),
               str("must be less than length (", schedule.length, "), got ", schedule.warmup));
    }
    const json* points = named ? nullptr : lrObj.get("points", true);
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

void readCallbacks(JsonReader& r, const json& node, Project& project) {
  if (!r.isArray(node, "$.callbacks")) return;
  project.callbacks.clear();
  for (size_t i = 0; i < node.size(); ++i) {
    if (!node[i].is_object()) {
      r.isObject(node[i], indexPath("$.callbacks", i));  // reports it
      continue;
    }
    ComponentSpec callback;
    readComponent(r, node[i], indexPath("$.callbacks", i), slotOf("callbacks[]"), project,
                  callback);
    project.callbacks.push_back(callback);
  }
}

/// A fixed section of the project ("init", "speed", "monitors"): its keys, with their
/// defaults, into the Settings that `fill` copies into the project; nothing when the section
/// is absent or not an object.
template <class Fill>
void readSection(JsonReader& r, const json& node, const std::string& section, Fill&& fill) {
  ObjectReader obj(r, node, "$." + section);
  if (!obj.valid()) return;
  Settings s;
  readFixedKeys(r, obj, section, s);
  fill(s, obj);
  obj.finish();
}

void readInit(JsonReader& r, const json& node, InitSpec& init) {
  readSection(r, node, "init", [&](const Settings& s, const ObjectReader&) {
    init.checkpoint = s.string("checkpoint");
    init.ignore = s.strings("ignore");
    init.rename = s.strings("rename");
    init.strict = s.boolean("strict");
  });
}

void readSpeed(JsonReader& r, const json& node, SpeedSettings& speed) {
  readSection(r, node, "speed", [&](const Settings& s, const ObjectReader&) {
    speed.tf32 = s.string("tf32");
    speed.cudnnBenchmark = s.boolean("cudnn_benchmark");
    speed.channelsLast = s.string("channels_last");
    speed.readScalarsEverySteps = s.integer("read_scalars_every_steps");
    speed.readScalarsEverySeconds = s.number("read_scalars_every_seconds");
  });
}

void readMonitors(JsonReader& r, const json& node, Project& project) {
  readSection(r, node, "monitors", [&](const Settings& s, const ObjectReader& obj) {
    for (const auto& item : s.values().items()) {
      if (obj.has(item.key())) project.monitors[item.key()] = item.value().get<bool>();
    }
  });
}

void readTrainer(JsonReader& r, const json& node, Project& project) {
  readComponent(r, node, "$.trainer", slotOf("trainer"), project, project.trainer);
}

bool usableAsDirectoryName(const std::string& name) {
  if (name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

void readProject(JsonReader& r, const json& given, Project& project) {
  // "precision": 32, a number, as Lightning takes it (and `--set precision=32` gives), reads as
  // "32"; the other precisions are strings.
  json copy;
  const bool numeric32 = given.is_object() && given.contains("precision") &&
                         given["precision"].is_number() && given["precision"] == 32;
  if (numeric32) {
    copy = given;
    copy["precision"] = "32";
  }
  const json& doc = numeric32 ? copy : given;
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
  Settings s;
  const std::vector<std::string> invalid = readFixedKeys(r, top, "", s, {"format"});
  auto valid = [&](const std::string& key) {
    return std::find(invalid.begin(), invalid.end(), key) == invalid.end();
  };
  project.name = s.string("name");
  project.description = s.string("description");
  project.stepsPerEpoch = s.integer("steps_per_epoch");
  project.maxEpoch = s.integer("max_epoch");
  project.startingEpoch = s.integer("starting_epoch");
  project.seed = s.seed("seed");
  project.numThreads = s.integer("num_threads");
  project.precision = s.string("precision");
  project.runRoot = s.string("run_root");
  if (valid("name") && top.has("name") && !usableAsDirectoryName(project.name)) {
    r.report("$.name", str("must be usable as a directory name (letters, digits, \".\", \"_\" "
                           "and \"-\"), got ",
                           describeJson(project.name)));
  }
  if (valid("max_epoch") && valid("starting_epoch") && project.startingEpoch > project.maxEpoch) {
    r.report("$.starting_epoch",
             str("must be <= max_epoch (", project.maxEpoch, "), got ", project.startingEpoch));
  }
  // In document order: a component's check sees what came before it (an inference callback
  // needs the validation data).
  if (const json* model = top.get("model", true)) readModel(r, *model, project);
  if (const json* data = top.get("data", true)) readData(r, *data, project);
  if (const json* optimizer = top.get("optimizer")) readOptimizer(r, *optimizer, project);
  if (const json* schedule = top.get("schedule")) readSchedule(r, *schedule, project.schedule);
  if (const json* callbacks = top.get("callbacks")) readCallbacks(r, *callbacks, project);
  if (const json* init = top.get("init")) readInit(r, *init, project.init);
  if (const json* monitors = top.get("monitors")) readMonitors(r, *monitors, project);
  if (const json* speed = top.get("speed")) readSpeed(r, *speed, project.speed);
  if (const json* trainer = top.get("trainer")) readTrainer(r, *trainer, project);
  if (project.data.resident) {
    // The samples are read once (ResidentInput.h): augmentation drawn per read would be frozen,
    // and ranks shard the data by position through their own pipeline.
    const ComponentSpec& train = project.data.train;
    if (train.type == "image_folder" &&
        (train.integer("random_crop_padding") > 0 || train.boolean("horizontal_flip") ||
         train.number("jitter") > 0)) {
      r.report("$.data.resident",
               "data.train augments its images at random every time they are read, but a "
               "resident training set is read once: turn the augmentation off or "
               "\"resident\": false");
    }
    if (project.trainer.type == "distributed") {
      r.report("$.data.resident",
               "strategy \"distributed\" gives each rank its shard of the data pipeline; "
               "\"resident\" is for one process");
    }
  }
  if (valid("precision") && project.precision == "16-mixed") {
    for (const std::string& device : project.devices()) {
      if (device.rfind("cuda", 0) == 0) continue;
      r.report("$.precision", str("\"16-mixed\" needs CUDA devices, but trainer.devices has \"",
                                  device, "\"; use \"bf16-mixed\" on a CPU"));
      break;
    }
  }
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
  std::error_code error;
  if (std::filesystem::is_regular_file(source, error)) {
    project.baseDir = std::filesystem::absolute(source, error).parent_path().string();
  }
  return project;
}

std::vector<ProjectIssue> validateProjectJson(const json& doc) {
  Project scratch;
  return collectIssues(doc, scratch);
}

}  // namespace tbench
