#pragma once
// The structure of the project file around its components: where components sit (slots), the
// fixed objects and their keys (defaults from Project{}), the default callbacks and the scalars
// the engine puts. Torch-free; validation, the writer, the key reference and the window's form
// read it (Note [One description per component], registry/ComponentRegistry.h).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/registry/KeyDescription.h"

namespace tbench {

/// A place in the file that holds a component: "model", "data.train", "callbacks[]".
struct ComponentSlot {
  std::string path;  ///< without "$"; "[]" marks the elements of a list
  std::string kind;
  /// Defaults that differ here ("split" of a validation source is "test").
  nlohmann::json defaultOverrides = nlohmann::json::object();
};

/// A fixed object of the file ("" for the top level, "data", "init", ...) and its own keys.
struct ObjectDescription {
  std::string path;
  std::string title;
  std::vector<KeyDescription> keys;
};

/// Where components sit in the file, in document order.
const std::vector<ComponentSlot>& componentSlots();
/// The slot of `path` ("data.validation", "callbacks[2]"), or nullptr.
const ComponentSlot* slotAt(const std::string& path);
/// The fixed objects of the file with their keys ("", "data", "schedule.learning_rate",
/// "monitors", "init"); defaults come from Project{}; the keys of "monitors" are the monitors
/// registered now.
std::vector<ObjectDescription> projectObjects();
/// The fixed object at `path` ("data", "$.init"), or nullopt.
std::optional<ObjectDescription> objectAt(const std::string& path);
/// The callbacks of a project without a "callbacks" key, as JSON.
nlohmann::json defaultCallbacksJson();
/// Scalars the engine puts, offered where a key names one.
std::vector<std::string> knownScalars();

}  // namespace tbench
