#pragma once
// The built-in components, one file per kind (Builtin*.cpp): each registers its types with
// their descriptions and factories. Not a public header: code outside the engine registers
// through ComponentFactories.h.

#include <string>
#include <vector>

#include "engine/core/Check.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/project/Project.h"

namespace tbench {

/// A type's name, summary and own keys; kind and factory are set by the register* functions.
inline ComponentType describe(std::string name, std::string summary,
                              std::vector<KeyDescription> keys = {}) {
  ComponentType type;
  type.name = std::move(name);
  type.summary = std::move(summary);
  type.keys = std::move(keys);
  return type;
}

/// Whether the project's model is trained by GanTrainer (its type has the trait
/// "trainer": "gan", like "dcgan").
inline bool hasGanModel(const Project& project) {
  const ComponentType* model = ComponentRegistry::global().find("model", project.model.type);
  if (!model) return false;
  auto it = model->traits.find("trainer");
  return it != model->traits.end() && it->second == "gan";
}

/// The CUDA device indices a gpu_tracker watches: every CUDA device key of the strategy; for a
/// rank of a distributed run (`localRank` >= 0, strategy "distributed"), the rank's own device,
/// cuda:<LOCAL_RANK>, as DistributedTrainer places it (issue 25: every rank watched cuda:0).
std::vector<int> trackedCudaDevices(const ComponentSpec& trainer, int localRank);

void registerBuiltinModels(ComponentRegistry& registry);
void registerBuiltinData(ComponentRegistry& registry);
void registerBuiltinTableData(ComponentRegistry& registry);
/// "image_folder" (BuiltinImageData.cpp).
void registerBuiltinImageData(ComponentRegistry& registry);
void registerBuiltinOptimizers(ComponentRegistry& registry);
void registerBuiltinCallbacks(ComponentRegistry& registry);
void registerBuiltinMonitors(ComponentRegistry& registry);
void registerBuiltinStrategies(ComponentRegistry& registry);

}  // namespace tbench
