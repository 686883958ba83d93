#include "engine/callbacks/CheckNumerics.h"

#include <torch/torch.h>

#include <cmath>

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"

namespace tbench {

CheckNumerics::CheckNumerics(int64_t parameterCheckEverySteps)
    : parameterCheckEverySteps_(parameterCheckEverySteps) {
  TB_CHECK(parameterCheckEverySteps_ >= 0, "parameter check period must not be negative");
}

void CheckNumerics::onSetupGraph() {
  context().monitors().watchScalars(
      [](const std::string& name, double value, const MetricStamp& stamp) {
        // A single-cost trainer's cost, a GAN trainer's two costs.
        if (name != "cost" && name != "d_loss" && name != "g_loss") return;
        if (std::isfinite(value)) return;
        throw NumericError(str("the ", name, " is ", value, " at epoch ", stamp.epochNum,
                               ", global step ", stamp.globalStep));
      });
}

void CheckNumerics::onTriggerStep() {
  TrainerContext& c = context();
  if (parameterCheckEverySteps_ > 0 && c.globalStep() % parameterCheckEverySteps_ == 0) {
    checkParameters();
  }
}

void CheckNumerics::checkParameters() {
  torch::NoGradGuard noGrad;
  const auto parameters = context().parameters();
  if (parameters.empty()) return;
  // One read for all of them (Note [Host reads]); the offender is looked for only on a failure.
  std::vector<torch::Tensor> finite;
  const torch::Device device = parameters.front().second.device();
  for (const auto& [name, tensor] : parameters) {
    finite.push_back(torch::isfinite(tensor).all().to(device));
  }
  if (hostItem<bool>(torch::stack(finite).all())) return;
  for (const auto& [name, tensor] : parameters) {
    const int64_t good = hostItem<int64_t>(torch::isfinite(tensor).sum());
    if (good == tensor.numel()) continue;
    throw NumericError(str("parameter ", name, " has ", tensor.numel() - good,
                           " non-finite values (of ", tensor.numel(), ") at epoch ",
                           context().epochNum(), ", global step ", context().globalStep()));
  }
}

}  // namespace tbench
