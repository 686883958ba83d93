#include "engine/core/DeviceDiscovery.h"

#include <torch/cuda.h>

#include "engine/core/Check.h"

namespace tbench {

std::vector<Device> availableDevices() {
  std::vector<Device> devices{Device{}};
  const int cuda = static_cast<int>(torch::cuda::device_count());
  for (int i = 0; i < cuda; ++i) devices.push_back(Device{Device::Kind::Cuda, i});
  return devices;
}

std::string availableDevicesText() {
  std::string text;
  for (const auto& d : availableDevices()) text += (text.empty() ? "" : ", ") + d.toString();
  return text;
}

void requireAvailable(const Device& device) {
  for (const auto& d : availableDevices()) {
    if (d == device) return;
  }
  throw InputError(str("device \"", device.toString(),
                       "\" is not available (available: ", availableDevicesText(), ")"));
}

}  // namespace tbench
