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

std::string cudaDeviceDetails(int cudaIndex, const std::string& nvmlLibrary) {
  std::string reason;
  const auto nvml = NvmlLibrary::open(nvmlLibrary, reason);
  if (!nvml) return "NVML not available: " + reason;
  const std::optional<unsigned int> index = nvmlIndexOf(cudaIndex);
  if (!index) return str("cuda:", cudaIndex, " is not in CUDA_VISIBLE_DEVICES");
  nvml_abi::DeviceHandle device = nullptr;
  if (const auto status = nvml->deviceGetHandleByIndex(*index, &device);
      status != nvml_abi::kSuccess) {
    return str("NVML device ", *index, ": ", nvml->errorString(status));
  }
  constexpr unsigned long long kMiB = 1ULL << 20;
  nvml_abi::Memory memory{};
  const auto status = nvml->deviceGetMemoryInfo(device, &memory);
  if (status != nvml_abi::kSuccess) {
    return str(nvml->deviceName(device), ", memory unknown: ", nvml->errorString(status));
  }
  return str(nvml->deviceName(device), ", ", memory.total / kMiB, " MiB, ", memory.free / kMiB,
             " MiB free");
}

void requireAvailable(const Device& device) {
  for (const auto& d : availableDevices()) {
    if (d == device) return;
  }
  throw InputError(str("device \"", device.toString(),
                       "\" is not available (available: ", availableDevicesText(), ")"));
}

}  // namespace tbench
