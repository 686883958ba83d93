#include "engine/train/ForeachOptimizers.h"

#include <ATen/ATen.h>
#include <torch/torch.h>

#include <cmath>
#include <type_traits>
#include <utility>

#include "engine/core/Check.h"
#include "engine/core/TorchCompat.h"

namespace tbench {

ForeachMode foreachModeOf(const std::string& text) {
  if (text == "auto") return ForeachMode::Auto;
  if (text == "on") return ForeachMode::On;
  if (text == "off") return ForeachMode::Off;
  throw InputError(str("optimizer.foreach: \"", text, "\" is not auto, on or off"));
}

bool useForeach(ForeachMode mode, const std::vector<torch::Tensor>& params) {
  if (mode != ForeachMode::Auto) return mode == ForeachMode::On;
  if (params.empty()) return false;
  for (const torch::Tensor& p : params) {
    if (!p.is_cuda()) return false;
  }
  return true;
}

namespace {

using torch::Tensor;
/// Optimizer::state_'s type, whose key differs between LibTorch 1.13 and 2.x
/// (compat::optimizerStateKey).
using ParamStates =
    std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

compat::OptimizerStateKey keyOf(const Tensor& p) { return compat::optimizerStateKey(p); }

/// The group's rate tensor, holding options' current rate (copied in when it changed: a write
/// to the device, never a read).
const Tensor& rateOf(DeviceRate& rate, double lr, const Tensor& like) {
  if (!rate.lr.defined()) rate.lr = torch::empty({}, like.options());
  if (rate.hostLr != lr) {
    rate.lr.fill_(lr);
    rate.hostLr = lr;
  }
  return rate.lr;
}

/// Each parameter's step count on the device, after this step's increment (from the host count
/// the first time: a resumed run's).
std::vector<Tensor> deviceSteps(DeviceRate& rate, const std::vector<Tensor>& params,
                                const std::vector<int64_t>& hostSteps) {
  std::vector<Tensor> steps;
  steps.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor& s = rate.steps[params[i].unsafeGetTensorImpl()];
    if (!s.defined()) {
      s = torch::full({}, double(hostSteps[i] - 1), params[i].options());
    }
    steps.push_back(s);
  }
  at::_foreach_add_(steps, 1);
  return steps;
}

/// LibTorch's step around `update(g)` for each of `groups` groups: no gradient, except for the
/// closure's loss, which it returns.
template <typename Update>
Tensor stepGroups(const torch::optim::Optimizer::LossClosure& closure, size_t groups,
                  std::vector<DeviceRate>& rates, Update&& update) {
  torch::NoGradGuard noGrad;
  Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enableGrad(true);
    loss = closure();
  }
  rates.resize(groups);
  for (size_t g = 0; g < groups; ++g) update(g);
  return loss;
}

/// The Adam update of LibTorch 1.13 (adam.cpp, adamw.cpp) over a group's tensors at once.
template <typename Options, typename State>
void foreachAdamGroup(const char* optimizer, torch::optim::OptimizerParamGroup& group,
                      ParamStates& states, bool decoupled, DeviceRate* rate) {
  auto& options = static_cast<Options&>(group.options());
  if (options.amsgrad()) {
    throw CheckError(str(optimizer, ": amsgrad has no multi-tensor step (use foreach: off)"));
  }
  std::vector<Tensor> params, grads, expAvgs, expAvgSqs;
  std::vector<int64_t> stepCounts;
  for (auto& p : group.params()) {
    if (!p.grad().defined()) continue;
    TORCH_CHECK(!p.grad().is_sparse(), "Adam does not support sparse gradients");
    auto found = states.find(keyOf(p));
    if (found == states.end()) {
      auto state = std::make_unique<State>();
      state->step(0);
      state->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      state->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
      found = states.emplace(keyOf(p), std::move(state)).first;
    }
    auto& state = static_cast<State&>(*found->second);
    state.step(state.step() + 1);
    params.push_back(p);
    grads.push_back(p.grad());
    expAvgs.push_back(state.exp_avg());
    expAvgSqs.push_back(state.exp_avg_sq());
    stepCounts.push_back(state.step());
  }
  if (params.empty()) return;
  const double beta1 = std::get<0>(options.betas());
  const double beta2 = std::get<1>(options.betas());
  const double lr = options.lr();
  const double decay = options.weight_decay();
  const Tensor lrT = rate != nullptr ? rateOf(*rate, lr, params.front()) : Tensor();

  if (decoupled && decay != 0) {  // AdamW: p.mul_(1 - lr * weight_decay)
    if (rate == nullptr) {
      at::_foreach_mul_(params, 1 - lr * decay);
    } else {
      const Tensor factor = 1 - lrT * decay;
      at::_foreach_mul_(params, std::vector<Tensor>(params.size(), factor));
    }
  }
  if (!decoupled && decay != 0) grads = at::_foreach_add(grads, params, decay);
  at::_foreach_mul_(expAvgs, beta1);
  at::_foreach_add_(expAvgs, grads, 1 - beta1);
  at::_foreach_mul_(expAvgSqs, beta2);
  at::_foreach_addcmul_(expAvgSqs, grads, grads, 1 - beta2);
  std::vector<Tensor> denom = at::_foreach_sqrt(expAvgSqs);

  if (rate == nullptr) {
    std::vector<c10::Scalar> correction2, stepSize;
    for (int64_t s : stepCounts) {
      correction2.emplace_back(std::sqrt(1 - std::pow(beta2, double(s))));
      stepSize.emplace_back(-lr / (1 - std::pow(beta1, double(s))));
    }
    at::_foreach_div_(denom, correction2);
    at::_foreach_add_(denom, options.eps());
    at::_foreach_addcdiv_(params, expAvgs, denom, stepSize);
    return;
  }
  // On the device: the bias corrections from the step tensors, the rate from its tensor.
  const std::vector<Tensor> steps = deviceSteps(*rate, params, stepCounts);
  std::vector<Tensor> correction2, stepSize;
  for (const Tensor& s : steps) {
    correction2.push_back(torch::sqrt(1 - torch::pow(beta2, s)));
    stepSize.push_back(lrT / (1 - torch::pow(beta1, s)));
  }
  at::_foreach_div_(denom, correction2);
  at::_foreach_add_(denom, options.eps());
  std::vector<Tensor> update = at::_foreach_div(expAvgs, denom);
  at::_foreach_mul_(update, stepSize);
  at::_foreach_sub_(params, update);
}

}  // namespace

torch::Tensor ForeachAdam::step(LossClosure closure) {
  return stepGroups(closure, param_groups_.size(), rates_, [this](size_t g) {
    foreachAdamGroup<torch::optim::AdamOptions, torch::optim::AdamParamState>(
        "ForeachAdam", param_groups_[g], state_, /*decoupled=*/false,
        deviceLr_ ? &rates_[g] : nullptr);
  });
}

torch::Tensor ForeachAdam::deviceLearningRate(size_t g) const {
  return g < rates_.size() ? rates_[g].lr : Tensor();
}

torch::Tensor ForeachAdamW::step(LossClosure closure) {
  return stepGroups(closure, param_groups_.size(), rates_, [this](size_t g) {
    foreachAdamGroup<torch::optim::AdamWOptions, torch::optim::AdamWParamState>(
        "ForeachAdamW", param_groups_[g], state_, /*decoupled=*/true,
        deviceLr_ ? &rates_[g] : nullptr);
  });
}

torch::Tensor ForeachSGD::step(LossClosure closure) {
  return stepGroups(closure, param_groups_.size(), rates_, [this](size_t g) { sgdGroup(g); });
}

void ForeachSGD::sgdGroup(size_t g) {
  {
    auto& group = param_groups_[g];
    auto& options = static_cast<torch::optim::SGDOptions&>(group.options());
    std::vector<Tensor> params, grads;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      params.push_back(p);
      grads.push_back(p.grad());
    }
    if (params.empty()) return;
    // As sgd.cpp: d_p = grad (+ decay * p); momentum: a new buffer is a copy of d_p, an old
    // one buf * momentum + d_p * (1 - dampening); nesterov: d_p + momentum * buf, else buf.
    std::vector<Tensor> dp = options.weight_decay() != 0
                                 ? at::_foreach_add(grads, params, options.weight_decay())
                                 : grads;
    if (options.momentum() != 0) {
      std::vector<Tensor> bufs(params.size()), oldBufs, oldDp;
      for (size_t i = 0; i < params.size(); ++i) {
        const auto key = keyOf(params[i]);
        auto found = state_.find(key);
        if (found == state_.end()) {
          bufs[i] = torch::clone(dp[i]).detach();
          auto state = std::make_unique<torch::optim::SGDParamState>();
          state->momentum_buffer(bufs[i]);
          state_[key] = std::move(state);
        } else {
          bufs[i] = static_cast<torch::optim::SGDParamState&>(*found->second).momentum_buffer();
          oldBufs.push_back(bufs[i]);
          oldDp.push_back(dp[i]);
        }
      }
      if (!oldBufs.empty()) {
        at::_foreach_mul_(oldBufs, options.momentum());
        at::_foreach_add_(oldBufs, oldDp, 1 - options.dampening());
      }
      dp = options.nesterov() ? at::_foreach_add(dp, bufs, options.momentum()) : bufs;
    }
    if (!deviceLr_) {
      at::_foreach_add_(params, dp, -1 * options.lr());
    } else {
      const Tensor& lrT = rateOf(rates_[g], options.lr(), params.front());
      std::vector<Tensor> update = at::_foreach_mul(dp, std::vector<Tensor>(dp.size(), lrT));
      at::_foreach_sub_(params, update);
    }
  }
}

}  // namespace tbench
