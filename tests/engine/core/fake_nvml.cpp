// A stand-in for libnvidia-ml.so.1 with the entry points GpuUtilizationTracker loads, so that
// its sampling path runs on machines without an NVIDIA driver. It has kFakeDevices devices whose
// readings the test sets through fakeNvmlSet (found with dlsym on the same handle); every other
// function behaves as NVML documents it. Thread-safe: the tracker samples on its own thread.

#include <atomic>
#include <cstdio>
#include <cstring>

namespace {

constexpr unsigned int kFakeDevices = 2;

struct FakeDevice {
  std::atomic<unsigned int> utilization{0};  // %
  std::atomic<unsigned long long> used{0};   // bytes
  std::atomic<long long> reads{0};           // calls of either reading function
};

FakeDevice devices[kFakeDevices];
std::atomic<int> initCount{0};

struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

constexpr int kSuccess = 0;
constexpr int kUninitialized = 1;
constexpr int kInvalidArgument = 2;

FakeDevice* deviceOf(void* handle) {
  for (auto& d : devices) {
    if (handle == &d) return &d;
  }
  return nullptr;
}

}  // namespace

extern "C" {

// ---- what the test drives

/// Sets what device `index` reports from now on.
void fakeNvmlSet(unsigned int index, unsigned int utilization, unsigned long long usedBytes) {
  devices[index].utilization = utilization;
  devices[index].used = usedBytes;
}

/// How many readings of device `index` were taken so far.
long long fakeNvmlReads(unsigned int index) { return devices[index].reads; }

/// nvmlInit_v2 calls not yet matched by nvmlShutdown.
int fakeNvmlInitCount() { return initCount; }

// ---- NVML's ABI

int nvmlInit_v2() {
  ++initCount;
  return kSuccess;
}

int nvmlShutdown() {
  if (initCount == 0) return kUninitialized;
  --initCount;
  return kSuccess;
}

const char* nvmlErrorString(int code) {
  switch (code) {
    case kSuccess:
      return "Success";
    case kUninitialized:
      return "Uninitialized";
    case kInvalidArgument:
      return "Invalid Argument";
    default:
      return "Unknown Error";
  }
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  if (length == 0) return kInvalidArgument;
  std::snprintf(version, length, "%s", "999.99.fake");
  return kSuccess;
}

int nvmlDeviceGetName(void* handle, char* name, unsigned int length) {
  FakeDevice* d = deviceOf(handle);
  if (initCount == 0) return kUninitialized;
  if (d == nullptr || length == 0) return kInvalidArgument;
  std::snprintf(name, length, "Fake GPU %d", static_cast<int>(d - devices));
  return kSuccess;
}

int nvmlDeviceGetCount_v2(unsigned int* count) {
  if (initCount == 0) return kUninitialized;
  *count = kFakeDevices;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** handle) {
  if (initCount == 0) return kUninitialized;
  if (index >= kFakeDevices) return kInvalidArgument;
  *handle = &devices[index];
  return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* handle, Utilization* out) {
  FakeDevice* d = deviceOf(handle);
  if (initCount == 0) return kUninitialized;
  if (d == nullptr) return kInvalidArgument;
  ++d->reads;
  out->gpu = d->utilization;
  out->memory = 0;
  return kSuccess;
}

int nvmlDeviceGetMemoryInfo(void* handle, Memory* out) {
  FakeDevice* d = deviceOf(handle);
  if (initCount == 0) return kUninitialized;
  if (d == nullptr) return kInvalidArgument;
  ++d->reads;
  out->total = 16ULL << 30;
  out->used = d->used;
  out->free = out->total - out->used;
  return kSuccess;
}

}  // extern "C"
