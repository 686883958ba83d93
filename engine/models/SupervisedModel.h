#pragma once
// SupervisedModel: the ModelDesc of the built-in networks. Inputs "image" (float32
// [-1, C, H, W]) and, by the loss (Loss.h), "label" (int64 [-1]) for classification or "target"
// (float32 [-1, T]) for regression. The network (a ClassifierNet) maps inputs to K logits or T
// predictions.

#include <functional>

#include "engine/models/ClassifierNet.h"
#include "engine/models/Loss.h"
#include "engine/train/ModelDesc.h"

namespace tbench {

class SupervisedModel : public ModelDesc {
 public:
  using NetFactory = std::function<std::shared_ptr<ClassifierNet>()>;
  using OptimizerFactory =
      std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)>;

  /// `loss` is CrossEntropy or MeanSquaredError (over `targets` targets).
  SupervisedModel(ImageShape image, NetFactory net, OptimizerFactory optimizer,
                  Loss loss = Loss::CrossEntropy, int64_t targets = 1);

  std::vector<InputSpec> inputs() const override;
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) override;
  torch::Tensor cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) override;
  std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) override;
  /// lossOutputs (Loss.h): {"cost", "wrong", "prediction", "label", "logits"} for
  /// classification, {"cost"} for regression.
  std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower, torch::nn::Module& net,
                                                        const Batch& batch) override;
  std::vector<std::string> inferenceOutputNames() const override { return lossOutputNames(loss_); }

  Loss loss() const { return loss_; }

  /// Outputs of `net` (a replica built by buildTower) for `images`.
  static torch::Tensor logits(torch::nn::Module& net, const torch::Tensor& images);

 private:
  ImageShape image_;
  NetFactory net_;
  OptimizerFactory optimizer_;
  Loss loss_;
  int64_t targets_;
};

}  // namespace tbench
