#include "engine/comm/Communicator.h"

#include <algorithm>

#include <torch/torch.h>

#include "engine/comm/InProcessCommunicator.h"
#include "engine/comm/NcclCommunicator.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

std::unique_ptr<Communicator> makeCommunicator(const std::vector<Device>& devices) {
  const bool allCuda = !devices.empty() && std::all_of(devices.begin(), devices.end(),
                                                       [](const Device& d) { return d.isCuda(); });
  if (allCuda && ncclBuiltIn()) {
    // One NCCL communicator has one rank per GPU: towers sharing a GPU (["cuda:0", "cuda:0"]
    // on a one-GPU machine) make ncclCommInitAll fail with "Duplicate GPU detected".
    std::vector<int> ordinals;
    for (const Device& d : devices) ordinals.push_back(d.index);
    std::sort(ordinals.begin(), ordinals.end());
    if (std::adjacent_find(ordinals.begin(), ordinals.end()) == ordinals.end()) {
      return std::make_unique<NcclCommunicator>(devices);
    }
    TB_LOG(Info) << "towers share a GPU, which NCCL cannot reduce across: in-process all-reduce";
  }
  return std::make_unique<InProcessCommunicator>();
}

std::vector<torch::Tensor> UnusedParameters::fill(const std::vector<torch::Tensor>& params) {
  if (used_.empty()) used_.assign(params.size(), false);
  TB_CHECK(used_.size() == params.size(), "towers with different parameter counts: ", used_.size(),
           " and ", params.size());
  std::vector<torch::Tensor> grads;
  grads.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor& p = params[i];
    if (p.grad().defined()) {
      used_[i] = true;
    } else {
      p.mutable_grad() = torch::zeros_like(p);
    }
    grads.push_back(p.grad());
  }
  return grads;
}

void UnusedParameters::restore(const std::vector<torch::Tensor>& params) const {
  for (size_t i = 0; i < params.size() && i < used_.size(); ++i) {
    if (!used_[i]) params[i].mutable_grad() = torch::Tensor();
  }
}

}  // namespace tbench
