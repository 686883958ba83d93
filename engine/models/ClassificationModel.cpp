#include "engine/models/ClassificationModel.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

ClassificationModel::ClassificationModel(ImageShape image, NetFactory net,
                                         OptimizerFactory optimizer)
    : image_(image), net_(std::move(net)), optimizer_(std::move(optimizer)) {
  TB_CHECK(net_ && optimizer_, "ClassificationModel needs a network and an optimizer factory");
}

std::vector<InputSpec> ClassificationModel::inputs() const {
  return {{"image", torch::kFloat32, {-1, image_.channels, image_.height, image_.width}},
          {"label", torch::kInt64, {-1}}};
}

std::shared_ptr<torch::nn::Module> ClassificationModel::buildTower(const TowerContext& tower) {
  return net_();
}

torch::Tensor ClassificationModel::logits(torch::nn::Module& net, const torch::Tensor& images) {
  auto* classifier = dynamic_cast<ClassifierNet*>(&net);
  TB_CHECK(classifier != nullptr, "the replica is not a ClassifierNet");
  return classifier->forward(images);
}

torch::Tensor ClassificationModel::cost(TowerContext& tower, torch::nn::Module& net,
                                        const Batch& batch) {
  const torch::Tensor& labels = batch["label"];
  torch::Tensor out = logits(net, batch["image"]);
  if (tower.isMainTower()) {
    tower.summary("train_error", (out.argmax(1) != labels).to(torch::kFloat32).mean().detach());
  }
  return torch::nn::functional::cross_entropy(out, labels);
}

std::map<std::string, torch::Tensor> ClassificationModel::inferenceOutputs(
    TowerContext& tower, torch::nn::Module& net, const Batch& batch) {
  const torch::Tensor& labels = batch["label"];
  torch::Tensor out = logits(net, batch["image"]);
  return {{"cost", torch::nn::functional::cross_entropy(out, labels)},
          {"wrong", (out.argmax(1) != labels).to(torch::kFloat32)}};
}

std::unique_ptr<torch::optim::Optimizer> ClassificationModel::optimizer(
    std::vector<torch::Tensor> params) {
  return optimizer_(std::move(params));
}

}  // namespace tbench
