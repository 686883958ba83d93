#pragma once
// The component registry: one description per model, data source, optimizer, callback,
// monitor and strategy type (Note [One description per component]).
//
// Torch-free: validation (ProjectJson.cpp), the JSON writer, the CLI's `types` listing, the
// generated key reference (docs/PROJECT-FORMAT.md) and, through app/bridge, the window's form
// read it. Factories are kept type-erased here; ComponentFactories.h registers them with their
// real (LibTorch) signatures.
//
// Note [One description per component]
// A component type is described once: its name, a one-line summary, its keys (type, default,
// constraints, label, help, choices) and its factory. Everything that knows about types reads
// that description instead of a table of its own:
//   - ProjectJson.cpp validates each key by its description and writes the type's keys only;
//   - ProjectBuilder.cpp builds with the factory, reading resolved Settings;
//   - the form (app/gui/editor) makes one field per key, with its default, tooltip and choices;
//   - `towerbench-cli types` lists them and `towerbench-cli types --markdown` writes the key
//     reference of docs/PROJECT-FORMAT.md (test_Registry fails when the page is out of date).
// Keys every type of a kind has ("limit" of a data source, "learning_rate" of an optimizer) are
// the kind's leading or trailing keys. The fixed parts of the file ("data.batch_size",
// "max_epoch") are described the same way (projectObjects(), engine/project/ProjectStructure.h),
// with their defaults taken from
// Project{} so that each default is written once, in Project.h.

#include <any>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/registry/KeyDescription.h"

namespace tbench {

struct Project;

/// One component of a project: its kind ("model"), its type ("convnet") and its settings.
/// Settings missing from `settings` read as the type's defaults, so code may set only the keys
/// it cares about: `auto m = ComponentSpec::of("model", "mlp"); m.set("hidden", {8});`.
struct ComponentSpec : TypedValues<ComponentSpec> {
  std::string kind;
  std::string type;
  Settings settings;

  /// `type` of `kind` with every default (throws CheckError for an unregistered type).
  static ComponentSpec of(const std::string& kind, const std::string& type);
  /// The default type of `kind` with its defaults.
  static ComponentSpec defaultOf(const std::string& kind);

  /// The value of `name`: the setting, else the type's default. CheckError when the type has
  /// no such key.
  nlohmann::json at(const std::string& name) const;
  ComponentSpec& set(const std::string& name, nlohmann::json value);
  /// Every key of the type with its value (settings over defaults), as the writer emits it.
  /// With a `baseDir`, non-empty relative paths of file and directory keys are resolved
  /// against it (a project's paths are relative to the project file).
  Settings resolved(const std::string& baseDir = "") const;
};

/// Reports a problem with a component's settings during validation: `key` is one of its keys
/// (empty: the component itself).
struct CheckContext {
  const Project& project;  ///< what has been read so far (the model and data before callbacks)
  std::function<void(const std::string& key, const std::string& message)> report;
  /// Keys whose value was rejected (they hold their default): judge others against them only
  /// when they are valid.
  std::vector<std::string> invalidKeys;
  bool invalid(const std::string& key) const {
    for (const auto& k : invalidKeys) {
      if (k == key) return true;
    }
    return false;
  }
};

/// One registered type.
struct ComponentType {
  std::string kind;     ///< "model", "data", "optimizer", "callback", "monitor", "strategy"
  std::string name;     ///< the value of the kind's type key: "convnet"
  std::string summary;  ///< one line: what it is
  std::vector<KeyDescription> keys;  ///< its own keys, in the order they are written
  /// Constraints between keys or with the rest of the project (a convnet's odd kernel, an
  /// inference callback's validation data); reports through the context.
  std::function<void(const Settings&, CheckContext&)> check;
  /// A new instance in the form starts with these settings (a progress bar shows "cost").
  nlohmann::json starter = nlohmann::json::object();
  /// Monitors only: on when the project's "monitors" object does not name it.
  bool onByDefault = true;
  /// Facts other readers need beyond the keys: a strategy's "towers": "one" or "many" (the
  /// devices panel warns when several devices go to a one-tower strategy); a data source's
  /// "held_out_by": the seed key that makes a copy of it draw other samples (the form's
  /// "Validate on" bumps it when it copies the training source).
  std::map<std::string, std::string> traits;
  /// The factory, with the kind's signature (ComponentFactories.h).
  std::any factory;
  /// "built-in", or who registered it (a test, a plugin's path), for the listing.
  std::string origin = "built-in";
};

/// A kind of component and where it appears in the file.
struct ComponentKind {
  std::string name;         ///< "model"
  std::string noun;         ///< "model type", for messages ("not a setting of model type ...")
  std::string title;        ///< "Models", for listings
  std::string typeKey;      ///< "type" ("strategy" for the trainer object)
  std::string defaultType;  ///< the type when the type key is absent; empty: required
  std::string where;        ///< "$.model", for listings
  std::string summary;
  /// Keys every type has, written before and after the type's own keys.
  std::vector<KeyDescription> leadingKeys;
  std::vector<KeyDescription> trailingKeys;
};

class ComponentRegistry {
 public:
  /// The registry every reader uses, with the built-in types registered on first use.
  static ComponentRegistry& global();

  /// Adds a kind (built-in kinds only; the registry fixes the file's structure).
  void addKind(ComponentKind kind);
  /// Registers a type. Throws InputError naming the type when the kind is unknown, the name
  /// is taken, a key repeats a key of the kind or itself, a default breaks its own constraints,
  /// or the factory is missing.
  void add(ComponentType type);
  /// Registers every type of `types` or none: each is checked as add() checks it (and against
  /// the others) before any is added. Throws add()'s InputError for the first one refused.
  void addAll(std::vector<ComponentType> types);
  /// A registry with this one's kinds and no types: where a plugin registers before its types
  /// are checked against this one and moved in with addAll (PluginLoader.h).
  std::unique_ptr<ComponentRegistry> emptyCopy() const;

  const ComponentKind& kind(const std::string& name) const;  ///< CheckError when unknown
  bool hasKind(const std::string& name) const;
  std::vector<std::string> kindNames() const;
  const ComponentType* find(const std::string& kind, const std::string& name) const;
  /// CheckError naming the kind and the registered types when absent.
  const ComponentType& get(const std::string& kind, const std::string& name) const;
  /// In registration order.
  std::vector<const ComponentType*> types(const std::string& kind) const;
  std::vector<std::string> typeNames(const std::string& kind) const;
  /// Leading keys, the type's keys, trailing keys.
  std::vector<KeyDescription> keysOf(const std::string& kind, const std::string& type) const;
  /// Every key some type of `kind` has, in writing order (type key first).
  std::vector<std::string> allKeys(const std::string& kind) const;
  /// The defaults of a type (its keys only).
  Settings defaults(const std::string& kind, const std::string& type) const;

  /// The monitor types as the boolean keys of "monitors".
  std::vector<KeyDescription> monitorKeys() const;

 private:
  ComponentRegistry() = default;
  /// Why `type` cannot be added (add()'s message), or empty. `pending` are types about to be
  /// added with it.
  std::string refusal(const ComponentType& type, const std::vector<ComponentType>& pending) const;
  mutable std::recursive_mutex mutex_;
  std::deque<ComponentKind> kinds_;  // stable addresses: kind() returns references
  std::deque<ComponentType> types_;  // stable addresses
};

/// Registers the built-in kinds and types (builtin/*.cpp). Called once by global().
void registerBuiltinComponents(ComponentRegistry& registry);

}  // namespace tbench
