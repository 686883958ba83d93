#include "engine/callbacks/CheckNumerics.h"

#include <torch/torch.h>

#include <cmath>

#include "engine/core/Check.h"

namespace tbench {

CheckNumerics::CheckNumerics(int64_t parameterCheckEverySteps)
    : parameterCheckEverySteps_(parameterCheckEverySteps) {
  TB_CHECK(parameterCheckEverySteps_ >= 0, "parameter check period must not be negative");
}

void CheckNumerics::onTriggerStep() {
  TrainerContext& c = context();
  // A single-cost trainer's cost, a GAN trainer's two costs.
  for (const char* name : {"cost", "d_loss", "g_loss"}) {
    if (auto cost = c.monitors().latest(name); cost && !std::isfinite(*cost)) {
      throw NumericError(str("the ", std::string(name) == "cost" ? "cost" : name, " is ", *cost,
                             " at epoch ", c.epochNum(), ", global step ", c.globalStep(),
                             " (local step ", c.localStep(), ")"));
    }
  }
  if (parameterCheckEverySteps_ > 0 && c.globalStep() % parameterCheckEverySteps_ == 0) {
    checkParameters();
  }
}

void CheckNumerics::checkParameters() {
  torch::NoGradGuard noGrad;
  for (const auto& [name, tensor] : context().parameters()) {
    if (torch::isfinite(tensor).all().item<bool>()) continue;
    const int64_t bad = tensor.numel() - torch::isfinite(tensor).sum().item<int64_t>();
    throw NumericError(str("parameter ", name, " has ", bad, " non-finite values (of ",
                           tensor.numel(), ") at epoch ", context().epochNum(), ", global step ",
                           context().globalStep()));
  }
}

}  // namespace tbench
