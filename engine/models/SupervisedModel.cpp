#include "engine/models/SupervisedModel.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

SupervisedModel::SupervisedModel(ImageShape image, NetFactory net, OptimizerFactory optimizer,
                                 Loss loss, int64_t targets)
    : LossModel(loss, std::move(optimizer), "SupervisedModel"),
      image_(image),
      net_(std::move(net)),
      targets_(targets) {
  TB_CHECK(net_, "SupervisedModel needs a network");
  TB_CHECK(loss != Loss::Scalar, "a built-in network's cost is cross_entropy or mse");
  TB_CHECK(targets_ >= 1, "a regression needs 1 or more targets, got ", targets_);
}

std::vector<InputSpec> SupervisedModel::inputs() const {
  return {{"image", torch::kFloat32, {-1, image_.channels, image_.height, image_.width}},
          targetSpec(loss(), targets_)};
}

std::shared_ptr<torch::nn::Module> SupervisedModel::buildTower(const TowerContext& tower) {
  return net_();
}

torch::Tensor SupervisedModel::logits(torch::nn::Module& net, const torch::Tensor& images) {
  auto* classifier = dynamic_cast<ClassifierNet*>(&net);
  TB_CHECK(classifier != nullptr, "the replica is not a ClassifierNet");
  return classifier->forward(images);
}

torch::Tensor SupervisedModel::predict(torch::nn::Module& net, const Batch& batch) {
  return logits(net, batch.tensors()[0]);
}

}  // namespace tbench
