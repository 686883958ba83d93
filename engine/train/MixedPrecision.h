#pragma once
// Mixed precision (the project's "precision", named as PyTorch Lightning names it):
//   "32"          everything in float32;
//   "bf16-mixed"  the forward pass and cost under autocast to bfloat16 (CPU or CUDA); weights,
//                 gradients and the optimizer stay float32; no scaling is needed (bfloat16 has
//                 float32's range);
//   "16-mixed"    autocast to float16 on CUDA, with a GradScaler: the cost is multiplied by a
//                 scale before backward, the gradients divided by it before the update, and a
//                 step whose gradients overflowed is skipped and the scale halved (PyTorch's
//                 torch.cuda.amp.GradScaler, with its defaults).
// Validation and inference run in float32 (the weights' own precision).

#include <torch/torch.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace tbench {

enum class Precision { Full32, Bf16Mixed, Fp16Mixed };

/// "32", "bf16-mixed" or "16-mixed"; InputError otherwise.
Precision parsePrecision(const std::string& name);
std::string precisionName(Precision precision);

/// Whether this processor computes bfloat16 natively (AVX-512 BF16 or AMX), read from
/// /proc/cpuinfo; without it, "bf16-mixed" on the CPU is emulated and slower than "32".
bool cpuHasNativeBf16();

/// torch.autocast for one device type while alive: nests, restores what was set before, and
/// clears the cast cache when the outermost scope ends. Does nothing for Precision::Full32.
class AutocastScope {
 public:
  AutocastScope(Precision precision, c10::DeviceType deviceType);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType type_;
  bool wasEnabled_ = false;
  at::ScalarType previousDtype_ = at::kFloat;
};

struct GradScalerOptions {
  double initScale = 65536.0;  ///< 2^16
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;  ///< steps without overflow before the scale grows
};

/// Loss scaling for float16 training. One per trainer; unscale() may be called from several
/// tower workers in one step (each on its own gradients), update() once per step after them.
class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});
  /// The cost to call backward() on: cost * scale.
  torch::Tensor scale(const torch::Tensor& cost) const;
  /// Divides the gradients of `params` by the scale, in place. Returns false, and remembers for
  /// update(), when one of them is infinite or NaN: the caller skips this update.
  bool unscale(const std::vector<torch::Tensor>& params);
  /// After the step's updates: backs the scale off when an unscale() of this step found an
  /// overflow (counting a skipped step), else grows it every growthInterval clean steps.
  /// Returns whether the step was skipped.
  bool update();

  double currentScale() const { return scale_; }
  int64_t skippedSteps() const { return skipped_; }
  /// For the checkpoint's trainer_state: "grad_scaler.scale", "grad_scaler.growth_tracker",
  /// "grad_scaler.skipped_steps".
  std::map<std::string, torch::Tensor> state() const;
  /// Restores state(); returns false (and keeps the current state) when `state` has none.
  bool restore(const std::map<std::string, torch::Tensor>& state);

 private:
  GradScalerOptions options_;
  double scale_;
  int64_t growthTracker_ = 0;
  int64_t skipped_ = 0;
  std::atomic<bool> foundInf_{false};
};

}  // namespace tbench
