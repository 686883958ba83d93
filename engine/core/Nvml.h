#pragma once
// NVML (the NVIDIA Management Library, what nvidia-smi uses), loaded at run time.
//
// Note [NVML without its header]: the few NVML types and entry points used here are declared
// by hand, as in nvml.h (stable across drivers since the _v2 names of CUDA 5.5), so that
// building needs no CUDA toolkit and running needs no driver: the library is dlopen'ed, never
// linked. An nvmlDevice_t is an opaque pointer; every function returns an nvmlReturn_t, 0
// meaning success. NVML reads device names and memory without creating a CUDA context.
//
// NVML counts nvmlInit/nvmlShutdown pairs and the loader counts dlopen/dlclose, so several
// NvmlLibrary instances may coexist; NVML's functions are thread-safe.

#include <memory>
#include <optional>
#include <string>

namespace tbench {

/// The file name loaded by default.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

namespace nvml_abi {

using Return = int;
using DeviceHandle = void*;
constexpr Return kSuccess = 0;

struct Utilization {
  unsigned int gpu;     // % of the last sample period a kernel was running
  unsigned int memory;  // % of it device memory was being read or written
};

struct Memory {
  unsigned long long total;  // bytes
  unsigned long long free;
  unsigned long long used;
};

}  // namespace nvml_abi

/// NVML loaded with dlopen and initialised; the destructor shuts it down and unloads it.
class NvmlLibrary {
 public:
  /// Loads `library`, finds the functions and calls nvmlInit_v2; null with `reason` set when
  /// any of that fails.
  static std::unique_ptr<NvmlLibrary> open(const std::string& library, std::string& reason);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  /// NVML's text for `code`, with the code.
  std::string errorString(nvml_abi::Return code) const;
  /// The driver version ("535.104.05"), or a note saying why it is unknown.
  std::string driverVersion() const;
  /// The product name of `device` ("NVIDIA A100-SXM4-40GB"), or a note saying why it is
  /// unknown.
  std::string deviceName(nvml_abi::DeviceHandle device) const;

  nvml_abi::Return (*deviceGetCount)(unsigned int*) = nullptr;
  nvml_abi::Return (*deviceGetHandleByIndex)(unsigned int, nvml_abi::DeviceHandle*) = nullptr;
  nvml_abi::Return (*deviceGetUtilizationRates)(nvml_abi::DeviceHandle,
                                                nvml_abi::Utilization*) = nullptr;
  nvml_abi::Return (*deviceGetMemoryInfo)(nvml_abi::DeviceHandle, nvml_abi::Memory*) = nullptr;

 private:
  explicit NvmlLibrary(void* handle) : handle_(handle) {}
  template <typename Function>
  bool find(const char* name, Function& out, std::string& reason);

  void* handle_;
  bool initialized_ = false;
  nvml_abi::Return (*init_)() = nullptr;
  nvml_abi::Return (*shutdown_)() = nullptr;
  const char* (*errorString_)(nvml_abi::Return) = nullptr;
  nvml_abi::Return (*systemGetDriverVersion_)(char*, unsigned int) = nullptr;
  nvml_abi::Return (*deviceGetName_)(nvml_abi::DeviceHandle, char*, unsigned int) = nullptr;
};

/// The NVML index of CUDA device `cudaIndex`. NVML always sees every GPU; CUDA_VISIBLE_DEVICES
/// renumbers the ones CUDA sees, and is read as CUDA reads it: the list ends at the first
/// entry that is not a device (so "2,-1,3" is cuda:0 = GPU 2 only). Entries naming a GPU by
/// UUID or MIG instance ("GPU-...", "MIG-...") cannot be mapped by index: nullopt, with the
/// reason in `*why`, as when `cudaIndex` is past the list. NVML numbers devices in PCI bus
/// order, CUDA by default fastest first: on a machine with mixed GPUs set
/// CUDA_DEVICE_ORDER=PCI_BUS_ID so that the two agree.
std::optional<unsigned int> nvmlIndexOf(int cudaIndex, std::string* why = nullptr);

/// "NVML <driver version> found", or "NVML not available: <reason>" (the dlopen error or
/// NVML's error string). Loads and unloads the library; safe to call from any thread.
std::string nvmlStatusText(const std::string& library = kNvmlLibrary);

}  // namespace tbench
