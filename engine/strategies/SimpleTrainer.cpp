#include "engine/strategies/SimpleTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

SimpleTrainer::SimpleTrainer(Device device) : SingleCostTrainer({device}) {}

void SimpleTrainer::buildTowers() { buildTower(devices().front()); }

void SimpleTrainer::buildTower(const Device& device) {
  torchDevice_ = toTorch(device);
  tower_ = std::make_unique<TowerContext>(0, device, /*isTraining=*/true);
  module_ = makeTower(*tower_);
  optimizer_ = makeOptimizer(*module_);
}

void SimpleTrainer::runStep() {
  const std::vector<Batch> batches =
      takeBatches(std::vector<torch::Device>(static_cast<size_t>(accumulation()), torchDevice_));
  enterTrainMode(*module_);
  optimizer_->zero_grad();
  const torch::Tensor cost = forwardBackward(*tower_, *module_, batches, 0, 1);
  if (prepareUpdate(module_->parameters(), /*report=*/true)) optimizer_->step();
  finishUpdate();
  putStepScalar("cost", cost);
  putSummaries(*tower_);
}

}  // namespace tbench
