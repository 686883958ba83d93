#pragma once
// Note [Host reads]
// A read of a tensor's values by host code (`.item()`, a copy to the CPU that the host then
// looks at) waits for every kernel queued before it: on a GPU each one is a stall of the whole
// pipeline, and a step that makes one is a step the GPU idles through. So the engine makes
// these reads only through the functions below, which count them (hostReadCount(), a process-
// wide total that the throughput callback turns into "host_syncs_per_step"), and makes them
// where someone needs the value: step scalars are kept as tensors and read in batches
// (TowerTrainer, Note [Step scalars read in batches]), validation sums are kept on the device
// and read once a pass. The count is the same on a CPU, where a read costs nothing, so that a
// CPU test can hold the engine to it (test_HostReads).
//
// Reads of data that is on the host by construction (a file's bytes, a checkpoint being
// restored) are not reads of the device and do not go through here.

#include <torch/types.h>

#include <cstdint>

namespace tbench {

/// The number of host reads made by this process so far (every thread).
int64_t hostReadCount();

/// The value of a one-element tensor, as `T` (counted).
template <typename T>
T hostItem(const torch::Tensor& tensor);

/// A CPU copy of `tensor` as `dtype`, contiguous, for the host to read (counted; one wait).
torch::Tensor hostCopy(const torch::Tensor& tensor, torch::ScalarType dtype);

extern template double hostItem<double>(const torch::Tensor&);
extern template float hostItem<float>(const torch::Tensor&);
extern template int64_t hostItem<int64_t>(const torch::Tensor&);
extern template bool hostItem<bool>(const torch::Tensor&);

}  // namespace tbench
