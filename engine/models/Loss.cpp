#include "engine/models/Loss.h"

#include <torch/torch.h>

#include <cmath>

#include "engine/core/Check.h"

namespace tbench {

const char* lossName(Loss loss) {
  switch (loss) {
    case Loss::CrossEntropy:
      return "cross_entropy";
    case Loss::MeanSquaredError:
      return "mse";
    case Loss::Scalar:
      return "scalar";
  }
  return "?";
}

Loss parseLoss(const std::string& name) {
  for (Loss loss : {Loss::CrossEntropy, Loss::MeanSquaredError, Loss::Scalar}) {
    if (name == lossName(loss)) return loss;
  }
  throw InputError(str("unknown cost \"", name, "\" (cross_entropy, mse or scalar)"));
}

InputSpec targetSpec(Loss loss, int64_t targets) {
  if (loss == Loss::MeanSquaredError) return {"target", torch::kFloat32, {-1, targets}};
  return {"label", torch::kInt64, {-1}};
}

namespace {

/// `outputs` [N] or [N, T] against `target` [N, T], with the shapes named when they differ.
torch::Tensor meanSquaredError(const torch::Tensor& outputs, const torch::Tensor& target) {
  torch::Tensor out = outputs.dim() == 1 ? outputs.unsqueeze(1) : outputs;
  TB_CHECK(out.sizes() == target.sizes(), "the model outputs ", outputs.sizes(),
           " but the targets are ", target.sizes());
  return torch::mse_loss(out, target);
}

}  // namespace

torch::Tensor lossOf(Loss loss, TowerContext& tower, const torch::Tensor& outputs,
                     const torch::Tensor& target) {
  switch (loss) {
    case Loss::CrossEntropy:
      if (tower.isMainTower()) tower.summary("train_error", topOneError(outputs, target));
      return torch::nn::functional::cross_entropy(outputs, target);
    case Loss::MeanSquaredError:
      return meanSquaredError(outputs, target);
    case Loss::Scalar:
      break;
  }
  throw CheckError("lossOf: a scalar cost is the model's own output");
}

std::map<std::string, torch::Tensor> lossOutputs(Loss loss, const torch::Tensor& outputs,
                                                 const torch::Tensor& target) {
  if (loss == Loss::MeanSquaredError) return {{"cost", meanSquaredError(outputs, target)}};
  TB_CHECK(loss == Loss::CrossEntropy, "lossOutputs: a scalar cost is the model's own output");
  const torch::Tensor prediction = outputs.argmax(1);
  return {{"cost", torch::nn::functional::cross_entropy(outputs, target)},
          {"wrong", (prediction != target).to(torch::kFloat32)},
          {"prediction", prediction},
          {"label", target},
          {"logits", outputs}};
}

std::vector<std::string> lossOutputNames(Loss loss) {
  if (loss == Loss::CrossEntropy) return {"cost", "wrong", "prediction", "label", "logits"};
  return {"cost"};
}

torch::Tensor topOneError(const torch::Tensor& logits, const torch::Tensor& labels) {
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

}  // namespace tbench
