#include "engine/train/SingleCostTrainer.h"

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

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
  // The step being run is globalStep() + 1; an epoch's last one is always reported, so that
  // stats.json and the log's epoch summary have this epoch's norm.
  const bool due = processing.reportEvery_ <= 1 || processing.clipGlobalNorm_ > 0 ||
                   (globalStep() + 1) % processing.reportEvery_ == 0 ||
                   localStep() + 1 >= stepsPerEpoch();
  if (!report || !due) processing.reportNorm(false);  // no norm unless clipping needs it
  if (!processing.active()) return;
  const torch::Tensor norm = tbench::processGradients(params, processing);
  if (processing.reportNorm_ && norm.defined()) putStepScalar("grad_norm", norm);
}

void SingleCostTrainer::setPrecision(Precision precision, GradScalerOptions scaler) {
  TB_CHECK(!isGraphSetUp(), "setPrecision after setupGraph");
  if (precision == Precision::Fp16Mixed) {
    for (const Device& device : devices()) {
      if (!device.isCuda()) {
        throw InputError(str("precision \"16-mixed\" needs CUDA towers, but trainer.devices has \"",
                             device.toString(),
                             "\" (CPU autocast has no float16); use \"bf16-mixed\" on a CPU"));
      }
    }
    enableLossScaling(scaler);
  }
  if (precision == Precision::Bf16Mixed && !cpuHasNativeBf16()) {
    for (const Device& device : devices()) {
      if (device.isCuda()) continue;
      TB_LOG(Warning) << "precision bf16-mixed: this processor has no native bfloat16 "
                         "(avx512_bf16 or amx_bf16), so the CPU emulates it; expect it to be "
                         "slower than \"32\"";
      break;
    }
  }
  precision_ = precision;
  if (precision != Precision::Full32) TB_LOG(Info) << "precision " << precisionName(precision);
}

void SingleCostTrainer::enableLossScaling(GradScalerOptions options) {
  TB_CHECK(!isGraphSetUp(), "enableLossScaling after setupGraph");
  scaler_ = std::make_unique<GradScaler>(options);
}

std::map<std::string, torch::Tensor> SingleCostTrainer::extraState() {
  if (!scaler_) return {};
  return scaler_->state();
}

void SingleCostTrainer::restoreExtraState(const std::map<std::string, torch::Tensor>& state) {
  if (scaler_ && !scaler_->restore(state)) {
    TB_LOG(Info) << "the checkpoint has no gradient scaler (taken at another precision); "
                    "16-mixed starts with scale "
                 << scaler_->currentScale();
  }
}

torch::Tensor SingleCostTrainer::towerCost(TowerContext& tower, torch::nn::Module& module,
                                           const Batch& batch) {
  torch::Tensor cost;
  {
    AutocastScope autocast(precision_,
                           tower.device().isCuda() ? c10::DeviceType::CUDA : c10::DeviceType::CPU);
    cost = model().cost(tower, module, batch);
  }
  TB_CHECK(cost.numel() == 1, "cost() must return a scalar, got shape ", cost.sizes(), " on ",
           tower.name());
  return cost.scalar_type() == torch::kFloat ? cost : cost.to(torch::kFloat);
}

void SingleCostTrainer::backward(const torch::Tensor& cost) {
  if (scaler_) {
    scaler_->scale(cost).backward();
  } else {
    cost.backward();
  }
}

bool SingleCostTrainer::prepareUpdate(const std::vector<torch::Tensor>& params, bool report) {
  if (scaler_ && !scaler_->unscale(params)) return false;
  processGradients(params, report);
  return true;
}

void SingleCostTrainer::finishUpdate() {
  if (!scaler_) return;
  const bool skipped = scaler_->update();
  if (skipped) {
    TB_LOG(Debug) << "16-mixed: gradients overflowed, step skipped; scale now "
                  << scaler_->currentScale();
  }
  putStepScalar("grad_scale", scaler_->currentScale());
  putStepScalar("skipped_steps", static_cast<double>(scaler_->skippedSteps()));
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
