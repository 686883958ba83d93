#include "engine/comm/Communicator.h"

#include <algorithm>

#include "engine/comm/InProcessCommunicator.h"
#include "engine/comm/NcclCommunicator.h"

namespace tbench {

std::unique_ptr<Communicator> makeCommunicator(const std::vector<Device>& devices) {
  const bool allCuda = !devices.empty() && std::all_of(devices.begin(), devices.end(),
                                                       [](const Device& d) { return d.isCuda(); });
  if (allCuda && ncclBuiltIn()) return std::make_unique<NcclCommunicator>(devices);
  return std::make_unique<InProcessCommunicator>();
}

}  // namespace tbench
