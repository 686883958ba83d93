#include "engine/project/registry/ComponentFactories.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

namespace {

template <typename Factory>
void registerWith(ComponentRegistry& registry, const char* kind, ComponentType type,
                  Factory factory) {
  type.kind = kind;
  type.factory = std::move(factory);
  registry.add(std::move(type));
}

template <typename Factory>
const Factory& factoryOf(const char* kind, const std::string& name) {
  const ComponentType& type = ComponentRegistry::global().get(kind, name);
  const Factory* factory = std::any_cast<Factory>(&type.factory);
  TB_CHECK(factory != nullptr, kind, " type \"", name, "\" (", type.origin,
           ") was registered with a factory of another signature");
  return *factory;
}

}  // namespace

void registerModel(ComponentRegistry& registry, ComponentType type, ModelMaker factory) {
  registerWith(registry, "model", std::move(type), std::move(factory));
}
void registerDataSource(ComponentRegistry& registry, ComponentType type, DataSourceMaker factory) {
  if (!factory.open)
    throw InputError(str("cannot register data type \"", type.name, "\": no open"));
  registerWith(registry, "data", std::move(type), std::move(factory));
}
void registerOptimizer(ComponentRegistry& registry, ComponentType type, OptimizerMaker factory) {
  registerWith(registry, "optimizer", std::move(type), std::move(factory));
}
void registerCallback(ComponentRegistry& registry, ComponentType type, CallbackMaker factory) {
  registerWith(registry, "callback", std::move(type), std::move(factory));
}
void registerMonitor(ComponentRegistry& registry, ComponentType type, MonitorMaker factory) {
  registerWith(registry, "monitor", std::move(type), std::move(factory));
}
void registerStrategy(ComponentRegistry& registry, ComponentType type, StrategyMaker factory) {
  if (!factory.trainer || !factory.input) {
    throw InputError(str("cannot register strategy \"", type.name, "\": no trainer or input"));
  }
  registerWith(registry, "strategy", std::move(type), std::move(factory));
}

const ModelMaker& modelMaker(const std::string& type) {
  return factoryOf<ModelMaker>("model", type);
}
const DataSourceMaker& dataSourceMaker(const std::string& type) {
  return factoryOf<DataSourceMaker>("data", type);
}
const OptimizerMaker& optimizerMaker(const std::string& type) {
  return factoryOf<OptimizerMaker>("optimizer", type);
}
const CallbackMaker& callbackMaker(const std::string& type) {
  return factoryOf<CallbackMaker>("callback", type);
}
const MonitorMaker& monitorMaker(const std::string& type) {
  return factoryOf<MonitorMaker>("monitor", type);
}
const StrategyMaker& strategyMaker(const std::string& type) {
  return factoryOf<StrategyMaker>("strategy", type);
}

std::vector<int64_t> classCountsOf(const torch::Tensor& labels, int64_t numClasses) {
  if (!labels.defined() || labels.numel() == 0 || numClasses <= 0) return {};
  const torch::Tensor counts =
      torch::bincount(labels.flatten().to(torch::kInt64), {}, numClasses).contiguous();
  return std::vector<int64_t>(counts.data_ptr<int64_t>(),
                              counts.data_ptr<int64_t>() + counts.numel());
}

}  // namespace tbench
