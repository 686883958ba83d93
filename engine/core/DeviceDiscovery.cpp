#include "engine/core/DeviceDiscovery.h"

#include <torch/cuda.h>

#include <algorithm>

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

namespace {

std::string describe(const NvmlLibrary& nvml, int cudaIndex) {
  std::string why;
  const std::optional<unsigned int> index = nvmlIndexOf(cudaIndex, &why);
  if (!index) return why;
  nvml_abi::DeviceHandle device = nullptr;
  if (const auto status = nvml.deviceGetHandleByIndex(*index, &device);
      status != nvml_abi::kSuccess) {
    return str("NVML device ", *index, ": ", nvml.errorString(status));
  }
  constexpr unsigned long long kMiB = 1ULL << 20;
  nvml_abi::Memory memory{};
  const auto status = nvml.deviceGetMemoryInfo(device, &memory);
  if (status != nvml_abi::kSuccess) {
    return str(nvml.deviceName(device), ", memory unknown: ", nvml.errorString(status));
  }
  return str(nvml.deviceName(device), ", ", memory.total / kMiB, " MiB, ", memory.free / kMiB,
             " MiB free");
}

}  // namespace

std::vector<std::string> describeCudaDevices(const std::vector<Device>& devices,
                                             const std::string& nvmlLibrary) {
  std::vector<std::string> details(devices.size());
  const bool anyCuda =
      std::any_of(devices.begin(), devices.end(), [](const Device& d) { return d.isCuda(); });
  if (!anyCuda) return details;
  std::string reason;
  const auto nvml = NvmlLibrary::open(nvmlLibrary, reason);
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i].isCuda()) continue;
    details[i] = nvml ? describe(*nvml, devices[i].index) : "NVML not available: " + reason;
  }
  return details;
}

void requireAvailable(const Device& device) {
  for (const auto& d : availableDevices()) {
    if (d == device) return;
  }
  throw InputError(str("device \"", device.toString(),
                       "\" is not available (available: ", availableDevicesText(), ")"));
}

}  // namespace tbench
