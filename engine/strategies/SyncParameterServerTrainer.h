#pragma once
// SyncParameterServerTrainer (tensorpack's SyncMultiGPUTrainerParameterServer): one master
// copy of the parameters on the parameter-server device; every step each replica is refreshed
// from it, the towers compute gradients concurrently, the gradients are averaged onto the
// master and one optimizer step updates it. Checkpoints are taken from the master.

#include "engine/strategies/MultiTowerTrainer.h"

namespace tbench {

class SyncParameterServerTrainer : public MultiTowerTrainer {
 public:
  /// `psDevice`: where the master and the optimizer live ("cpu" or one of `devices`).
  SyncParameterServerTrainer(std::vector<Device> devices, Device psDevice = Device{});
  torch::nn::Module& mainModule() override { return *master_; }
  std::vector<torch::optim::Optimizer*> optimizers() override { return {optimizer_.get()}; }

 protected:
  void buildTowers() override;
  void runStep() override;

 private:
  Device psDevice_;
  std::shared_ptr<torch::nn::Module> master_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

}  // namespace tbench
