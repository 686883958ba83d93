#include "engine/project/Project.h"

#include "engine/project/ProjectStructure.h"
#include "engine/project/registry/ComponentRegistry.h"

namespace tbench {

using json = nlohmann::json;

bool Project::monitorOn(const std::string& type) const {
  if (const auto it = monitors.find(type); it != monitors.end()) return it->second;
  const ComponentType* monitor = ComponentRegistry::global().find("monitor", type);
  return monitor != nullptr && monitor->onByDefault;
}

std::vector<ComponentSpec> defaultCallbackSpecs() {
  std::vector<ComponentSpec> callbacks;
  for (const json& entry : defaultCallbacksJson()) {
    ComponentSpec spec = ComponentSpec::of("callback", entry.at("type").get<std::string>());
    for (const auto& item : entry.items()) {
      if (item.key() != "type") spec.set(item.key(), item.value());
    }
    callbacks.push_back(spec);
  }
  return callbacks;
}

}  // namespace tbench
