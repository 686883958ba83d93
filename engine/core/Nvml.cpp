#include "engine/core/Nvml.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/core/Check.h"

namespace tbench {

namespace {
constexpr unsigned int kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned int kDeviceNameBufferSize = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE
}  // namespace

template <typename Function>
bool NvmlLibrary::find(const char* name, Function& out, std::string& reason) {
  dlerror();
  out = reinterpret_cast<Function>(dlsym(handle_, name));
  if (out != nullptr) return true;
  const char* error = dlerror();
  reason = error != nullptr ? error : str(name, " not found");
  return false;
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(const std::string& library, std::string& reason) {
  dlerror();
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    reason = error != nullptr ? error : str("cannot load ", library);
    return nullptr;
  }
  std::unique_ptr<NvmlLibrary> nvml(new NvmlLibrary(handle));  // unloads on every early return
  if (!nvml->find("nvmlInit_v2", nvml->init_, reason) ||
      !nvml->find("nvmlShutdown", nvml->shutdown_, reason) ||
      !nvml->find("nvmlErrorString", nvml->errorString_, reason) ||
      !nvml->find("nvmlSystemGetDriverVersion", nvml->systemGetDriverVersion_, reason) ||
      !nvml->find("nvmlDeviceGetName", nvml->deviceGetName_, reason) ||
      !nvml->find("nvmlDeviceGetCount_v2", nvml->deviceGetCount, reason) ||
      !nvml->find("nvmlDeviceGetHandleByIndex_v2", nvml->deviceGetHandleByIndex, reason) ||
      !nvml->find("nvmlDeviceGetUtilizationRates", nvml->deviceGetUtilizationRates, reason) ||
      !nvml->find("nvmlDeviceGetMemoryInfo", nvml->deviceGetMemoryInfo, reason)) {
    return nullptr;
  }
  const nvml_abi::Return status = nvml->init_();
  if (status != nvml_abi::kSuccess) {
    reason = str("nvmlInit_v2 failed: ", nvml->errorString(status));
    return nullptr;
  }
  nvml->initialized_ = true;
  return nvml;
}

NvmlLibrary::~NvmlLibrary() {
  if (initialized_) shutdown_();
  dlclose(handle_);
}

std::string NvmlLibrary::errorString(nvml_abi::Return code) const {
  const char* text = errorString_ != nullptr ? errorString_(code) : nullptr;
  return text != nullptr ? str(text, " (NVML error ", code, ")") : str("NVML error ", code);
}

std::string NvmlLibrary::driverVersion() const {
  char version[kDriverVersionBufferSize] = {};
  const nvml_abi::Return status = systemGetDriverVersion_(version, kDriverVersionBufferSize);
  if (status != nvml_abi::kSuccess) {
    return str("(driver version unknown: ", errorString(status), ")");
  }
  return version;
}

std::string NvmlLibrary::deviceName(nvml_abi::DeviceHandle device) const {
  char name[kDeviceNameBufferSize] = {};
  const nvml_abi::Return status = deviceGetName_(device, name, kDeviceNameBufferSize);
  if (status != nvml_abi::kSuccess) return str("(name unknown: ", errorString(status), ")");
  return name;
}

std::optional<unsigned int> nvmlIndexOf(int cudaIndex, std::string* why) {
  const auto fail = [&](std::string reason) -> std::optional<unsigned int> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') {
    if (cudaIndex < 0) return fail(str("cuda:", cudaIndex, " is not a CUDA device"));
    return static_cast<unsigned int>(cudaIndex);
  }
  std::istringstream in(visible);
  std::string item;
  for (int position = 0; std::getline(in, item, ','); ++position) {
    if (item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0) {
      if (position == cudaIndex) {
        return fail(str("cuda:", cudaIndex, " is ", item, " in CUDA_VISIBLE_DEVICES, a UUID that ",
                        "is not mapped to an NVML index"));
      }
      continue;
    }
    char* end = nullptr;
    const long id = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || id < 0) break;  // CUDA stops reading here
    if (position == cudaIndex) return static_cast<unsigned int>(id);
  }
  return fail(str("cuda:", cudaIndex, " is not in CUDA_VISIBLE_DEVICES=", visible));
}

std::string nvmlStatusText(const std::string& library) {
  std::string reason;
  const auto nvml = NvmlLibrary::open(library, reason);
  if (!nvml) return "NVML not available: " + reason;
  return "NVML " + nvml->driverVersion() + " found";
}

}  // namespace tbench
