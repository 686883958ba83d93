#include "engine/train/TowerTrainer.h"

#include "engine/core/Check.h"

namespace tbench {

TowerTrainer::TowerTrainer(std::vector<Device> devices) : devices_(std::move(devices)) {
  TB_CHECK(!devices_.empty(), "a tower trainer needs at least one device");
}

void TowerTrainer::attach(InputSourcePtr input, ModelDescPtr model) {
  TB_CHECK(input != nullptr && model != nullptr, "setupGraph needs an input and a model");
  input_ = std::move(input);
  model_ = std::move(model);
  for (auto& cb : input_->callbacks()) registerCallback(std::move(cb));
}

void TowerTrainer::putSummaries(TowerContext& tower) {
  for (auto& [name, value] : tower.takeSummaries()) {
    monitors().putScalar(name, value.item<double>());
  }
}

}  // namespace tbench
