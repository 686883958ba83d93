#include "engine/train/SingleCostTrainer.h"
#include "engine/core/Names.h"

#include <sstream>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

std::shared_ptr<HyperParam> learningRateOf(std::vector<torch::optim::Optimizer*> optimizers,
                                           std::vector<double> multipliers) {
  TB_CHECK(!optimizers.empty() && !optimizers.front()->param_groups().empty(),
           "no optimizer parameter group to schedule");
  auto multiplier = [multipliers](size_t g) {
    return g < multipliers.size() ? multipliers[g] : 1.0;
  };
  return std::make_shared<FunctionHyperParam>(
      names::kLearningRate,
      [optimizers, multiplier] {
        // A frozen-rate group (multiplier 0) says nothing of the base; the first other does.
        const auto& groups = optimizers.front()->param_groups();
        for (size_t g = 0; g < groups.size(); ++g) {
          if (multiplier(g) != 0) return groups[g].options().get_lr() / multiplier(g);
        }
        return groups.front().options().get_lr();
      },
      [optimizers, multiplier](double lr) {
        for (auto* opt : optimizers) {
          auto& groups = opt->param_groups();
          for (size_t g = 0; g < groups.size(); ++g) groups[g].options().set_lr(lr * multiplier(g));
        }
      });
}

std::unique_ptr<torch::optim::Optimizer> SingleCostTrainer::makeOptimizer(
    torch::nn::Module& module) {
  if (!paramGroups().active()) {
    auto optimizer = model().optimizer(module.parameters());
    TB_CHECK(optimizer != nullptr, "optimizer() returned no optimizer");
    return optimizer;
  }
  const ParamGroupLayout layout = layoutOf(module, paramGroups().rules);
  auto optimizer = model().optimizer(trainableParameters(module, layout));
  TB_CHECK(optimizer != nullptr, "optimizer() returned no optimizer");
  std::vector<double> multipliers = regroupOptimizer(*optimizer, module, layout);
  if (lrMultipliers_.empty()) {
    lrMultipliers_ = multipliers;
    std::ostringstream groups;
    for (size_t g = 0; g < layout.groups.size(); ++g) {
      groups << (g ? ", " : "") << layout.groups[g].count << " at x" << multipliers[g];
      if (layout.groups[g].weightDecay) groups << " decay " << *layout.groups[g].weightDecay;
    }
    TB_LOG(Info) << "param_groups: " << layout.frozen << " parameter(s) frozen; "
                 << layout.groups.size() << " group(s): " << groups.str();
  }
  return optimizer;
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
  if (precision != Precision::Full32) {
    TB_LOG(Info) << "precision " << precisionName(precision);
  }
}

void SingleCostTrainer::setAccumulation(int64_t k) {
  TB_CHECK(!isGraphSetUp(), "setAccumulation after setupGraph");
  if (k < 1) throw InputError(str("trainer.accumulate must be at least 1, got ", k));
  accumulate_ = k;
  if (k > 1) {
    TB_LOG(Info) << "gradient accumulation: " << k << " micro-batches a step";
  }
}

torch::Tensor SingleCostTrainer::forwardBackward(TowerContext& tower, torch::nn::Module& module,
                                                 const std::vector<Batch>& batches, size_t first,
                                                 size_t stride) {
  if (accumulate_ == 1) {
    torch::Tensor cost = towerCost(tower, module, batches.at(first));
    backward(cost);
    return cost.detach();
  }
  const double share = 1.0 / static_cast<double>(accumulate_);
  torch::Tensor sum;
  for (int64_t i = 0; i < accumulate_; ++i) {
    const Batch& batch = batches.at(first + static_cast<size_t>(i) * stride);
    torch::Tensor cost = towerCost(tower, module, batch);
    backward(cost * share);
    sum = sum.defined() ? sum + cost.detach() : cost.detach();
  }
  return sum * share;
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
  registerHyperParam(learningRateOf(optimizers(), lrMultipliers_));
}

}  // namespace tbench
