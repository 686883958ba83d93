#include "engine/project/registry/ComponentRegistry.h"

#include <filesystem>

#include <algorithm>
#include <set>

#include "engine/core/Check.h"

namespace tbench {

using nlohmann::json;

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

ComponentSpec& ComponentSpec::set(const std::string& name, json value) {
  // Stored as the reader would store it, so that a project built in code writes what reads
  // back identically (0 for a number is written 0.0).
  for (const KeyDescription& k : ComponentRegistry::global().keysOf(kind, type)) {
    if (k.name == name && k.type == ValueType::NumberList && value.is_array()) {
      for (auto& element : value) {
        if (element.is_number()) element = element.get<double>();
      }
    }
    if (k.name != name || !value.is_number()) continue;
    if (k.type == ValueType::Number) value = value.get<double>();
    if (k.type == ValueType::Seed && value.is_number_integer()) value = value.get<uint64_t>();
  }
  settings.set(name, std::move(value));
  return *this;
}

Settings ComponentSpec::resolved(const std::string& baseDir) const {
  Settings out;
  for (const KeyDescription& k : ComponentRegistry::global().keysOf(kind, type)) {
    nlohmann::json value = settings.has(k.name) ? settings.at(k.name) : k.defaultValue;
    const bool path = k.type == ValueType::File || k.type == ValueType::Directory;
    if (path && !baseDir.empty() && value.is_string() && !value.get<std::string>().empty() &&
        std::filesystem::path(value.get<std::string>()).is_relative()) {
      value =
          (std::filesystem::path(baseDir) / value.get<std::string>()).lexically_normal().string();
    }
    out.set(k.name, std::move(value));
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
  std::vector<ComponentType> one;
  one.push_back(std::move(type));
  addAll(std::move(one));
}

void ComponentRegistry::addAll(std::vector<ComponentType> types) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::vector<ComponentType> accepted;
  for (ComponentType& type : types) {
    if (const std::string problem = refusal(type, accepted); !problem.empty()) {
      throw InputError(problem);
    }
    accepted.push_back(std::move(type));
  }
  for (ComponentType& type : accepted) types_.push_back(std::move(type));
}

std::unique_ptr<ComponentRegistry> ComponentRegistry::emptyCopy() const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::unique_ptr<ComponentRegistry> copy(new ComponentRegistry);
  copy->kinds_ = kinds_;
  return copy;
}

std::string ComponentRegistry::refusal(const ComponentType& type,
                                       const std::vector<ComponentType>& pending) const {
  const std::string what = str(type.kind, " type \"", type.name, "\"");
  if (!hasKind(type.kind)) {
    return str("cannot register ", what, ": unknown kind \"", type.kind,
               "\" (kinds: ", joinedText(kindNames(), ", "), ")");
  }
  if (type.name.empty()) return str("cannot register a ", type.kind, " without a name");
  const ComponentType* other = find(type.kind, type.name);
  for (const ComponentType& p : pending) {
    if (p.kind == type.kind && p.name == type.name) other = &p;
  }
  if (other != nullptr) {
    return str("cannot register ", what, " (", type.origin, "): the name is taken by ",
               other->origin == "built-in" ? "a built-in type" : other->origin);
  }
  if (!type.factory.has_value()) return str("cannot register ", what, ": no factory");
  const ComponentKind& k = kind(type.kind);
  std::set<std::string> names = {k.typeKey};
  for (const auto* group : {&k.leadingKeys, &k.trailingKeys}) {
    for (const auto& key : *group) names.insert(key.name);
  }
  for (const KeyDescription& key : type.keys) {
    if (!names.insert(key.name).second) {
      return str("cannot register ", what, ": key \"", key.name,
                 "\" is listed twice or is a key every ", type.kind, " has");
    }
    if (const std::string problem = key.problemWith(key.defaultValue); !problem.empty()) {
      return str("cannot register ", what, ": the default of \"", key.name, "\" (",
                 key.defaultValue.dump(), ") ", problem);
    }
  }
  return {};
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
           "\" (registered: ", joinedText(typeNames(kind), ", "), ")");
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

}  // namespace tbench
