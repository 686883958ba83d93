// The random generators in checkpoints: the CPU generator's state and the CUDA generators' of the
// devices in use (Checkpoint.h: restoreRngState; captureState calls captureCudaRngStates).

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/torch.h>

#include <mutex>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/CheckpointDetail.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

namespace checkpoint_detail {

/// The CUDA generators' states of the devices that have a CUDA context (those the process
/// used); none without CUDA. Asking only those keeps a CPU run on a GPU machine from creating
/// a context (hundreds of MB of device memory) at every checkpoint.
std::map<std::string, torch::Tensor> captureCudaRngStates() {
  std::map<std::string, torch::Tensor> states;
  if (!torch::cuda::is_available()) return states;
  const auto& hooks = at::detail::getCUDAHooks();
  for (int64_t index = 0; index < static_cast<int64_t>(torch::cuda::device_count()); ++index) {
    if (!hooks.hasPrimaryContext(index)) continue;
    auto generator = at::globalContext().defaultGenerator(at::Device(at::kCUDA, index));
    std::lock_guard<std::mutex> lock(generator.mutex());
    states["cuda:" + std::to_string(index)] = generator.get_state();
  }
  return states;
}

}  // namespace checkpoint_detail

using checkpoint_detail::prefix;
using checkpoint_detail::torchReason;

void restoreRngState(const TrainingState& state) {
  if (!state.rngState.defined() || state.rngState.numel() == 0) {
    TB_LOG(Warning) << prefix(state.path)
                    << "the checkpoint has no random generator state; keeping the current one";
  } else {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    try {
      generator.set_state(state.rngState);
    } catch (const std::exception& e) {
      throw InputError(str(prefix(state.path), "the random generator state does not fit (",
                           torchReason(e), ")"));
    }
  }
  const int64_t devices =
      torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  for (const auto& [device, bytes] : state.cudaRngStates) {
    int64_t index = -1;
    try {
      index = std::stoll(device.substr(5));
    } catch (const std::exception&) {
    }
    if (index < 0 || index >= devices) {
      TB_LOG(Warning) << prefix(state.path) << "the random generator state of " << device
                      << " is not restored: this machine has "
                      << (devices ? str(devices, " CUDA device(s)") : std::string("no CUDA"))
                      << "; random draws on the GPU differ from the run that was saved";
      continue;
    }
    auto generator = at::globalContext().defaultGenerator(at::Device(at::kCUDA, index));
    std::lock_guard<std::mutex> lock(generator.mutex());
    try {
      generator.set_state(bytes);
    } catch (const std::exception& e) {
      throw InputError(str(prefix(state.path), "the random generator state of ", device,
                           " does not fit (", torchReason(e), ")"));
    }
  }
}

}  // namespace tbench
