#pragma once
// GpuUtilizationTracker: the GPUs' utilisation and peak memory, per epoch, read through NVML
// (tensorpack's GPUUtilizationTracker and PeakMemoryTracker in one callback).
//
// NVML is loaded at run time (engine/core/Nvml.h: dlopen "libnvidia-ml.so.1", never linked),
// so the engine builds and runs on machines without an NVIDIA driver. When the library is missing,
// nvmlInit fails, or none of the watched devices can be opened, beforeTrain logs one warning naming
// the reason and the callback does nothing for the rest of the run (training is never affected).
//
// Otherwise a sampling thread reads every watched device every `interval` (200 ms by default)
// from beforeTrain to afterTrain; samples are kept between beforeEpoch and afterEpoch, and
// triggerEpoch puts, per device N:
//   "GPUUtil/cuda:N"         the mean GPU utilisation over the epoch's samples, in %
//   "PeakMemory(MB)/cuda:N"  the largest memory in use over the epoch, in MB (2^20 bytes)
// An epoch shorter than one interval gets one sample taken in triggerEpoch. The memory figure
// is NVML's device-wide "used", so it includes other processes on the same GPU.
//
// Device indices: the CUDA index N is mapped to NVML's index by nvmlIndexOf (through
// CUDA_VISIBLE_DEVICES: cuda:0 under CUDA_VISIBLE_DEVICES=2,3 is NVML device 2).
//
// Threads: hooks run on the engine thread; the sampling thread only reads NVML and updates the
// per-device statistics under one mutex. The thread is stopped and joined in afterTrain and,
// if training never got there, in the destructor.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/core/Nvml.h"

namespace tbench {

struct GpuUtilizationTrackerOptions {
  std::chrono::milliseconds interval{200};  ///< time between two samples of every device
  std::string library = kNvmlLibrary;       ///< the NVML library to dlopen (tests change it)
  GpuUtilizationTrackerOptions& every(std::chrono::milliseconds value) {
    interval = value;
    return *this;
  }
  GpuUtilizationTrackerOptions& libraryName(std::string value) {
    library = std::move(value);
    return *this;
  }
};

class GpuUtilizationTracker : public Callback {
 public:
  using Options = GpuUtilizationTrackerOptions;
  /// `cudaDevices`: the CUDA indices to watch (duplicates are watched once).
  explicit GpuUtilizationTracker(std::vector<int> cudaDevices, Options options = Options());
  ~GpuUtilizationTracker() override;
  GpuUtilizationTracker(const GpuUtilizationTracker&) = delete;
  GpuUtilizationTracker& operator=(const GpuUtilizationTracker&) = delete;

  /// True from a successful beforeTrain to afterTrain: NVML is loaded and devices are sampled.
  bool isSampling() const { return nvml_ != nullptr; }

 private:
  /// What one watched device saw since the last reset. Guarded by mutex_.
  struct DeviceStats {
    int cudaIndex = 0;
    nvml_abi::DeviceHandle handle = nullptr;
    double utilizationSum = 0;  ///< over utilizationSamples readings, in %
    int64_t utilizationSamples = 0;
    unsigned long long peakUsedBytes = 0;  ///< over memorySamples readings
    int64_t memorySamples = 0;
    bool reportedError = false;  ///< a failed read was logged once already
  };

  void onBeforeTrain() override;
  void onBeforeEpoch() override;
  void onAfterEpoch() override;
  void onTriggerEpoch() override;
  void onAfterTrain() override;

  /// Opens NVML and the watched devices; returns the reason when that is impossible.
  std::string start();
  /// Reads every device once and adds the readings when collecting (or `always`). Any thread.
  void sampleAll(bool always);
  void samplingLoop();
  /// Stops and joins the thread, then shuts NVML down and unloads it. Idempotent.
  void stop();

  std::vector<int> cudaDevices_;
  Options options_;
  std::unique_ptr<NvmlLibrary> nvml_;
  std::thread thread_;

  std::mutex mutex_;  // guards devices_' statistics, collecting_ and stopping_
  std::condition_variable wake_;
  std::vector<DeviceStats> devices_;
  bool collecting_ = false;  ///< between beforeEpoch and afterEpoch
  bool stopping_ = false;
};

}  // namespace tbench
