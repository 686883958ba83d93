#include "engine/callbacks/GpuUtilizationTracker.h"

#include <algorithm>
#include <optional>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/core/Nvml.h"

namespace tbench {

namespace {

constexpr double kBytesPerMB = 1024.0 * 1024.0;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : "; ") + item;
  return out;
}

}  // namespace

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
  stop();  // a second beforeTrain must not leave a sampling thread behind
  if (cudaDevices_.empty()) return "no CUDA device to watch (the towers run on the CPU)";
  std::string reason;
  auto nvml = NvmlLibrary::open(options_.library, reason);
  if (!nvml) return reason;
  unsigned int count = 0;
  if (const nvml_abi::Return status = nvml->deviceGetCount(&count); status != nvml_abi::kSuccess) {
    return str("nvmlDeviceGetCount_v2 failed: ", nvml->errorString(status));
  }
  if (count == 0) return "NVML sees no GPU";

  std::vector<DeviceStats> devices;
  std::vector<std::string> unavailable;
  for (int cuda : cudaDevices_) {
    std::string why;
    const std::optional<unsigned int> index = nvmlIndexOf(cuda, &why);
    if (!index) {
      unavailable.push_back(why);
      continue;
    }
    nvml_abi::DeviceHandle handle = nullptr;
    const nvml_abi::Return status = nvml->deviceGetHandleByIndex(*index, &handle);
    if (status != nvml_abi::kSuccess) {
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
    nvml_abi::Return utilizationStatus;
    nvml_abi::Utilization utilization;
    nvml_abi::Return memoryStatus;
    nvml_abi::Memory memory;
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
      if ((r.utilizationStatus != nvml_abi::kSuccess || r.memoryStatus != nvml_abi::kSuccess) &&
          !device.reportedError) {
        device.reportedError = true;
        const nvml_abi::Return status =
            r.utilizationStatus != nvml_abi::kSuccess ? r.utilizationStatus : r.memoryStatus;
        errors.push_back(str("cuda:", device.cudaIndex, ": ", nvml_->errorString(status)));
      }
      if (!collecting_ && !always) continue;
      if (r.utilizationStatus == nvml_abi::kSuccess) {
        device.utilizationSum += r.utilization.gpu;
        ++device.utilizationSamples;
      }
      if (r.memoryStatus == nvml_abi::kSuccess) {
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
