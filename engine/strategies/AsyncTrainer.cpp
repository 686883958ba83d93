#include "engine/strategies/AsyncTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

AsyncTrainer::AsyncTrainer(std::vector<Device> devices, Device masterDevice)
    : MultiTowerTrainer(std::move(devices)), masterDevice_(masterDevice) {}

void AsyncTrainer::buildTowers() {
  buildReplicas();
  master_ = makeTower(TowerContext(0, masterDevice_, /*isTraining=*/true));
  copyState(*master_, replica(0));
  optimizer_ = makeOptimizer(*master_);
}

void AsyncTrainer::runStep() {
  const std::vector<Batch> batches = takeBatches();
  const double scale = 1.0 / static_cast<double>(numTowers());
  std::vector<torch::Tensor> costs(static_cast<size_t>(numTowers()));
  workers().run([&](int t) {
    auto& module = replica(t);
    {
      std::lock_guard<std::mutex> lock(masterMutex_);
      copyState(module, *master_);
    }
    costs[static_cast<size_t>(t)] = forwardBackward(t, batches);
    torch::NoGradGuard noGrad;
    std::lock_guard<std::mutex> lock(masterMutex_);
    if (t == 0) copyBuffers(*master_, module);  // Note [Buffers follow tower 0]
    const auto masterParams = master_->parameters();
    const auto params = module.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      // Note [Unused parameters]: no gradient from this tower, none on the master for its
      // update (a zero one would let weight decay move a parameter the model never uses).
      torch::Tensor& grad = masterParams[i].mutable_grad();
      if (params[i].grad().defined()) {
        if (!grad.defined()) grad = torch::zeros_like(masterParams[i]);
        grad.copy_(params[i].grad().to(grad.device())).mul_(scale);
      } else {
        grad = torch::Tensor();
      }
    }
    if (prepareUpdate(masterParams, /*report=*/t == 0)) optimizer_->step();
    ++updates_;
  });
  finishUpdate();
  report(costs);
}

}  // namespace tbench
