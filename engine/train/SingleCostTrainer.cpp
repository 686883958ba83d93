#include "engine/train/SingleCostTrainer.h"

#include "engine/core/Check.h"

namespace tbench {

std::shared_ptr<HyperParam> learningRateOf(std::vector<torch::optim::Optimizer*> optimizers) {
  TB_CHECK(!optimizers.empty() && !optimizers.front()->param_groups().empty(),
           "no optimizer parameter group to schedule");
  return std::make_shared<FunctionHyperParam>(
      "learning_rate",
      [optimizers] { return optimizers.front()->param_groups().front().options().get_lr(); },
      [optimizers](double lr) {
        for (auto* opt : optimizers) {
          for (auto& group : opt->param_groups()) group.options().set_lr(lr);
        }
      });
}

void SingleCostTrainer::processGradients(const std::vector<torch::Tensor>& params, bool report) {
  GradientProcessing processing = gradients_;
  if (!report) processing.reportNorm(false);  // no norm to compute unless clipping needs it
  if (!processing.active()) return;
  const double norm = tbench::processGradients(params, processing);
  if (processing.reportNorm_) putStepScalar("grad_norm", norm);
}

void SingleCostTrainer::setupGraph(InputSourcePtr input, ModelDescBasePtr model) {
  TB_CHECK(input != nullptr && model != nullptr, "setupGraph needs an input and a model");
  model_ = std::dynamic_pointer_cast<ModelDesc>(model);
  if (!model_) {
    throw InputError(
        "this strategy trains a single-cost model (a ModelDesc with cost() and optimizer()); "
        "the model has other costs and needs its own trainer");
  }
  input->setup(model->inputs());
  attach(std::move(input), std::move(model));
  buildTowers();
  registerHyperParam(learningRateOf(optimizers()));
}

}  // namespace tbench
