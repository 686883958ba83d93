#include "engine/core/HostRead.h"

#include <torch/torch.h>

#include <atomic>

namespace tbench {

namespace {
std::atomic<int64_t> reads{0};
}

int64_t hostReadCount() { return reads.load(std::memory_order_relaxed); }

template <typename T>
T hostItem(const torch::Tensor& tensor) {
  reads.fetch_add(1, std::memory_order_relaxed);
  return tensor.item<T>();
}

torch::Tensor hostCopy(const torch::Tensor& tensor, torch::ScalarType dtype) {
  reads.fetch_add(1, std::memory_order_relaxed);
  return tensor.detach().to(torch::kCPU, dtype).contiguous();
}

template double hostItem<double>(const torch::Tensor&);
template float hostItem<float>(const torch::Tensor&);
template int64_t hostItem<int64_t>(const torch::Tensor&);
template bool hostItem<bool>(const torch::Tensor&);

}  // namespace tbench
