#pragma once
// What devices this process can run towers on, found at run time.

#include <string>
#include <vector>

#include "engine/core/Device.h"

namespace tbench {

/// "cpu" followed by "cuda:0".."cuda:N-1" for the CUDA devices LibTorch can use (none when
/// LibTorch was built without CUDA or no GPU is present).
std::vector<Device> availableDevices();

/// The same as strings, for messages: "cpu, cuda:0".
std::string availableDevicesText();

/// Throws InputError when `device` is not available, naming it and listing those that are.
void requireAvailable(const Device& device);

}  // namespace tbench
