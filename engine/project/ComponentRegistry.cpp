#include "engine/project/ComponentRegistry.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "engine/core/Check.h"
#include "engine/project/Project.h"

namespace tbench {

using nlohmann::json;

std::string toString(ValueType type) {
  switch (type) {
    case ValueType::Integer:
      return "integer";
    case ValueType::Seed:
      return "seed";
    case ValueType::Number:
      return "number";
    case ValueType::Boolean:
      return "boolean";
    case ValueType::String:
      return "string";
    case ValueType::File:
      return "file";
    case ValueType::Directory:
      return "directory";
    case ValueType::Choice:
      return "choice";
    case ValueType::IntegerList:
      return "integer list";
    case ValueType::StringList:
      return "string list";
    case ValueType::Device:
      return "device";
    case ValueType::DeviceList:
      return "device list";
    case ValueType::PointList:
      return "point list";
  }
  return "?";
}

// ---- KeyDescription

KeyDescription& KeyDescription::label(std::string text) {
  labelText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::help(std::string text) {
  helpText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::atLeast(double value) {
  minimum = value;
  minimumInclusive = true;
  return *this;
}
KeyDescription& KeyDescription::greaterThan(double value) {
  minimum = value;
  minimumInclusive = false;
  return *this;
}
KeyDescription& KeyDescription::below(double value) {
  maximum = value;
  maximumInclusive = false;
  return *this;
}
KeyDescription& KeyDescription::atMost(double value) {
  maximum = value;
  maximumInclusive = true;
  return *this;
}
KeyDescription& KeyDescription::required() {
  requiredKey = true;
  return *this;
}
KeyDescription& KeyDescription::notEmpty() {
  nonEmpty = true;
  return *this;
}
KeyDescription& KeyDescription::zeroMeans(std::string text) {
  zeroText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::filter(std::string text) {
  fileFilter = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::placeholder(std::string text) {
  placeholderText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::suggestions(std::vector<std::string> values) {
  suggestionList = std::move(values);
  return *this;
}

namespace {

std::string formatBound(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string boundsText(const KeyDescription& k) {
  const bool hasMin = std::isfinite(k.minimum);
  const bool hasMax = std::isfinite(k.maximum);
  if (hasMin && hasMax) {
    return str("in ", k.minimumInclusive ? "[" : "(", formatBound(k.minimum), ", ",
               formatBound(k.maximum), k.maximumInclusive ? "]" : ")");
  }
  if (hasMin) return str(k.minimumInclusive ? ">= " : "> ", formatBound(k.minimum));
  if (hasMax) return str(k.maximumInclusive ? "<= " : "< ", formatBound(k.maximum));
  return "";
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

bool inBounds(const KeyDescription& k, double v) {
  const bool belowMin = k.minimumInclusive ? v < k.minimum : v <= k.minimum;
  const bool aboveMax = k.maximumInclusive ? v > k.maximum : v >= k.maximum;
  return !belowMin && !aboveMax;
}

/// Why `value` cannot be the default of `k`; empty when it can.
std::string defaultProblem(const KeyDescription& k, const json& value) {
  if (k.requiredKey) return "";  // never used: the key must be given
  switch (k.type) {
    case ValueType::Integer:
      if (!value.is_number_integer()) return "is not an integer";
      return inBounds(k, double(value.get<int64_t>())) ? "" : "is out of " + boundsText(k);
    case ValueType::Seed:
      return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0)
                 ? ""
                 : "is not an integer >= 0";
    case ValueType::Number:
      if (!value.is_number()) return "is not a number";
      return inBounds(k, value.get<double>()) ? "" : "is out of " + boundsText(k);
    case ValueType::Boolean:
      return value.is_boolean() ? "" : "is not a boolean";
    case ValueType::String:
    case ValueType::File:
    case ValueType::Directory:
    case ValueType::Device:
      return value.is_string() ? "" : "is not a string";
    case ValueType::Choice:
      if (!value.is_string()) return "is not a string";
      return std::count(k.choiceList.begin(), k.choiceList.end(), value.get<std::string>()) != 0
                 ? ""
                 : "is not one of the choices";
    case ValueType::IntegerList:
      if (!value.is_array()) return "is not an array";
      for (const auto& element : value) {
        if (!element.is_number_integer() || !inBounds(k, double(element.get<int64_t>()))) {
          return "has an element that is not an integer " + boundsText(k);
        }
      }
      return "";
    case ValueType::StringList:
    case ValueType::DeviceList:
    case ValueType::PointList:
      if (!value.is_array()) return "is not an array";
      for (const auto& element : value) {
        if (!element.is_string()) return "has an element that is not a string";
      }
      return "";
  }
  return "";
}

}  // namespace

std::string KeyDescription::constraintText() const {
  std::vector<std::string> parts;
  switch (type) {
    case ValueType::Integer:
    case ValueType::Number:
      if (!boundsText(*this).empty()) parts.push_back(boundsText(*this));
      break;
    case ValueType::Seed:
      parts.push_back(">= 0");
      break;
    case ValueType::Choice:
      parts.push_back("one of: " + joined(choiceList, ", "));
      break;
    case ValueType::IntegerList:
      if (!boundsText(*this).empty()) parts.push_back("each " + boundsText(*this));
      break;
    case ValueType::Device:
      parts.push_back("an available device: cpu or cuda:N");
      break;
    case ValueType::DeviceList:
      parts.push_back("at least one available device");
      break;
    default:
      break;
  }
  if (nonEmpty) parts.push_back("not empty");
  if (requiredKey) parts.push_back("required");
  return joined(parts, ", ");
}

std::string KeyDescription::defaultText() const {
  if (requiredKey) return "(none)";
  if (defaultValue.is_array()) {
    std::string text;
    for (const auto& element : defaultValue) text += (text.empty() ? "" : ", ") + element.dump();
    return "[" + text + "]";
  }
  if (defaultValue.is_number_float()) return formatBound(defaultValue.get<double>());
  return defaultValue.dump();
}

std::string KeyDescription::fullHelp() const {
  std::string text = helpText;
  const std::string constraint = constraintText();
  if (!constraint.empty()) text += " (" + constraint + ")";
  if (!zeroText.empty()) text += "; 0 = " + zeroText;
  if (!requiredKey) text += "; default " + defaultText();
  return text;
}

namespace key {
namespace {
KeyDescription make(std::string name, ValueType type, json fallback) {
  KeyDescription k;
  k.name = std::move(name);
  k.type = type;
  k.defaultValue = std::move(fallback);
  return k;
}
}  // namespace
KeyDescription integer(std::string name, int64_t fallback) {
  return make(std::move(name), ValueType::Integer, fallback);
}
KeyDescription seed(std::string name, uint64_t fallback) {
  return make(std::move(name), ValueType::Seed, fallback);
}
KeyDescription number(std::string name, double fallback) {
  return make(std::move(name), ValueType::Number, fallback);
}
KeyDescription boolean(std::string name, bool fallback) {
  return make(std::move(name), ValueType::Boolean, fallback);
}
KeyDescription string(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::String, std::move(fallback));
}
KeyDescription file(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::File, std::move(fallback));
}
KeyDescription directory(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::Directory, std::move(fallback));
}
KeyDescription choice(std::string name, std::string fallback, std::vector<std::string> choices) {
  KeyDescription k = make(std::move(name), ValueType::Choice, std::move(fallback));
  k.choiceList = std::move(choices);
  return k;
}
KeyDescription integers(std::string name, std::vector<int64_t> fallback) {
  return make(std::move(name), ValueType::IntegerList, std::move(fallback));
}
KeyDescription strings(std::string name, std::vector<std::string> fallback) {
  return make(std::move(name), ValueType::StringList, std::move(fallback));
}
KeyDescription device(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::Device, std::move(fallback));
}
KeyDescription devices(std::string name, std::vector<std::string> fallback) {
  return make(std::move(name), ValueType::DeviceList, std::move(fallback));
}
KeyDescription points(std::string name) {
  return make(std::move(name), ValueType::PointList, json::array());
}
}  // namespace key

// ---- Settings

Settings::Settings(json values) : values_(std::move(values)) {
  TB_CHECK(values_.is_object(), "settings must be a JSON object, got ", values_.dump());
}

const json& Settings::at(const std::string& name) const {
  const auto it = values_.find(name);
  TB_CHECK(it != values_.end(), "no setting \"", name, "\" in ", values_.dump());
  return *it;
}

int64_t Settings::integer(const std::string& name) const { return at(name).get<int64_t>(); }
uint64_t Settings::seed(const std::string& name) const { return at(name).get<uint64_t>(); }
double Settings::number(const std::string& name) const { return at(name).get<double>(); }
bool Settings::boolean(const std::string& name) const { return at(name).get<bool>(); }
std::string Settings::string(const std::string& name) const { return at(name).get<std::string>(); }
std::vector<int64_t> Settings::integers(const std::string& name) const {
  return at(name).get<std::vector<int64_t>>();
}
std::vector<std::string> Settings::strings(const std::string& name) const {
  return at(name).get<std::vector<std::string>>();
}

// ---- ComponentSpec

ComponentSpec ComponentSpec::of(const std::string& kind, const std::string& type) {
  ComponentSpec spec;
  spec.kind = kind;
  spec.type = type;
  spec.settings = ComponentRegistry::global().defaults(kind, type);
  return spec;
}

ComponentSpec ComponentSpec::defaultOf(const std::string& kind) {
  return of(kind, ComponentRegistry::global().kind(kind).defaultType);
}

json ComponentSpec::at(const std::string& name) const {
  if (settings.has(name)) return settings.at(name);
  for (const KeyDescription& k : ComponentRegistry::global().keysOf(kind, type)) {
    if (k.name == name) return k.defaultValue;
  }
  TB_CHECK(false, kind, " type \"", type, "\" has no setting \"", name, "\"");
  return nullptr;  // not reached
}

int64_t ComponentSpec::integer(const std::string& name) const { return at(name).get<int64_t>(); }
uint64_t ComponentSpec::seed(const std::string& name) const { return at(name).get<uint64_t>(); }
double ComponentSpec::number(const std::string& name) const { return at(name).get<double>(); }
bool ComponentSpec::boolean(const std::string& name) const { return at(name).get<bool>(); }
std::string ComponentSpec::string(const std::string& name) const {
  return at(name).get<std::string>();
}
std::vector<int64_t> ComponentSpec::integers(const std::string& name) const {
  return at(name).get<std::vector<int64_t>>();
}
std::vector<std::string> ComponentSpec::strings(const std::string& name) const {
  return at(name).get<std::vector<std::string>>();
}

ComponentSpec& ComponentSpec::set(const std::string& name, json value) {
  // Stored as the reader would store it, so that a project built in code writes what reads
  // back identically (0 for a number is written 0.0).
  for (const KeyDescription& k : ComponentRegistry::global().keysOf(kind, type)) {
    if (k.name != name || !value.is_number()) continue;
    if (k.type == ValueType::Number) value = value.get<double>();
    if (k.type == ValueType::Seed && value.is_number_integer()) value = value.get<uint64_t>();
  }
  settings.set(name, std::move(value));
  return *this;
}

Settings ComponentSpec::resolved() const {
  Settings out;
  for (const KeyDescription& k : ComponentRegistry::global().keysOf(kind, type)) {
    out.set(k.name, settings.has(k.name) ? settings.at(k.name) : k.defaultValue);
  }
  return out;
}

// ---- ComponentRegistry

ComponentRegistry& ComponentRegistry::global() {
  static ComponentRegistry* registry = [] {
    auto* r = new ComponentRegistry;  // never destroyed: types may be read at exit
    registerBuiltinComponents(*r);
    return r;
  }();
  return *registry;
}

void ComponentRegistry::addKind(ComponentKind kind) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  TB_CHECK(!hasKind(kind.name), "component kind \"", kind.name, "\" registered twice");
  kinds_.push_back(std::move(kind));
}

void ComponentRegistry::add(ComponentType type) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  const std::string what = str(type.kind, " type \"", type.name, "\"");
  if (!hasKind(type.kind)) {
    throw InputError(str("cannot register ", what, ": unknown kind \"", type.kind,
                         "\" (kinds: ", joined(kindNames(), ", "), ")"));
  }
  if (type.name.empty()) throw InputError(str("cannot register a ", type.kind, " without a name"));
  if (const ComponentType* other = find(type.kind, type.name)) {
    throw InputError(str("cannot register ", what, " (", type.origin, "): the name is taken by ",
                         other->origin == "built-in" ? "a built-in type" : other->origin));
  }
  if (!type.factory.has_value()) throw InputError(str("cannot register ", what, ": no factory"));
  const ComponentKind& k = kind(type.kind);
  std::set<std::string> names = {k.typeKey};
  for (const auto* group : {&k.leadingKeys, &k.trailingKeys}) {
    for (const auto& key : *group) names.insert(key.name);
  }
  for (const KeyDescription& key : type.keys) {
    if (!names.insert(key.name).second) {
      throw InputError(str("cannot register ", what, ": key \"", key.name,
                           "\" is listed twice or is a key every ", type.kind, " has"));
    }
    if (const std::string problem = defaultProblem(key, key.defaultValue); !problem.empty()) {
      throw InputError(str("cannot register ", what, ": the default of \"", key.name, "\" (",
                           key.defaultValue.dump(), ") ", problem));
    }
  }
  types_.push_back(std::move(type));
}

const ComponentKind& ComponentRegistry::kind(const std::string& name) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (const auto& k : kinds_) {
    if (k.name == name) return k;
  }
  TB_CHECK(false, "unknown component kind \"", name, "\"");
  return kinds_.front();  // not reached
}

bool ComponentRegistry::hasKind(const std::string& name) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return std::any_of(kinds_.begin(), kinds_.end(), [&](const auto& k) { return k.name == name; });
}

std::vector<std::string> ComponentRegistry::kindNames() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& k : kinds_) names.push_back(k.name);
  return names;
}

const ComponentType* ComponentRegistry::find(const std::string& kind,
                                             const std::string& name) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (const auto& t : types_) {
    if (t.kind == kind && t.name == name) return &t;
  }
  return nullptr;
}

const ComponentType& ComponentRegistry::get(const std::string& kind,
                                            const std::string& name) const {
  const ComponentType* type = find(kind, name);
  TB_CHECK(type != nullptr, "unknown ", kind, " type \"", name,
           "\" (registered: ", joined(typeNames(kind), ", "), ")");
  return *type;
}

std::vector<const ComponentType*> ComponentRegistry::types(const std::string& kind) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::vector<const ComponentType*> out;
  for (const auto& t : types_) {
    if (t.kind == kind) out.push_back(&t);
  }
  return out;
}

std::vector<std::string> ComponentRegistry::typeNames(const std::string& kind) const {
  std::vector<std::string> names;
  for (const ComponentType* t : types(kind)) names.push_back(t->name);
  return names;
}

std::vector<KeyDescription> ComponentRegistry::keysOf(const std::string& kindName,
                                                      const std::string& type) const {
  const ComponentKind& k = kind(kindName);
  std::vector<KeyDescription> keys = k.leadingKeys;
  if (const ComponentType* t = find(kindName, type)) {
    keys.insert(keys.end(), t->keys.begin(), t->keys.end());
  }
  keys.insert(keys.end(), k.trailingKeys.begin(), k.trailingKeys.end());
  return keys;
}

std::vector<std::string> ComponentRegistry::allKeys(const std::string& kindName) const {
  const ComponentKind& k = kind(kindName);
  std::vector<std::string> names = {k.typeKey};
  auto addName = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const auto& key : k.leadingKeys) addName(key.name);
  for (const ComponentType* t : types(kindName)) {
    for (const auto& key : t->keys) addName(key.name);
  }
  for (const auto& key : k.trailingKeys) addName(key.name);
  return names;
}

Settings ComponentRegistry::defaults(const std::string& kindName, const std::string& type) const {
  get(kindName, type);  // names the registered types when `type` is not one
  Settings settings;
  for (const KeyDescription& k : keysOf(kindName, type)) settings.set(k.name, k.defaultValue);
  return settings;
}

std::vector<KeyDescription> ComponentRegistry::monitorKeys() const {
  std::vector<KeyDescription> keys;
  for (const ComponentType* t : types("monitor")) {
    keys.push_back(key::boolean(t->name, t->onByDefault).label(t->summary).help(t->summary));
  }
  return keys;
}

// ---- The file's structure

const std::vector<ComponentSlot>& componentSlots() {
  static const std::vector<ComponentSlot> slots = {
      {"model", "model"},
      {"data.train", "data"},
      // A validation source validates on the test split unless told otherwise.
      {"data.validation", "data", json{{"split", "test"}}},
      {"optimizer", "optimizer"},
      {"callbacks[]", "callback"},
      {"trainer", "strategy"}};
  return slots;
}

const ComponentSlot* slotAt(const std::string& path) {
  std::string pattern = path.rfind("$.", 0) == 0 ? path.substr(2) : path;
  // "callbacks[2]" -> "callbacks[]"
  if (const auto open = pattern.find('['); open != std::string::npos) {
    const auto close = pattern.find(']', open);
    if (close != std::string::npos) pattern.erase(open + 1, close - open - 1);
  }
  for (const ComponentSlot& slot : componentSlots()) {
    if (slot.path == pattern) return &slot;
  }
  return nullptr;
}

namespace {

/// The fixed objects; "monitors" gets its keys from the registry on every call (monitors may be
/// registered after the first read).
const std::vector<ObjectDescription>& fixedObjects() {
  static const std::vector<ObjectDescription> objects = [] {
    const Project p;
    std::vector<ObjectDescription> out;
    out.push_back({"",
                   "Top level",
                   {key::integer("format", p.format)
                        .label("Format")
                        .help("Project file format; this Towerbench reads format 1")
                        .atLeast(1)
                        .required(),
                    key::string("name", p.name)
                        .label("Name")
                        .help("Letters, digits, '.', '_' and '-'; runs go to <run_root>/<name>/")
                        .notEmpty()
                        .required(),
                    key::string("description", p.description)
                        .label("Description")
                        .help("Free text, shown in the run history"),
                    key::integer("steps_per_epoch", p.stepsPerEpoch)
                        .label("Steps per epoch")
                        .help("Steps per epoch")
                        .atLeast(0)
                        .zeroMeans("one pass over the training data"),
                    key::integer("max_epoch", p.maxEpoch)
                        .label("Max epoch")
                        .help("Train up to this epoch")
                        .atLeast(1),
                    key::integer("starting_epoch", p.startingEpoch)
                        .label("Starting epoch")
                        .help("First epoch to run, at most max_epoch")
                        .atLeast(1),
                    key::seed("seed", p.seed).label("Seed").help("Random seed of the run"),
                    key::integer("num_threads", p.numThreads)
                        .label("Threads")
                        .help("Intra-op threads")
                        .atLeast(0)
                        .zeroMeans("all cores"),
                    key::directory("run_root", p.runRoot)
                        .label("Run root")
                        .help("Runs go to <run_root>/<name>/<run-id>/")
                        .notEmpty()}});
    out.push_back({"data",
                   "Data",
                   {key::integer("batch_size", p.data.batchSize)
                        .label("Batch size")
                        .help("Samples per batch and tower")
                        .atLeast(1),
                    key::boolean("shuffle", p.data.shuffle)
                        .label("Shuffle every epoch")
                        .help("Shuffle the training set every epoch"),
                    key::boolean("remainder", p.data.remainder)
                        .label("Keep the last, smaller batch")
                        .help("Keep the last, smaller training batch of a pass")}});
    out.push_back({"schedule.learning_rate",
                   "Learning-rate schedule",
                   {key::choice("unit", p.schedule.unit, {"epoch", "step"})
                        .label("Unit")
                        .help("Whether points are at epochs or global steps"),
                    key::choice("interpolation", p.schedule.interpolation, {"piecewise", "linear"})
                        .label("Interpolation")
                        .help("piecewise: hold the last value; linear: interpolate between points"),
                    // Read by its own code (pairs); described here for the reference and the form.
                    key::points("points")
                        .label("Points")
                        .help("[epoch or step (integer >= 0), learning rate (> 0)] pairs, strictly "
                              "increasing; at least one")
                        .required()}});
    out.push_back({"monitors", "Monitors", {}});
    out.push_back({"init",
                   "Initial weights",
                   {key::file("checkpoint", p.init.checkpoint)
                        .label("Checkpoint")
                        .help("Start from the weights of this checkpoint")
                        .notEmpty()
                        .required()
                        .filter("Checkpoints (*.pt);;All files (*)"),
                    key::strings("ignore", p.init.ignore)
                        .label("Do not restore")
                        .help("Parameter names (or prefixes ending in '.') not restored")}});
    return out;
  }();
  return objects;
}

}  // namespace

std::vector<ObjectDescription> projectObjects() {
  std::vector<ObjectDescription> objects = fixedObjects();
  for (ObjectDescription& object : objects) {
    if (object.path == "monitors") object.keys = ComponentRegistry::global().monitorKeys();
  }
  return objects;
}

std::optional<ObjectDescription> objectAt(const std::string& path) {
  const std::string pattern = path.rfind("$.", 0) == 0 ? path.substr(2) : path == "$" ? "" : path;
  for (ObjectDescription& object : projectObjects()) {
    if (object.path == pattern) return std::move(object);
  }
  return std::nullopt;
}

json defaultCallbacksJson() {
  return json::array({{{"type", "progress_bar"}, {"scalars", {"cost"}}},
                      {{"type", "estimated_time_left"}},
                      {{"type", "throughput"}}});
}

std::vector<std::string> knownScalars() {
  return {"cost", "train_error", "validation_cost", "validation_error", "learning_rate"};
}

// ---- Listings

namespace {

std::string markdownCell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

void keyTable(std::ostringstream& out, const std::vector<KeyDescription>& keys) {
  out << "| key | type | default | constraints | meaning |\n|---|---|---|---|---|\n";
  for (const KeyDescription& k : keys) {
    std::string meaning = k.helpText;
    if (!k.zeroText.empty()) meaning += "; 0 = " + k.zeroText;
    std::string fallback = k.defaultText();
    for (size_t at = 0; (at = fallback.find('|', at)) != std::string::npos; at += 2) {
      fallback.insert(at, "\\");
    }
    out << "| `" << k.name << "` | " << toString(k.type) << " | `" << fallback << "` | "
        << markdownCell(k.constraintText()) << " | " << markdownCell(meaning) << " |\n";
  }
}

}  // namespace

std::string keyReferenceMarkdown() {
  const ComponentRegistry& registry = ComponentRegistry::global();
  std::ostringstream out;
  out << "<!-- Generated by `towerbench-cli types --markdown` from the component registry "
         "(engine/project/ComponentRegistry.h); test_Registry fails when this differs. -->\n\n";
  for (const ObjectDescription& object : projectObjects()) {
    out << "### `" << (object.path.empty() ? "$" : "$." + object.path) << "` — " << object.title
        << "\n\n";
    keyTable(out, object.keys);
    out << "\n";
  }
  for (const std::string& kindName : registry.kindNames()) {
    if (kindName == "monitor") continue;  // the keys of "monitors" above
    const ComponentKind& k = registry.kind(kindName);
    out << "### " << k.title << " (`" << k.where << "`)\n\n"
        << markdownCell(k.summary) << " The `" << k.typeKey << "` key picks the type"
        << (k.defaultType.empty() ? " and is required" : " (default `" + k.defaultType + "`)")
        << ".\n\n";
    if (!k.leadingKeys.empty() || !k.trailingKeys.empty()) {
      out << "Every " << kindName << " type has:\n\n";
      std::vector<KeyDescription> common = k.leadingKeys;
      common.insert(common.end(), k.trailingKeys.begin(), k.trailingKeys.end());
      keyTable(out, common);
      out << "\n";
    }
    for (const ComponentType* t : registry.types(kindName)) {
      out << "#### `" << t->name << "`\n\n" << markdownCell(t->summary) << "\n\n";
      if (t->keys.empty()) {
        out << "No settings of its own.\n\n";
      } else {
        keyTable(out, t->keys);
        out << "\n";
      }
    }
  }
  return out.str();
}

std::string typeListingText(const std::string& onlyKind) {
  const ComponentRegistry& registry = ComponentRegistry::global();
  if (!onlyKind.empty() && !registry.hasKind(onlyKind)) {
    throw InputError(
        str("unknown kind \"", onlyKind, "\" (kinds: ", joined(registry.kindNames(), ", "), ")"));
  }
  std::ostringstream out;
  auto printKeys = [&](const std::vector<KeyDescription>& keys, const std::string& indent) {
    for (const KeyDescription& k : keys) {
      out << indent << k.name << " (" << toString(k.type) << "): " << k.fullHelp() << "\n";
    }
  };
  for (const std::string& kindName : registry.kindNames()) {
    if (!onlyKind.empty() && kindName != onlyKind) continue;
    const ComponentKind& k = registry.kind(kindName);
    if (k.typeKey.empty()) {
      out << k.title << " (boolean keys of " << k.where << ")\n";
    } else {
      out << k.title << " (" << k.where << ", key \"" << k.typeKey << "\""
          << (k.defaultType.empty() ? ", required" : ", default " + k.defaultType) << ")\n";
    }
    if (!k.leadingKeys.empty() || !k.trailingKeys.empty()) {
      out << "  every type:\n";
      printKeys(k.leadingKeys, "    ");
      printKeys(k.trailingKeys, "    ");
    }
    for (const ComponentType* t : registry.types(kindName)) {
      out << "  " << t->name << ": " << t->summary
          << (k.typeKey.empty() ? std::string(t->onByDefault ? "; default on" : "; default off")
                                : "")
          << (t->origin == "built-in" ? "" : " [" + t->origin + "]") << "\n";
      printKeys(t->keys, "    ");
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace tbench
