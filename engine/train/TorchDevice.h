#pragma once
// Device -> torch::Device. Kept apart from Device.h so that torch-free code can use devices.

#include <torch/types.h>

#include "engine/core/Device.h"

namespace tbench {

inline torch::Device toTorch(const Device& device) {
  return device.isCuda() ? torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(device.index))
                         : torch::Device(torch::kCPU);
}

}  // namespace tbench
