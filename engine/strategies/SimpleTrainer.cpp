#include "engine/strategies/SimpleTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

SimpleTrainer::SimpleTrainer(Device device) : SingleCostTrainer({device}) {}

void SimpleTrainer::buildTowers() {
  const Device& device = devices().front();
  torchDevice_ = toTorch(device);
  tower_ = std::make_unique<TowerContext>(0, device, /*isTraining=*/true);
  module_ = makeTower(*tower_);
  optimizer_ = model().optimizer(module_->parameters());
  TB_CHECK(optimizer_ != nullptr, "optimizer() returned no optimizer");
}

void SimpleTrainer::runStep() {
  const Batch batch = std::move(takeBatches({torchDevice_}).front());
  module_->train();
  optimizer_->zero_grad();
  torch::Tensor cost = towerCost(*tower_, *module_, batch);
  backward(cost);
  if (prepareUpdate(module_->parameters(), /*report=*/true)) optimizer_->step();
  finishUpdate();
  putStepScalar("cost", cost);
  putSummaries(*tower_);
}

}  // namespace tbench
