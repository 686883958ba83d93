#pragma once
// SingleCostTrainer: a tower trainer that minimises one cost (tensorpack's
// SingleCostTrainer). setupGraph() sets up the input, builds the towers and optimizers through
// buildTowers() (the strategy), and registers the "learning_rate" hyper-parameter.
//
// Every step reports the main tower's cost as the scalar "cost" and its summaries.

#include "engine/train/TowerTrainer.h"

namespace tbench {

class SingleCostTrainer : public TowerTrainer {
 public:
  /// Once, before train(). `input` is set up with model->inputs().
  void setupGraph(InputSourcePtr input, ModelDescPtr model);
  bool isGraphSetUp() const { return graphSetUp_; }
  /// Every optimizer of the strategy (one per replica for SyncReplicatedTrainer), in tower
  /// order. Resuming restores the checkpoint's optimizer state into each.
  virtual std::vector<torch::optim::Optimizer*> optimizers() = 0;

 protected:
  using TowerTrainer::TowerTrainer;
  /// Builds the replicas and optimizers of the strategy.
  virtual void buildTowers() = 0;

 private:
  bool graphSetUp_ = false;
};

/// Reads the learning rate of the first parameter group, sets it on every group.
std::shared_ptr<HyperParam> learningRateOf(std::vector<torch::optim::Optimizer*> optimizers);

}  // namespace tbench
