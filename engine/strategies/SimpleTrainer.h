#pragma once
// SimpleTrainer: one tower on one device; each step takes a batch, computes the cost,
// back-propagates and applies the optimizer (tensorpack's SimpleTrainer). With a QueueInput
// this is the "queue_input" strategy.

#include "engine/train/SingleCostTrainer.h"

namespace tbench {

class SimpleTrainer : public SingleCostTrainer {
 public:
  explicit SimpleTrainer(Device device = Device{});
  torch::nn::Module& mainModule() override { return *module_; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  std::vector<torch::optim::Optimizer*> optimizers() override { return {optimizer_.get()}; }

 protected:
  /// The first device's tower (buildTower).
  void buildTowers() override;
  /// One step on the one tower: the batches, forward and backward (accumulated), the update,
  /// the step's cost and summaries. DistributedTrainer's step without a group.
  void runStep() override;
  /// The tower, its replica and its optimizer on `device` (DistributedTrainer picks a rank's).
  void buildTower(const Device& device);
  TowerContext& tower() { return *tower_; }
  torch::nn::Module& module() { return *module_; }
  torch::Device torchDevice() const { return torchDevice_; }

 private:
  std::unique_ptr<TowerContext> tower_;
  std::shared_ptr<torch::nn::Module> module_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  torch::Device torchDevice_{torch::kCPU};
};

}  // namespace tbench
