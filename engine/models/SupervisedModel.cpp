#include "engine/models/SupervisedModel.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

SupervisedModel::SupervisedModel(ImageShape image, NetFactory net, OptimizerFactory optimizer,
                                 Loss loss, int64_t targets)
    : image_(image),
      net_(std::move(net)),
      optimizer_(std::move(optimizer)),
      loss_(loss),
      targets_(targets) {
  TB_CHECK(net_ && optimizer_, "SupervisedModel needs a network and an optimizer factory");
  TB_CHECK(loss_ != Loss::Scalar, "a built-in network's cost is cross_entropy or mse");
  TB_CHECK(targets_ >= 1, "a regression needs 1 or more targets, got ", targets_);
}

std::vector<InputSpec> SupervisedModel::inputs() const {
  return {{"image", torch::kFloat32, {-1, image_.channels, image_.height, image_.width}},
          targetSpec(loss_, targets_)};
}

std::shared_ptr<torch::nn::Module> SupervisedModel::buildTower(const TowerContext& tower) {
  return net_();
}

torch::Tensor SupervisedModel::logits(torch::nn::Module& net, const torch::Tensor& images) {
  auto* classifier = dynamic_cast<ClassifierNet*>(&net);
  TB_CHECK(classifier != nullptr, "the replica is not a ClassifierNet");
  return classifier->forward(images);
}

torch::Tensor SupervisedModel::cost(TowerContext& tower, torch::nn::Module& net,
                                    const Batch& batch) {
  return lossOf(loss_, tower, logits(net, batch.tensors()[0]), batch.tensors()[1]);
}

std::map<std::string, torch::Tensor> SupervisedModel::inferenceOutputs(TowerContext& tower,
                                                                       torch::nn::Module& net,
                                                                       const Batch& batch) {
  return lossOutputs(loss_, logits(net, batch.tensors()[0]), batch.tensors()[1]);
}

std::unique_ptr<torch::optim::Optimizer> SupervisedModel::optimizer(
    std::vector<torch::Tensor> params) {
  return optimizer_(std::move(params));
}

}  // namespace tbench
