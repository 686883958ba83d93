#include "engine/callbacks/GpuUtilizationTracker.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

// Note [NVML without its header]: the few NVML types and entry points used here are declared
// by hand, as in nvml.h (stable across drivers since the _v2 names of CUDA 5.5), so that
// building needs no CUDA toolkit and running needs no driver. An nvmlDevice_t is an opaque
// pointer; every function returns an nvmlReturn_t, 0 meaning success. The structs live in a
// named namespace because NvmlLibrary, which has external linkage, refers to them.
namespace nvml_abi {

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

namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
using nvmlUtilization_t = nvml_abi::Utilization;
using nvmlMemory_t = nvml_abi::Memory;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr unsigned int kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

constexpr double kBytesPerMB = 1024.0 * 1024.0;

/// The NVML index of CUDA device `cudaIndex`. CUDA_VISIBLE_DEVICES renumbers the devices CUDA
/// sees; NVML always sees them all. Entries that are not integers (UUIDs, MIG names) cannot be
/// mapped without CUDA, so the CUDA index is used as is; nullopt when the list is shorter.
std::optional<unsigned int> nvmlIndexOf(int cudaIndex) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return static_cast<unsigned int>(cudaIndex);
  std::vector<unsigned int> ids;
  std::istringstream in(visible);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long id = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || id < 0) return static_cast<unsigned int>(cudaIndex);
    ids.push_back(static_cast<unsigned int>(id));
  }
  if (static_cast<size_t>(cudaIndex) >= ids.size()) return std::nullopt;
  return ids[static_cast<size_t>(cudaIndex)];
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : "; ") + item;
  return out;
}

}  // namespace

/// NVML loaded with dlopen and initialised; the destructor shuts it down and unloads it. NVML
/// counts nvmlInit/nvmlShutdown pairs and the loader counts dlopen/dlclose, so several
/// instances may coexist. The functions are thread-safe (NVML's guarantee).
class NvmlLibrary {
 public:
  /// Loads `library`, finds the functions and calls nvmlInit_v2; null with `reason` set when
  /// any of that fails.
  static std::unique_ptr<NvmlLibrary> open(const std::string& library, std::string& reason);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  std::string errorString(nvmlReturn_t code) const;
  /// The driver version ("535.104.05"), or a note saying why it is unknown.
  std::string driverVersion() const;

  nvmlReturn_t (*deviceGetCount)(unsigned int*) = nullptr;
  nvmlReturn_t (*deviceGetHandleByIndex)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*deviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*deviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t*) = nullptr;

 private:
  explicit NvmlLibrary(void* handle) : handle_(handle) {}
  /// Looks `name` up; false with `reason` set when the library lacks it.
  template <typename Function>
  bool find(const char* name, Function& out, std::string& reason) {
    dlerror();
    out = reinterpret_cast<Function>(dlsym(handle_, name));
    if (out != nullptr) return true;
    const char* error = dlerror();
    reason = error != nullptr ? error : str(name, " not found");
    return false;
  }

  void* handle_;
  bool initialized_ = false;
  nvmlReturn_t (*init_)() = nullptr;
  nvmlReturn_t (*shutdown_)() = nullptr;
  const char* (*errorString_)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*systemGetDriverVersion_)(char*, unsigned int) = nullptr;
};

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
      !nvml->find("nvmlDeviceGetCount_v2", nvml->deviceGetCount, reason) ||
      !nvml->find("nvmlDeviceGetHandleByIndex_v2", nvml->deviceGetHandleByIndex, reason) ||
      !nvml->find("nvmlDeviceGetUtilizationRates", nvml->deviceGetUtilizationRates, reason) ||
      !nvml->find("nvmlDeviceGetMemoryInfo", nvml->deviceGetMemoryInfo, reason)) {
    return nullptr;
  }
  const nvmlReturn_t status = nvml->init_();
  if (status != kNvmlSuccess) {
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

std::string NvmlLibrary::errorString(nvmlReturn_t code) const {
  const char* text = errorString_ != nullptr ? errorString_(code) : nullptr;
  return text != nullptr ? str(text, " (NVML error ", code, ")") : str("NVML error ", code);
}

std::string NvmlLibrary::driverVersion() const {
  char version[kDriverVersionBufferSize] = {};
  const nvmlReturn_t status = systemGetDriverVersion_(version, kDriverVersionBufferSize);
  if (status != kNvmlSuccess) return str("(driver version unknown: ", errorString(status), ")");
  return version;
}

std::string nvmlStatusText(const std::string& library) {
  std::string reason;
  const auto nvml = NvmlLibrary::open(library, reason);
  if (!nvml) return "NVML not available: " + reason;
  return "NVML " + nvml->driverVersion() + " found";
}

// ---- GpuUtilizationTracker

GpuUtilizationTracker::GpuUtilizationTracker(std::vector<int> cudaDevices, Options options)
    : cudaDevices_(std::move(cudaDevices)), options_(std::move(options)) {
  for (int index : cudaDevices_) TB_CHECK(index >= 0, "a CUDA device index is >= 0, got ", index);
  TB_CHECK(options_.interval.count() > 0, "the sampling interval must be positive, got ",
           options_.interval.count(), " ms");
  std::sort(cudaDevices_.begin(), cudaDevices_.end());
  cudaDevices_.erase(std::unique(cudaDevices_.begin(), cudaDevices_.end()), cudaDevices_.end());
}

GpuUtilizationTracker::~GpuUtilizationTracker() { stop(); }

void GpuUtilizationTracker::onBeforeTrain() {
  const std::string reason = start();
  if (!reason.empty()) {
    TB_LOG(Warning) << "GpuUtilizationTracker: no GPU statistics in this run: " << reason;
  }
}

std::string GpuUtilizationTracker::start() {
  if (cudaDevices_.empty()) return "no CUDA device to watch (the towers run on the CPU)";
  std::string reason;
  auto nvml = NvmlLibrary::open(options_.library, reason);
  if (!nvml) return reason;
  unsigned int count = 0;
  if (const nvmlReturn_t status = nvml->deviceGetCount(&count); status != kNvmlSuccess) {
    return str("nvmlDeviceGetCount_v2 failed: ", nvml->errorString(status));
  }
  if (count == 0) return "NVML sees no GPU";

  std::vector<DeviceStats> devices;
  std::vector<std::string> unavailable;
  for (int cuda : cudaDevices_) {
    const std::optional<unsigned int> index = nvmlIndexOf(cuda);
    if (!index) {
      unavailable.push_back(str("cuda:", cuda, " is not in CUDA_VISIBLE_DEVICES"));
      continue;
    }
    nvmlDevice_t handle = nullptr;
    const nvmlReturn_t status = nvml->deviceGetHandleByIndex(*index, &handle);
    if (status != kNvmlSuccess) {
      unavailable.push_back(str("cuda:", cuda, " (NVML device ", *index, " of ", count,
                                "): ", nvml->errorString(status)));
      continue;
    }
    DeviceStats device;
    device.cudaIndex = cuda;
    device.handle = handle;
    devices.push_back(device);
  }
  if (devices.empty()) return join(unavailable);
  if (!unavailable.empty()) {
    TB_LOG(Warning) << "GpuUtilizationTracker: not watching " << join(unavailable);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    devices_ = std::move(devices);
    collecting_ = false;
    stopping_ = false;
  }
  nvml_ = std::move(nvml);
  thread_ = std::thread([this] { samplingLoop(); });
  return {};
}

void GpuUtilizationTracker::samplingLoop() {
  try {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      sampleAll(false);
      lock.lock();
      wake_.wait_for(lock, options_.interval, [this] { return stopping_; });
    }
  } catch (const std::exception& e) {
    // Statistics are never worth a failed run: the epoch figures simply stop changing.
    TB_LOG(Warning) << "GpuUtilizationTracker: sampling stopped: " << e.what();
  } catch (...) {
    TB_LOG(Warning) << "GpuUtilizationTracker: sampling stopped by an unknown exception";
  }
}

void GpuUtilizationTracker::sampleAll(bool always) {
  // Handles and nvml_ do not change while sampling runs (set before the thread starts, reset
  // after it is joined), so NVML is read without the lock; only the statistics take it.
  struct Reading {
    nvmlReturn_t utilizationStatus;
    nvmlUtilization_t utilization;
    nvmlReturn_t memoryStatus;
    nvmlMemory_t memory;
  };
  std::vector<Reading> readings(devices_.size());
  for (size_t i = 0; i < devices_.size(); ++i) {
    Reading& r = readings[i];
    r.utilization = {};
    r.memory = {};
    r.utilizationStatus = nvml_->deviceGetUtilizationRates(devices_[i].handle, &r.utilization);
    r.memoryStatus = nvml_->deviceGetMemoryInfo(devices_[i].handle, &r.memory);
  }

  std::vector<std::string> errors;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < devices_.size(); ++i) {
      DeviceStats& device = devices_[i];
      const Reading& r = readings[i];
      if ((r.utilizationStatus != kNvmlSuccess || r.memoryStatus != kNvmlSuccess) &&
          !device.reportedError) {
        device.reportedError = true;
        const nvmlReturn_t status =
            r.utilizationStatus != kNvmlSuccess ? r.utilizationStatus : r.memoryStatus;
        errors.push_back(str("cuda:", device.cudaIndex, ": ", nvml_->errorString(status)));
      }
      if (!collecting_ && !always) continue;
      if (r.utilizationStatus == kNvmlSuccess) {
        device.utilizationSum += r.utilization.gpu;
        ++device.utilizationSamples;
      }
      if (r.memoryStatus == kNvmlSuccess) {
        device.peakUsedBytes = std::max(device.peakUsedBytes, r.memory.used);
        ++device.memorySamples;
      }
    }
  }
  for (const auto& error : errors) {
    TB_LOG(Warning) << "GpuUtilizationTracker: cannot read " << error
                    << " (its figures leave out such samples)";
  }
}

void GpuUtilizationTracker::onBeforeEpoch() {
  if (!nvml_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (DeviceStats& device : devices_) {
    device.utilizationSum = 0;
    device.utilizationSamples = 0;
    device.peakUsedBytes = 0;
    device.memorySamples = 0;
  }
  collecting_ = true;
}

void GpuUtilizationTracker::onAfterEpoch() {
  if (!nvml_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  collecting_ = false;
}

void GpuUtilizationTracker::onTriggerEpoch() {
  if (!nvml_) return;
  bool missing = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const DeviceStats& device : devices_) {
      missing = missing || device.utilizationSamples == 0 || device.memorySamples == 0;
    }
  }
  if (missing) sampleAll(true);  // an epoch shorter than one interval

  std::vector<DeviceStats> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot = devices_;
  }
  MonitorSink& monitors = context().monitors();
  for (const DeviceStats& device : snapshot) {
    const std::string suffix = str("/cuda:", device.cudaIndex);
    if (device.utilizationSamples > 0) {
      monitors.putScalar("GPUUtil" + suffix,
                         device.utilizationSum / static_cast<double>(device.utilizationSamples));
    }
    if (device.memorySamples > 0) {
      monitors.putScalar("PeakMemory(MB)" + suffix,
                         static_cast<double>(device.peakUsedBytes) / kBytesPerMB);
    }
  }
}

void GpuUtilizationTracker::onAfterTrain() { stop(); }

void GpuUtilizationTracker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  devices_.clear();
  collecting_ = false;
  nvml_.reset();  // nvmlShutdown and dlclose, once no thread can use it
}

}  // namespace tbench
