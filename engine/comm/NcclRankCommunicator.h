#pragma once
// NcclRankCommunicator: the gradient all-reduce of a CUDA rank of the `distributed` strategy,
// driven through NCCL directly (ProcessGroupNCCL's watchdog would kill the process on a
// timeout instead of throwing). Rank 0's ncclGetUniqueId is published through the group's
// c10d store; every rank calls ncclCommInitRank on its local CUDA device. Compiled when CMake
// finds CUDA and NCCL (TB_HAVE_NCCL), as NcclCommunicator is. Without a GPU (or without
// NCCL) the constructor throws InputError saying so, before any rank waits for it.

#include <torch/types.h>

#include "engine/comm/DistributedGroup.h"

namespace tbench {

class NcclRankCommunicator {
 public:
  /// Joins the NCCL clique of `group` on CUDA device `cudaDevice` (the rank's local rank).
  NcclRankCommunicator(DistributedGroup& group, int cudaDevice);
  ~NcclRankCommunicator();
  NcclRankCommunicator(const NcclRankCommunicator&) = delete;
  NcclRankCommunicator& operator=(const NcclRankCommunicator&) = delete;
  /// Sums a CUDA tensor over the ranks, in place, on the device's current stream.
  void allReduceSum(torch::Tensor& tensor);

 private:
  struct State;
  State* state_ = nullptr;
};

}  // namespace tbench
