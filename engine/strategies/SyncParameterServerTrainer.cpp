#include "engine/strategies/SyncParameterServerTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

SyncParameterServerTrainer::SyncParameterServerTrainer(std::vector<Device> devices, Device psDevice)
    : MultiTowerTrainer(std::move(devices)), psDevice_(psDevice) {}

void SyncParameterServerTrainer::buildTowers() {
  buildReplicas();
  master_ = makeTower(TowerContext(0, psDevice_, /*isTraining=*/true));
  copyState(*master_, replica(0));
  optimizer_ = makeOptimizer(*master_);
}

void SyncParameterServerTrainer::runStep() {
  const std::vector<Batch> batches = takeBatches();
  for (int t = 0; t < numTowers(); ++t) copyState(replica(t), *master_);
  computeGradients(batches);
  copyBuffers(*master_, replica(0));  // Note [Buffers follow tower 0]

  torch::NoGradGuard noGrad;
  const auto masterParams = master_->parameters();
  std::vector<std::vector<torch::Tensor>> towerParams;
  for (int t = 0; t < numTowers(); ++t) towerParams.push_back(replica(t).parameters());
  const double scale = 1.0 / static_cast<double>(numTowers());
  for (size_t i = 0; i < masterParams.size(); ++i) {
    // Note [Unused parameters]: a parameter no tower has a gradient for gets none on the master
    // either (a zero gradient would let weight decay move it, where one tower leaves it).
    torch::Tensor& grad = masterParams[i].mutable_grad();
    bool used = false;
    for (int t = 0; t < numTowers(); ++t) {
      const torch::Tensor& g = towerParams[static_cast<size_t>(t)][i].grad();
      if (!g.defined()) continue;
      if (!used) {
        if (!grad.defined()) grad = torch::zeros_like(masterParams[i]);
        grad.zero_();
        used = true;
      }
      grad.add_(g.to(grad.device()));
    }
    if (used) {
      grad.mul_(scale);
    } else {
      grad = torch::Tensor();
    }
  }
  if (prepareUpdate(masterParams, /*report=*/true)) optimizer_->step();
  finishUpdate();
}

}  // namespace tbench
