#include "engine/comm/NcclRankCommunicator.h"

#include "engine/comm/NcclCommunicator.h"
#include "engine/core/Check.h"

#ifdef TB_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace tbench {

#ifdef TB_HAVE_NCCL

struct NcclRankCommunicator::State {
  ncclComm_t comm = nullptr;
  int device = 0;
};

NcclRankCommunicator::NcclRankCommunicator(DistributedGroup& group, int cudaDevice) {
  const int devices = cudaRuntimeDeviceCount();
  if (cudaDevice >= devices) {
    throw InputError(str("distributed: rank ", group.rank(), " needs CUDA device ", cudaDevice,
                         " for NCCL (", ncclVersionText(),
                         " is built in), but the CUDA runtime "
                         "sees ",
                         devices, " device(s); CUDA ranks need GPUs"));
  }
  ncclUniqueId id;
  if (group.rank() == 0) {
    TB_CHECK(ncclGetUniqueId(&id) == ncclSuccess, "ncclGetUniqueId failed");
    group.publish("nccl_unique_id", std::string(id.internal, sizeof id.internal));
  } else {
    const std::string received = group.receive("nccl_unique_id");
    TB_CHECK(received.size() == sizeof id.internal, "the NCCL unique id has ", received.size(),
             " bytes");
    std::copy(received.begin(), received.end(), id.internal);
  }
  state_ = new State;
  state_->device = cudaDevice;
  TB_CHECK(cudaSetDevice(cudaDevice) == cudaSuccess, "cudaSetDevice(", cudaDevice, ") failed");
  const ncclResult_t status = ncclCommInitRank(&state_->comm, group.worldSize(), id, group.rank());
  if (status != ncclSuccess) {
    delete state_;
    state_ = nullptr;
    throw InputError(str("distributed: ncclCommInitRank failed on rank ", group.rank(), ": ",
                         ncclGetErrorString(status)));
  }
}

NcclRankCommunicator::~NcclRankCommunicator() {
  if (state_ && state_->comm) ncclCommDestroy(state_->comm);
  delete state_;
}

void NcclRankCommunicator::allReduceSum(torch::Tensor& tensor) {
  TB_CHECK(tensor.is_cuda() && tensor.is_contiguous(), "NCCL reduces contiguous CUDA tensors");
  const ncclDataType_t type = tensor.scalar_type() == torch::kFloat64 ? ncclFloat64 : ncclFloat32;
  TB_CHECK(tensor.scalar_type() == torch::kFloat64 || tensor.scalar_type() == torch::kFloat32,
           "NCCL rank reduce takes float32/float64, got ", tensor.scalar_type());
  const ncclResult_t status = ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), tensor.numel(),
                                            type, ncclSum, state_->comm, nullptr);
  TB_CHECK(status == ncclSuccess, "ncclAllReduce failed: ", ncclGetErrorString(status));
}

#else

struct NcclRankCommunicator::State {};

NcclRankCommunicator::NcclRankCommunicator(DistributedGroup& group, int) {
  throw InputError(str("distributed: rank ", group.rank(),
                       " has a CUDA device, which needs NCCL; this build has none (CMake found "
                       "no CUDA/NCCL)"));
}

NcclRankCommunicator::~NcclRankCommunicator() = default;

void NcclRankCommunicator::allReduceSum(torch::Tensor&) {}

#endif

}  // namespace tbench
