#include "engine/train/MixedPrecision.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"
#include "engine/core/TorchCompat.h"

namespace tbench {

Precision parsePrecision(const std::string& name) {
  if (name == "32") return Precision::Full32;
  if (name == "bf16-mixed") return Precision::Bf16Mixed;
  if (name == "16-mixed") return Precision::Fp16Mixed;
  throw InputError(
      str("precision must be \"32\", \"bf16-mixed\" or \"16-mixed\", got \"", name, "\""));
}

std::string precisionName(Precision precision) {
  switch (precision) {
    case Precision::Bf16Mixed:
      return "bf16-mixed";
    case Precision::Fp16Mixed:
      return "16-mixed";
    case Precision::Full32:
      break;
  }
  return "32";
}

bool cpuHasNativeBf16() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    std::string flag;
    while (words >> flag) {
      if (flag == "avx512_bf16" || flag == "amx_bf16") return true;
    }
    return false;  // every processor lists the same flags
  }
  return false;
}

AutocastScope::AutocastScope(Precision precision, c10::DeviceType deviceType) : type_(deviceType) {
  if (precision == Precision::Full32) return;
  active_ = true;
  wasEnabled_ = compat::autocastEnabled(type_);
  previousDtype_ = compat::autocastDtype(type_);
  compat::setAutocastDtype(type_, precision == Precision::Fp16Mixed ? at::kHalf : at::kBFloat16);
  compat::setAutocastEnabled(type_, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // As torch.autocast's __exit__: the cache of casted weights lives as long as the outermost
  // scope, so that a weight used twice in one forward pass is cast once.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::setAutocastEnabled(type_, wasEnabled_);
  compat::setAutocastDtype(type_, previousDtype_);
}

GradScaler::GradScaler(GradScalerOptions options) : options_(options), scale_(options.initScale) {
  TB_CHECK(options_.initScale > 0 && options_.growthFactor > 1 && options_.backoffFactor > 0 &&
               options_.backoffFactor < 1 && options_.growthInterval > 0,
           "GradScaler: init scale > 0, growth factor > 1, 0 < backoff < 1, interval > 0");
}

torch::Tensor GradScaler::scale(const torch::Tensor& cost) const {
  return cost.to(torch::kFloat) * scale_;
}

bool GradScaler::unscale(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard noGrad;
  std::vector<std::pair<c10::Device, std::vector<torch::Tensor>>> byDevice;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    auto it = std::find_if(byDevice.begin(), byDevice.end(),
                           [&](const auto& entry) { return entry.first == p.grad().device(); });
    if (it == byDevice.end()) it = byDevice.insert(byDevice.end(), {p.grad().device(), {}});
    it->second.push_back(p.grad());
  }
  bool finite = true;
  for (auto& [device, grads] : byDevice) {
    if (device.is_cuda()) {
      // PyTorch's fused kernel, as GradScaler.unscale_ uses it: one launch for every gradient.
      auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
      torch::Tensor foundInf = torch::zeros({1}, options);
      torch::Tensor invScale = torch::full({1}, 1.0 / scale_, options);
      at::_amp_foreach_non_finite_check_and_unscale_(grads, foundInf, invScale);
      // Read every step, as torch.cuda.amp.GradScaler.step() does before deciding to step (only
      // a fused optimizer avoids it): one host read a step under 16-mixed (Note [Host reads]).
      if (hostItem<float>(foundInf) != 0) finite = false;
    } else {
      torch::Tensor allFinite = torch::ones({}, torch::kBool);
      for (auto& g : grads) {
        allFinite.logical_and_(torch::isfinite(g).all());
        g.mul_(1.0 / scale_);
      }
      if (!hostItem<bool>(allFinite)) finite = false;
    }
  }
  if (!finite) foundInf_ = true;
  return finite;
}

bool GradScaler::update() {
  const bool skipped = foundInf_.exchange(false);
  if (skipped) {
    scale_ *= options_.backoffFactor;
    growthTracker_ = 0;
    ++skipped_;
  } else if (++growthTracker_ == options_.growthInterval) {
    // As _amp_update_scale_: the scale grows only while it stays finite (PyTorch keeps it in a
    // float32 tensor, and the cost is scaled in float32).
    const double grown = scale_ * options_.growthFactor;
    if (std::isfinite(static_cast<float>(grown))) scale_ = grown;
    growthTracker_ = 0;
  }
  return skipped;
}

std::map<std::string, torch::Tensor> GradScaler::state() const {
  return {{"grad_scaler.scale", torch::tensor(scale_, torch::kDouble)},
          {"grad_scaler.growth_tracker", torch::tensor(growthTracker_, torch::kLong)},
          {"grad_scaler.skipped_steps", torch::tensor(skipped_, torch::kLong)}};
}

bool GradScaler::restore(const std::map<std::string, torch::Tensor>& state) {
  const auto scale = state.find("grad_scaler.scale");
  const auto tracker = state.find("grad_scaler.growth_tracker");
  const auto skipped = state.find("grad_scaler.skipped_steps");
  if (scale == state.end() || tracker == state.end() || skipped == state.end()) return false;
  const double value = scale->second.item<double>();
  if (!(value > 0) || !std::isfinite(value)) {
    throw InputError(
        str("the checkpoint's grad_scaler.scale is ", value, ", not a positive number"));
  }
  scale_ = value;
  growthTracker_ = tracker->second.item<int64_t>();
  skipped_ = skipped->second.item<int64_t>();
  foundInf_ = false;
  return true;
}

}  // namespace tbench
