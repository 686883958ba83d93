#pragma once
// SingleCostTrainer: a tower trainer that minimises one cost (tensorpack's
// SingleCostTrainer). setupGraph() sets up the input, builds the towers and optimizers through
// buildTowers() (the strategy), and registers the "learning_rate" hyper-parameter.
//
// Every step reports the main tower's cost as the scalar "cost", its summaries, and the global
// gradient norm "grad_norm" (GradientProcessing.h; every strategy processes the gradients its
// update uses, between backward and the optimizer's step).

#include "engine/train/GradientProcessing.h"
#include "engine/train/TowerTrainer.h"

namespace tbench {

class SingleCostTrainer : public TowerTrainer {
 public:
  /// Once, before train(). `input` is set up with model->inputs(). `model` must be a
  /// ModelDesc (InputError otherwise).
  void setupGraph(InputSourcePtr input, ModelDescBasePtr model) override;
  /// Every optimizer of the strategy (one per replica for SyncReplicatedTrainer), in tower
  /// order. Resuming restores the checkpoint's optimizer state into each.
  virtual std::vector<torch::optim::Optimizer*> optimizers() = 0;
  /// One role, "": the checkpoint's "optimizer".
  std::vector<OptimizerSlot> optimizerSlots() override { return {{"", optimizers()}}; }
  ModelDesc& model() const { return *model_; }
  /// Clipping and the grad_norm report; before train().
  void setGradientProcessing(GradientProcessing processing) { gradients_ = processing; }
  const GradientProcessing& gradientProcessing() const { return gradients_; }

 protected:
  using TowerTrainer::TowerTrainer;
  /// Builds the replicas and optimizers of the strategy.
  virtual void buildTowers() = 0;
  /// Applies the gradient processing to `params`' gradients; when `report`, puts "grad_norm"
  /// as a scalar of the step. Called on the engine thread, or on tower workers while the
  /// engine thread waits for them; at most one caller per step passes `report`.
  void processGradients(const std::vector<torch::Tensor>& params, bool report);

 private:
  ModelDescPtr model_;
  GradientProcessing gradients_;
};

/// Reads the learning rate of the first parameter group, sets it on every group.
std::shared_ptr<HyperParam> learningRateOf(std::vector<torch::optim::Optimizer*> optimizers);

}  // namespace tbench
