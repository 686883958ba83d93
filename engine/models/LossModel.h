#pragma once
// LossModel: what the built-in networks (SupervisedModel) and TorchScript modules (ScriptModel)
// share as ModelDescs: a replica's predictions for the batch's first tensor, scored against its
// second by a Loss (Loss.h), its inference outputs by the same Loss, and an optimizer from a
// factory. A subclass says how a replica predicts; Loss::Scalar, where the replica computes the
// cost itself, is a subclass's choice (ScriptModel's).

#include <functional>

#include "engine/models/Loss.h"
#include "engine/train/ModelDesc.h"

namespace tbench {

class LossModel : public ModelDesc {
 public:
  using OptimizerFactory =
      std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)>;

  torch::Tensor cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) override;
  std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) override;
  /// lossOutputs (Loss.h): {"cost", "wrong", "prediction", "label", "logits"} for
  /// classification, {"cost"} for regression and Loss::Scalar.
  std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower, torch::nn::Module& net,
                                                        const Batch& batch) override;
  std::vector<std::string> inferenceOutputNames() const override { return lossOutputNames(loss_); }

  Loss loss() const { return loss_; }

 protected:
  /// Throws when `optimizer` is empty (`who` names the model in the message).
  LossModel(Loss loss, OptimizerFactory optimizer, const char* who);

  /// What replica `net` predicts for the batch's inputs: logits, or targets for a regression.
  virtual torch::Tensor predict(torch::nn::Module& net, const Batch& batch) = 0;
  /// The cost replica `net` computes itself from the inputs and labels (Loss::Scalar only).
  virtual torch::Tensor scalarCost(torch::nn::Module& net, const Batch& batch);

 private:
  Loss loss_;
  OptimizerFactory optimizer_;
};

}  // namespace tbench
