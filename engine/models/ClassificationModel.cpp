#include "engine/models/ClassificationModel.h"

#include <torch/torch.h>

#include <cmath>

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

torch::Tensor ClassificationModel::topOneError(const torch::Tensor& logits,
                                               const torch::Tensor& labels) {
  const bool plainCpu =
      logits.device().is_cpu() && labels.device().is_cpu() && logits.layout() == torch::kStrided &&
      !logits.is_neg() && logits.scalar_type() == torch::kFloat32 &&
      labels.scalar_type() == torch::kInt64 && logits.dim() == 2 && labels.dim() == 1 &&
      logits.size(0) == labels.size(0) && logits.size(0) > 0 && logits.size(1) > 0;
  if (!plainCpu) return (logits.argmax(1) != labels).to(torch::kFloat32).mean().detach();
  // Every training step reports this: one pass over the CPU logits costs under a microsecond,
  // where argmax, !=, to and mean are four dispatches and allocations (about 2.5% of an MLP
  // step on these machines, measured with bench_train_throughput).
  const torch::Tensor values = logits.detach().contiguous();
  const torch::Tensor targets = labels.contiguous();
  const float* row = values.data_ptr<float>();
  const int64_t* label = targets.data_ptr<int64_t>();
  const int64_t rows = values.size(0);
  const int64_t classes = values.size(1);
  int64_t wrong = 0;
  for (int64_t r = 0; r < rows; ++r, row += classes) {
    int64_t best = 0;
    for (int64_t k = 1; k < classes && !std::isnan(row[best]); ++k) {
      if (row[k] > row[best] || std::isnan(row[k])) best = k;
    }
    wrong += best != label[r];
  }
  return torch::scalar_tensor(static_cast<double>(wrong) / static_cast<double>(rows),
                              torch::kFloat32);
}

torch::Tensor ClassificationModel::cost(TowerContext& tower, torch::nn::Module& net,
                                        const Batch& batch) {
  const torch::Tensor& labels = batch["label"];
  torch::Tensor out = logits(net, batch["image"]);
  if (tower.isMainTower()) {
    tower.summary("train_error", topOneError(out, labels));
  }
  return torch::nn::functional::cross_entropy(out, labels);
}

std::map<std::string, torch::Tensor> ClassificationModel::inferenceOutputs(TowerContext& tower,
                                                                           torch::nn::Module& net,
                                                                           const Batch& batch) {
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
