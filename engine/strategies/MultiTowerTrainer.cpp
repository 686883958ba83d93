#include "engine/strategies/MultiTowerTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

void copyState(torch::nn::Module& target, torch::nn::Module& source) {
  torch::NoGradGuard noGrad;
  auto params = source.named_parameters();
  for (auto& item : target.named_parameters()) item.value().copy_(params[item.key()]);
  copyBuffers(target, source);
}

void copyBuffers(torch::nn::Module& target, torch::nn::Module& source) {
  torch::NoGradGuard noGrad;
  auto buffers = source.named_buffers();
  for (auto& item : target.named_buffers()) item.value().copy_(buffers[item.key()]);
}

MultiTowerTrainer::MultiTowerTrainer(std::vector<Device> devices)
    : SingleCostTrainer(std::move(devices)) {}

void MultiTowerTrainer::buildReplicas() {
  for (int t = 0; t < numTowers(); ++t) {
    const Device& device = devices()[static_cast<size_t>(t)];
    towers_.push_back(std::make_unique<TowerContext>(t, device, /*isTraining=*/true));
    replicas_.push_back(makeTower(*towers_.back()));
    torchDevices_.push_back(toTorch(device));
  }
  // Note [Tower replication]: replicas start equal (tower 0's initial weights), whatever the
  // initialisation of the others drew.
  for (int t = 1; t < numTowers(); ++t)
    copyState(*replicas_[static_cast<size_t>(t)], *replicas_[0]);
  workers_ = std::make_unique<TowerWorkers>(devices());
}

std::vector<Batch> MultiTowerTrainer::takeBatches() {
  if (accumulation() == 1) return TowerTrainer::takeBatches(torchDevices_);
  std::vector<torch::Device> devices;
  for (int64_t i = 0; i < accumulation(); ++i) {
    devices.insert(devices.end(), torchDevices_.begin(), torchDevices_.end());
  }
  return TowerTrainer::takeBatches(devices);
}

torch::Tensor MultiTowerTrainer::forwardBackward(int t, const std::vector<Batch>& batches) {
  auto& module = *replicas_[static_cast<size_t>(t)];
  enterTrainMode(module);
  for (auto& p : module.parameters()) {
    if (p.grad().defined()) p.grad().zero_();
  }
  return SingleCostTrainer::forwardBackward(*towers_[static_cast<size_t>(t)], module, batches,
                                            static_cast<size_t>(t), towers_.size());
}

void MultiTowerTrainer::computeGradients(const std::vector<Batch>& batches) {
  std::vector<torch::Tensor> costs(towers_.size());
  workers_->run([&](int t) { costs[static_cast<size_t>(t)] = forwardBackward(t, batches); });
  report(costs);
}

void MultiTowerTrainer::report(const std::vector<torch::Tensor>& costs) {
  // The mean of the towers' costs, on tower 0's device, read later (Note [Step scalars read in
  // batches]).
  const torch::Device device = costs.front().device();
  std::vector<torch::Tensor> onOne;
  onOne.reserve(costs.size());
  for (const auto& c : costs) onOne.push_back(c.to(device).reshape({}));
  putStepScalar("cost", costs.size() == 1 ? onOne.front() : torch::stack(onOne).mean());
  putSummaries(*towers_[0]);
  for (size_t t = 1; t < towers_.size(); ++t) towers_[t]->takeSummaries();  // tower 0 reports
}

}  // namespace tbench
