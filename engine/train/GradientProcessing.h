#pragma once
// Gradient processing between backward and the optimizer's update (tensorpack's gradient
// processors: GlobalNormClip, MapGradient with a clip), the same for every strategy.
//
//   trainer.setGradientProcessing(GradientProcessing().clipGlobalNorm(5.0));
//
// Order: the global L2 norm of all gradients is taken first (reported as "grad_norm", the
// value to watch for divergence); then the gradients are scaled so that their global norm is
// at most clipGlobalNorm (exactly torch.nn.utils.clip_grad_norm_); then every element is
// clamped to [-clipValue, clipValue] (torch.nn.utils.clip_grad_value_). Which gradients:
// the ones the update uses, i.e. after the towers' gradients were averaged (parameter server,
// replicated) or scaled (async, per tower).

#include <torch/types.h>

#include <vector>

namespace tbench {

struct GradientProcessing {
  double clipGlobalNorm_ = 0;  ///< > 0: the largest global L2 norm; 0: no norm clipping
  double clipValue_ = 0;       ///< > 0: the largest |element|; 0: no value clipping
  bool reportNorm_ = true;     ///< put "grad_norm"
  /// Put it every this many steps (and at every epoch's last step), not every step: the norm
  /// reads every gradient once, about 5% of a CPU MLP step (issue 24). Clipping by the global
  /// norm computes it anyway, and then it is put every step.
  int64_t reportEvery_ = 1;
  GradientProcessing& clipGlobalNorm(double v) {
    clipGlobalNorm_ = v;
    return *this;
  }
  GradientProcessing& clipValue(double v) {
    clipValue_ = v;
    return *this;
  }
  GradientProcessing& reportNorm(bool on) {
    reportNorm_ = on;
    return *this;
  }
  GradientProcessing& reportEvery(int64_t steps) {
    reportEvery_ = steps;
    return *this;
  }
  bool active() const { return clipGlobalNorm_ > 0 || clipValue_ > 0 || reportNorm_; }
};

/// Applies `processing` to the gradients of `params` (parameters without a gradient are
/// skipped). Returns the global L2 norm of the gradients before clipping as a 0-dim float tensor
/// on the gradients' device (0 when no parameter has a gradient), or an undefined tensor when
/// neither norm clipping nor reporting asked for it. Reads nothing back to the host (Note [Host
/// reads]): the clip multiplies every gradient by the clamped coefficient, as
/// torch.nn.utils.clip_grad_norm_ does. Throws CheckError for negative limits.
torch::Tensor processGradients(const std::vector<torch::Tensor>& params,
                               const GradientProcessing& processing);

}  // namespace tbench
