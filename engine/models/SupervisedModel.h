#pragma once
// SupervisedModel: the ModelDesc (a LossModel) of the built-in networks. Inputs "image" (float32
// [-1, C, H, W]) and, by the loss (Loss.h), "label" (int64 [-1]) for classification or "target"
// (float32 [-1, T]) for regression. The network (a ClassifierNet) maps inputs to K logits or T
// predictions.

#include "engine/models/ClassifierNet.h"
#include "engine/models/LossModel.h"

namespace tbench {

class SupervisedModel : public LossModel {
 public:
  using NetFactory = std::function<std::shared_ptr<ClassifierNet>()>;

  /// `loss` is CrossEntropy or MeanSquaredError (over `targets` targets).
  SupervisedModel(ImageShape image, NetFactory net, OptimizerFactory optimizer,
                  Loss loss = Loss::CrossEntropy, int64_t targets = 1);

  std::vector<InputSpec> inputs() const override;
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) override;

  /// Outputs of `net` (a replica built by buildTower) for `images`.
  static torch::Tensor logits(torch::nn::Module& net, const torch::Tensor& images);

 private:
  torch::Tensor predict(torch::nn::Module& net, const Batch& batch) override;

  ImageShape image_;
  NetFactory net_;
  int64_t targets_;
};

}  // namespace tbench
