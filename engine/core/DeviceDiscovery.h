#pragma once
// What devices this process can run towers on, found at run time.

#include <string>
#include <vector>

#include "engine/core/Device.h"
#include "engine/core/Nvml.h"

namespace tbench {

/// "cpu" followed by "cuda:0".."cuda:N-1" for the CUDA devices LibTorch can use (none when
/// LibTorch was built without CUDA or no GPU is present).
std::vector<Device> availableDevices();

/// The same as strings, for messages: "cpu, cuda:0".
std::string availableDevicesText();

/// What NVML says of each device of `devices`, in order: for a CUDA device "NVIDIA
/// A100-SXM4-40GB, 40960 MiB, 40312 MiB free", or why it cannot tell ("NVML not available:
/// ..."); empty for the CPU. One NVML session for all of them (nvmlInit can take a second),
/// opened only when there is a CUDA device; no CUDA context is created and no CUDA LibTorch is
/// needed.
std::vector<std::string> describeCudaDevices(const std::vector<Device>& devices,
                                             const std::string& nvmlLibrary = kNvmlLibrary);

/// Throws InputError when `device` is not available, naming it and listing those that are.
void requireAvailable(const Device& device);

}  // namespace tbench
