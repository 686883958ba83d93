#include "engine/comm/NcclCommunicator.h"

#include "engine/core/Check.h"

#ifdef TB_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#endif

namespace tbench {

#ifdef TB_HAVE_NCCL

namespace {

void checkCuda(cudaError_t status, const char* what) {
  TB_CHECK(status == cudaSuccess, what, " failed: ", cudaGetErrorString(status));
}

void checkNccl(ncclResult_t status, const char* what) {
  TB_CHECK(status == ncclSuccess, what, " failed: ", ncclGetErrorString(status));
}

ncclDataType_t ncclType(const torch::Tensor& t) {
  switch (t.scalar_type()) {
    case torch::kFloat32:
      return ncclFloat32;
    case torch::kFloat64:
      return ncclFloat64;
    case torch::kFloat16:
      return ncclFloat16;
    case torch::kBFloat16:
      return ncclBfloat16;
    case torch::kInt64:
      return ncclInt64;
    case torch::kInt32:
      return ncclInt32;
    case torch::kUInt8:
      return ncclUint8;
    default:
      TB_CHECK(false, "NCCL cannot reduce tensors of type ", t.scalar_type());
  }
  return ncclFloat32;
}

}  // namespace

struct NcclCommunicator::State {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
};

bool ncclBuiltIn() { return true; }

std::string ncclVersionText() {
  int version = 0;
  if (ncclGetVersion(&version) != ncclSuccess) return "NCCL (version unknown)";
  // Since 2.9 the code is major*10000 + minor*100 + patch.
  return str("NCCL ", version / 10000, ".", version / 100 % 100, ".", version % 100);
}

int cudaRuntimeDeviceCount() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

NcclCommunicator::NcclCommunicator(const std::vector<Device>& devices) : devices_(devices) {
  TB_CHECK(!devices_.empty(), "NCCL needs at least one device");
  const int available = cudaRuntimeDeviceCount();
  TB_CHECK(available > 0, ncclVersionText(),
           " is built in, but no CUDA device is available (the CUDA runtime sees none), so "
           "NCCL cannot run here; use CPU towers");
  std::vector<int> ordinals;
  for (const auto& d : devices_) {
    TB_CHECK(d.isCuda(), "NCCL towers must be on CUDA devices, got ", d.toString());
    TB_CHECK(d.index < available, "device ", d.toString(), " does not exist (", available,
             " CUDA devices)");
    ordinals.push_back(d.index);
  }
  state_ = new State;
  state_->comms.resize(ordinals.size());
  checkNccl(
      ncclCommInitAll(state_->comms.data(), static_cast<int>(ordinals.size()), ordinals.data()),
      "ncclCommInitAll");
  for (int ordinal : ordinals) {
    checkCuda(cudaSetDevice(ordinal), "cudaSetDevice");
    cudaStream_t stream = nullptr;
    checkCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    state_->streams.push_back(stream);
  }
}

NcclCommunicator::~NcclCommunicator() {
  if (!state_) return;
  for (auto comm : state_->comms) ncclCommDestroy(comm);
  for (auto stream : state_->streams) cudaStreamDestroy(stream);
  delete state_;
}

void NcclCommunicator::allReduce(PerTower& tensors, ReduceOp op) {
  checkPerTower(tensors);
  TB_CHECK(tensors.size() == devices_.size(), "expected ", devices_.size(), " towers, got ",
           tensors.size());
  // LibTorch's work on each device must be done before NCCL reads the buffers.
  for (const auto& d : devices_) {
    checkCuda(cudaSetDevice(d.index), "cudaSetDevice");
    checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  checkNccl(ncclGroupStart(), "ncclGroupStart");
  for (size_t t = 0; t < tensors.size(); ++t) {
    for (auto& tensor : tensors[t]) {
      TB_CHECK(tensor.is_cuda() && tensor.is_contiguous(), "NCCL needs contiguous CUDA tensors");
      checkNccl(ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), tensor.numel(),
                              ncclType(tensor), op == ReduceOp::Average ? ncclAvg : ncclSum,
                              state_->comms[t], state_->streams[t]),
                "ncclAllReduce");
    }
  }
  checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  barrier();
}

void NcclCommunicator::broadcast(PerTower& tensors, int root) {
  checkPerTower(tensors);
  TB_CHECK(root >= 0 && root < static_cast<int>(tensors.size()), "broadcast root ", root,
           " is not a tower");
  for (const auto& d : devices_) {
    checkCuda(cudaSetDevice(d.index), "cudaSetDevice");
    checkCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  checkNccl(ncclGroupStart(), "ncclGroupStart");
  for (size_t t = 0; t < tensors.size(); ++t) {
    for (size_t i = 0; i < tensors[t].size(); ++i) {
      auto& tensor = tensors[t][i];
      checkNccl(ncclBroadcast(tensors[root][i].data_ptr(), tensor.data_ptr(), tensor.numel(),
                              ncclType(tensor), root, state_->comms[t], state_->streams[t]),
                "ncclBroadcast");
    }
  }
  checkNccl(ncclGroupEnd(), "ncclGroupEnd");
  barrier();
}

void NcclCommunicator::barrier() {
  for (size_t t = 0; t < state_->streams.size(); ++t) {
    checkCuda(cudaSetDevice(devices_[t].index), "cudaSetDevice");
    checkCuda(cudaStreamSynchronize(state_->streams[t]), "cudaStreamSynchronize");
  }
}

#else  // no NCCL

struct NcclCommunicator::State {};

bool ncclBuiltIn() { return false; }
std::string ncclVersionText() { return "NCCL not built in (CMake found no CUDA/NCCL)"; }
int cudaRuntimeDeviceCount() { return 0; }

NcclCommunicator::NcclCommunicator(const std::vector<Device>& devices) : devices_(devices) {
  TB_CHECK(false,
           "this Towerbench was built without NCCL (CMake found no CUDA/NCCL); "
           "use CPU towers or rebuild where CUDA and NCCL are installed");
}
NcclCommunicator::~NcclCommunicator() = default;
void NcclCommunicator::allReduce(PerTower&, ReduceOp) {}
void NcclCommunicator::broadcast(PerTower&, int) {}
void NcclCommunicator::barrier() {}

#endif

}  // namespace tbench
