#pragma once
// SingleCostTrainer: a tower trainer that minimises one cost (tensorpack's
// SingleCostTrainer). setupGraph() sets up the input, builds the towers and optimizers through
// buildTowers() (the strategy), and registers the "learning_rate" hyper-parameter.
//
// Every step reports the main tower's cost as the scalar "cost", its summaries, and the global
// gradient norm "grad_norm" (GradientProcessing.h; every strategy processes the gradients its
// update uses, between backward and the optimizer's step).

#include <memory>

#include "engine/train/GradientProcessing.h"
#include "engine/train/MixedPrecision.h"
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
  /// "trainer.accumulate": each step runs forward and backward on `k` micro-batches per tower
  /// and makes one update with the mean of their gradients (gradient accumulation: a k-times
  /// larger batch in the memory of one). Before setupGraph(). InputError for k < 1.
  void setAccumulation(int64_t k);
  int64_t accumulation() const { return accumulate_; }
  /// numTowers() × accumulation().
  int64_t batchesPerStep() const override { return numTowers() * accumulate_; }
  /// Clipping and the grad_norm report; before train().
  void setGradientProcessing(GradientProcessing processing) { gradients_ = processing; }
  const GradientProcessing& gradientProcessing() const { return gradients_; }
  /// The project's "precision" (MixedPrecision.h); before setupGraph(). InputError for
  /// "16-mixed" with a tower that is not on CUDA (CPU autocast has no float16).
  void setPrecision(Precision precision, GradScalerOptions scaler = {});
  Precision precision() const { return precision_; }
  /// Loss scaling (GradScaler) without autocast, whatever the precision: for a model that
  /// computes in float16 itself. "16-mixed" turns it on. Before setupGraph().
  void enableLossScaling(GradScalerOptions options = {});
  /// The scaler when loss scaling is on, else null.
  const GradScaler* gradScaler() const { return scaler_.get(); }
  /// Under "16-mixed", the gradient scaler's state (GradScaler::state()); nothing otherwise.
  std::map<std::string, torch::Tensor> extraState() override;
  /// Restores the scaler; a checkpoint without one (taken at another precision) starts a new
  /// scaler, with a note in the log.
  void restoreExtraState(const std::map<std::string, torch::Tensor>& state) override;

 protected:
  using TowerTrainer::TowerTrainer;
  /// Builds the replicas and optimizers of the strategy.
  virtual void buildTowers() = 0;
  /// The model's optimizer over `module`'s trainable parameters, grouped by the param groups
  /// (ParamGroups.h); every strategy makes its optimizers with this.
  std::unique_ptr<torch::optim::Optimizer> makeOptimizer(torch::nn::Module& module);
  /// Applies the gradient processing to `params`' gradients; when `report`, puts "grad_norm"
  /// as a scalar of the step. Called on the engine thread, or on tower workers while the
  /// engine thread waits for them; at most one caller per step passes `report`.
  void processGradients(const std::vector<torch::Tensor>& params, bool report);

  // The step of every strategy, under the project's precision:
  //   cost = towerCost(...); backward(cost);            (per tower)
  //   if (prepareUpdate(params, report)) optimizer->step();   (per update)
  //   finishUpdate();                                   (once per step, on the engine thread)
  /// model().cost() under the precision's autocast for the tower's device, checked to be a
  /// scalar; float32 whatever precision the forward pass used.
  torch::Tensor towerCost(TowerContext& tower, torch::nn::Module& module, const Batch& batch);
  /// cost.backward(), through the gradient scaler under "16-mixed".
  void backward(const torch::Tensor& cost);
  /// One tower's part of a step under accumulation: for its micro-batches (`batches[first]`,
  /// `batches[first + stride]`, ..., accumulation() of them: a step's batches in tower order,
  /// micro-batch after micro-batch) towerCost and backward of cost / accumulation(), so that the
  /// gradients add up to their mean. The caller zeroes the gradients before. Returns the mean
  /// cost, detached. With accumulation() 1: towerCost and backward of one batch.
  torch::Tensor forwardBackward(TowerContext& tower, torch::nn::Module& module,
                                const std::vector<Batch>& batches, size_t first, size_t stride);
  /// Between backward (and any all-reduce) and an update of `params`: unscales their gradients
  /// ("16-mixed") and applies processGradients(params, report). False when a gradient
  /// overflowed: the caller skips this update. Thread-safe across towers.
  bool prepareUpdate(const std::vector<torch::Tensor>& params, bool report);
  /// Once per step after its updates: the scaler's bookkeeping; under "16-mixed" puts
  /// "grad_scale" and "skipped_steps" (overflowing steps so far) as scalars of the step.
  void finishUpdate();

 private:
  ModelDescPtr model_;
  GradientProcessing gradients_;
  Precision precision_ = Precision::Full32;
  std::unique_ptr<GradScaler> scaler_;
  std::vector<double> lrMultipliers_;  // per optimizer parameter group; empty: 1 for all
  int64_t accumulate_ = 1;
};

/// The "learning_rate" hyper-parameter: the base rate. Sets group g's rate to the value ×
/// `multipliers[g]` (1 where not given) on every optimizer; reads group 0's over its multiplier.
std::shared_ptr<HyperParam> learningRateOf(std::vector<torch::optim::Optimizer*> optimizers,
                                           std::vector<double> multipliers = {});

}  // namespace tbench
