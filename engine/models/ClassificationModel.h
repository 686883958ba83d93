#pragma once
// ClassificationModel: the ModelDesc of an image classifier. Inputs "image" (float32
// [-1, C, H, W]) and "label" (int64 [-1]); the cost is the mean cross-entropy; every step also
// reports "train_error" (the fraction of the batch misclassified). For validation it outputs
// "cost" and "wrong" (per sample), which ScalarStats and ClassificationError consume.

#include <functional>

#include "engine/models/ClassifierNet.h"
#include "engine/train/ModelDesc.h"

namespace tbench {

class ClassificationModel : public ModelDesc {
 public:
  using NetFactory = std::function<std::shared_ptr<ClassifierNet>()>;
  using OptimizerFactory =
      std::function<std::unique_ptr<torch::optim::Optimizer>(std::vector<torch::Tensor>)>;

  ClassificationModel(ImageShape image, NetFactory net, OptimizerFactory optimizer);

  std::vector<InputSpec> inputs() const override;
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) override;
  torch::Tensor cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) override;
  std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) override;
  /// {"cost": mean cross-entropy, "wrong": float [N], 1 where the top-1 class is wrong}.
  std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower, torch::nn::Module& net,
                                                        const Batch& batch) override;
  std::vector<std::string> inferenceOutputNames() const override { return {"cost", "wrong"}; }

  /// Logits of `net` (a replica built by buildTower) for `images`.
  static torch::Tensor logits(torch::nn::Module& net, const torch::Tensor& images);
  /// The fraction of rows of `logits` [N, K] whose first largest entry is not at `labels` [N]
  /// (argmax semantics: ties go to the lower class, NaN counts as largest), as a 0-dim float
  /// tensor without gradient.
  static torch::Tensor topOneError(const torch::Tensor& logits, const torch::Tensor& labels);

 private:
  ImageShape image_;
  NetFactory net_;
  OptimizerFactory optimizer_;
};

}  // namespace tbench
