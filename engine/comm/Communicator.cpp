#include "engine/comm/Communicator.h"

#include <algorithm>

#include "engine/comm/InProcessCommunicator.h"
#include "engine/comm/NcclCommunicator.h"
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

}  // namespace tbench
