#pragma once
// NcclCommunicator: all-reduce and broadcast across CUDA towers with NCCL (one communicator
// per device, ncclCommInitAll; one grouped call per collective). Compiled when CMake finds
// CUDA and NCCL (TB_HAVE_NCCL); used only for towers on CUDA devices, which need a LibTorch
// built with CUDA. On a machine without a GPU the constructor throws a CheckError that says
// so and names the NCCL version found.

#include <string>
#include <vector>

#include "engine/comm/Communicator.h"

namespace tbench {

/// "NCCL 2.28.9" when NCCL was built in (the library's own version, from ncclGetVersion), or
/// "NCCL not built in (CMake found no CUDA/NCCL)".
std::string ncclVersionText();

/// Whether NCCL support was compiled in.
bool ncclBuiltIn();

/// The number of CUDA devices the CUDA runtime sees (0 without a GPU or driver).
int cudaRuntimeDeviceCount();

class NcclCommunicator : public Communicator {
 public:
  /// `devices` must all be CUDA devices that exist.
  explicit NcclCommunicator(const std::vector<Device>& devices);
  ~NcclCommunicator() override;
  void allReduce(PerTower& tensors, ReduceOp op) override;
  void broadcast(PerTower& tensors, int root) override;
  void barrier() override;
  std::string name() const override { return "nccl"; }

 private:
  struct State;
  std::vector<Device> devices_;
  State* state_ = nullptr;
};

}  // namespace tbench
