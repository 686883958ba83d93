#include "engine/models/LossModel.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

LossModel::LossModel(Loss loss, OptimizerFactory optimizer, const char* who)
    : loss_(loss), optimizer_(std::move(optimizer)) {
  TB_CHECK(optimizer_, who, " needs an optimizer factory");
}

torch::Tensor LossModel::cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) {
  if (loss_ == Loss::Scalar) return scalarCost(net, batch);
  return lossOf(loss_, tower, predict(net, batch), batch.tensors()[1]);
}

std::map<std::string, torch::Tensor> LossModel::inferenceOutputs(TowerContext& tower,
                                                                 torch::nn::Module& net,
                                                                 const Batch& batch) {
  if (loss_ == Loss::Scalar) return {{"cost", scalarCost(net, batch)}};
  return lossOutputs(loss_, predict(net, batch), batch.tensors()[1]);
}

std::unique_ptr<torch::optim::Optimizer> LossModel::optimizer(std::vector<torch::Tensor> params) {
  return optimizer_(std::move(params));
}

torch::Tensor LossModel::scalarCost(torch::nn::Module&, const Batch&) {
  TB_CHECK(false, "this model does not compute its own cost (loss \"", lossName(loss_), "\")");
  return {};
}

}  // namespace tbench
