// The built-in optimizers: description and factory of each. The learning rate, weight decay
// and gradient processing are keys every optimizer has (Builtin.cpp).

#include "engine/core/Names.h"
#include "engine/project/builtin/Builtin.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/train/ForeachOptimizers.h"

namespace tbench {

namespace {

namespace optim = torch::optim;

KeyDescription momentumKey() {
  return key::number("momentum", 0.0).label("Momentum").help("Momentum").atLeast(0);
}
KeyDescription beta1Key() {
  return key::number("beta1", 0.9)
      .label("Beta 1")
      .help("Decay of the first moment")
      .atLeast(0)
      .below(1);
}
KeyDescription beta2Key() {
  return key::number("beta2", 0.999)
      .label("Beta 2")
      .help("Decay of the second moment")
      .atLeast(0)
      .below(1);
}
KeyDescription foreachKey() {
  return key::choice("foreach", "auto", {"auto", "on", "off"})
      .label("Multi-tensor update")
      .help(
          "Update all parameters with multi-tensor (_foreach) ops, as PyTorch's foreach=True: "
          "auto uses them when every parameter is on a CUDA device (fewer kernel launches); "
          "on the CPU LibTorch's per-parameter loop is as fast. The result is the same");
}
/// The optimizer `Foreach` (a multi-tensor step) or `PerParameter` (LibTorch's own), as the
/// settings' "foreach" says for `params`.
template <typename Foreach, typename PerParameter, typename Options>
std::unique_ptr<torch::optim::Optimizer> optimizerFor(std::vector<torch::Tensor> params,
                                                      const Settings& s, Options options) {
  if (useForeach(foreachModeOf(s.string("foreach")), params)) {
    return std::make_unique<Foreach>(std::move(params), std::move(options));
  }
  return std::make_unique<PerParameter>(std::move(params), std::move(options));
}
KeyDescription epsKey() {
  return key::number("eps", 1e-8).label("Epsilon").help("Added to the denominator").greaterThan(0);
}

}  // namespace

void registerBuiltinOptimizers(ComponentRegistry& registry) {
  ComponentType sgd = describe("sgd", "Stochastic gradient descent (torch.optim.SGD)",
                               {momentumKey(),
                                key::boolean("nesterov", false)
                                    .label("Nesterov momentum")
                                    .help("Nesterov momentum; requires momentum > 0"),
                                foreachKey()});
  sgd.check = [](const Settings& s, CheckContext& context) {
    // A bad momentum is reported already; nesterov is judged against a valid one only.
    if (s.boolean("nesterov") && !context.invalid("momentum") && s.number("momentum") <= 0) {
      context.report("nesterov", "requires momentum > 0");
    }
  };
  registerOptimizer(registry, sgd, [](std::vector<torch::Tensor> params, const Settings& s) {
    return optimizerFor<ForeachSGD, optim::SGD>(std::move(params), s,
                                                optim::SGDOptions(s.number(names::kLearningRate))
                                                    .momentum(s.number("momentum"))
                                                    .nesterov(s.boolean("nesterov"))
                                                    .weight_decay(s.number("weight_decay")));
  });
  registerOptimizer(registry,
                    describe("adam", "Adam (torch.optim.Adam; weight decay added to the gradient)",
                             {beta1Key(), beta2Key(), epsKey(), foreachKey()}),
                    [](std::vector<torch::Tensor> params, const Settings& s) {
                      return optimizerFor<ForeachAdam, optim::Adam>(
                          std::move(params), s,
                          optim::AdamOptions(s.number(names::kLearningRate))
                              .betas({s.number("beta1"), s.number("beta2")})
                              .eps(s.number("eps"))
                              .weight_decay(s.number("weight_decay")));
                    });
  registerOptimizer(registry,
                    describe("adamw", "AdamW (torch.optim.AdamW; decoupled weight decay)",
                             {beta1Key(), beta2Key(), epsKey(), foreachKey()}),
                    [](std::vector<torch::Tensor> params, const Settings& s) {
                      return optimizerFor<ForeachAdamW, optim::AdamW>(
                          std::move(params), s,
                          optim::AdamWOptions(s.number(names::kLearningRate))
                              .betas({s.number("beta1"), s.number("beta2")})
                              .eps(s.number("eps"))
                              .weight_decay(s.number("weight_decay")));
                    });
  registerOptimizer(registry,
                    describe("rmsprop", "RMSprop (torch.optim.RMSprop)", {momentumKey(), epsKey()}),
                    [](std::vector<torch::Tensor> params, const Settings& s) {
                      return std::make_unique<optim::RMSprop>(
                          params, optim::RMSpropOptions(s.number(names::kLearningRate))
                                      .momentum(s.number("momentum"))
                                      .eps(s.number("eps"))
                                      .weight_decay(s.number("weight_decay")));
                    });
}

}  // namespace tbench
