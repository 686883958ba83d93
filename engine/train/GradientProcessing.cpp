#include "engine/train/GradientProcessing.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/TorchCompat.h"

namespace tbench {

torch::Tensor processGradients(const std::vector<torch::Tensor>& params,
                               const GradientProcessing& processing) {
  TB_CHECK(processing.clipGlobalNorm_ >= 0 && processing.clipValue_ >= 0,
           "gradient clipping limits must not be negative, got clip_global_norm=",
           processing.clipGlobalNorm_, " clip_value=", processing.clipValue_);
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) {
    return processing.reportNorm_ ? torch::zeros({}, torch::kFloat) : torch::Tensor();
  }

  torch::Tensor norm;
  if (processing.clipGlobalNorm_ > 0 || processing.reportNorm_) {
    // As torch.nn.utils.clip_grad_norm_: the norm of the per-tensor norms, and one clamped
    // coefficient multiplied into every gradient, whatever its value (a multiply by exactly 1
    // leaves the bits as they are; deciding on the host would read the norm every step).
    std::vector<torch::Tensor> norms;
    norms.reserve(grads.size());
    for (const auto& g : grads) norms.push_back(compat::vectorNorm2(g));
    const torch::Tensor total =
        norms.size() == 1 ? norms[0] : compat::vectorNorm2(torch::stack(norms));
    norm = total;
    if (processing.clipGlobalNorm_ > 0) {
      // Python's `max_norm / (total_norm + 1e-6)` is Tensor.__rtruediv__: a reciprocal
      // times the number. Written the same way, the result is PyTorch's to the bit.
      const torch::Tensor coef =
          torch::clamp_max((total + 1e-6).reciprocal() * processing.clipGlobalNorm_, 1.0);
      for (auto& g : grads) g.mul_(coef.to(g.device()));
    }
  }
  if (processing.clipValue_ > 0) {
    for (auto& g : grads) g.clamp_(-processing.clipValue_, processing.clipValue_);
  }
  return norm;
}

}  // namespace tbench
