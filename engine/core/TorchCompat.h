#pragma once
// The few places where Debian's LibTorch 1.13 and the LibTorch 2.x that PyTorch ships differ
// (docs/ARCHITECTURE.md §8). Everything else is written against the API both have; a new
// difference goes here, not into #ifs across the engine.
//
// Checked against the 1.13 headers installed here and the 2.6 headers of Debian's
// libtorch-dev 2.6 (scripts/check-torch2-headers.sh compiles the engine against them).

#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <sstream>
#include <string>
#include <type_traits>

#define TB_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||     \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace tbench::compat {

/// The key of torch::optim::Optimizer::state() for parameter `param`: the TensorImpl's address
/// as a string in 1.13 (c10::guts::to_string, which 2.x removed: an ostringstream of the
/// pointer), the address itself in 2.x. Chosen by the map's key type, not by version number.
using OptimizerStateKey =
    std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state())>::key_type;

// A template on the key type so that only the branch of this LibTorch's key type is
// instantiated: a compiler that checks template bodies (GCC 16) checks only what does not
// depend on a template parameter, and both branches' returns depend on `Key`.
template <typename Key = OptimizerStateKey>
Key optimizerStateKey(const torch::Tensor& param) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream key;
    key << static_cast<void*>(param.unsafeGetTensorImpl());
    return key.str();
  } else {
    return static_cast<Key>(param.unsafeGetTensorImpl());
  }
}

/// A leaf's gradient accumulator, as torch::autograd::impl::grad_accumulator returns it: a
/// std::shared_ptr<Node> in 1.13 and 2.6, a c10::intrusive_ptr<Node> in 2.14. Holding
/// one keeps the accumulator (and the hooks added to it) alive.
using GradAccumulatorPtr =
    decltype(torch::autograd::impl::grad_accumulator(std::declval<const torch::Tensor&>()));

/// The norm of `t` as torch.linalg.vector_norm(t, 2): ATen's operator, which every version has
/// (2.14 dropped the C++ frontend's torch::linalg namespace).
inline torch::Tensor vectorNorm2(const torch::Tensor& t) {
  return at::linalg_vector_norm(t, 2, {}, false, {});
}

/// Autocast (torch.autocast) for one device type: 1.13 has one function per device type, 2.4
/// and later one function taking the device type (the old ones are deprecated).
inline bool autocastEnabled(c10::DeviceType type) {
#if TB_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

inline void setAutocastEnabled(c10::DeviceType type, bool enabled) {
#if TB_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(type, enabled);
#else
  if (type == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_enabled(enabled);
  }
#endif
}

inline at::ScalarType autocastDtype(c10::DeviceType type) {
#if TB_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype()
                                      : at::autocast::get_autocast_gpu_dtype();
#endif
}

inline void setAutocastDtype(c10::DeviceType type, at::ScalarType dtype) {
#if TB_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(type, dtype);
#else
  if (type == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

}  // namespace tbench::compat
