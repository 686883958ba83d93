// GpuUtilizationTracker through the real loop (NoOpTrainer + DummyConstantInput). Without
// NVML (no driver, or a library name that does not exist) the run must go on with one warning
// and no GPU scalars; with NVML and a GPU the scalars must be there every epoch. The sampling
// path is exercised on every machine through tests/engine/core/fake_nvml.cpp, a library with
// NVML's entry points whose readings the test sets epoch by epoch.

#include <QtTest>

#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/callbacks/GpuUtilizationTracker.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/ScalarHistory.h"
#include "tests/support/Recorder.h"
#include "tests/support/ScopedEnvironment.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_GpuUtilizationTracker {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;
using tbench::testing::Recorder;

namespace {

constexpr const char* kMissingLibrary = "libtowerbench-no-such-nvml.so.1";
const std::string kUnavailable = "NVML not available: ";

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

/// The warnings logged by GpuUtilizationTracker while it lives.
class CapturedWarnings {
 public:
  CapturedWarnings() { logging::setExtraSink(&CapturedWarnings::sink, this); }
  ~CapturedWarnings() { logging::setExtraSink(nullptr, nullptr); }
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
  std::vector<std::string> lines;

 private:
  static void sink(LogLevel level, const std::string& line, void* user) {
    if (level >= LogLevel::Warning && line.find("GpuUtilizationTracker") != std::string::npos) {
      static_cast<CapturedWarnings*>(user)->lines.push_back(line);
    }
  }
};

struct RunResult {
  std::shared_ptr<ScalarHistory> history;
  std::vector<std::string> warnings;
  int64_t epochsTriggered = 0;  ///< by a Recorder registered after the tracker
};

constexpr int64_t kEpochs = 2;

/// Trains kEpochs epochs of 3 no-op steps with `tracker` and a ScalarHistory; `before`, when
/// given, is registered ahead of the tracker; every step lasts at least `stepTime`.
RunResult runWith(const std::shared_ptr<GpuUtilizationTracker>& tracker,
                  const CallbackPtr& before = nullptr,
                  std::chrono::milliseconds stepTime = std::chrono::milliseconds(0)) {
  CapturedWarnings captured;
  auto trainer = makeNoOpTrainer([stepTime](NoOpTrainer&) {
    if (stepTime.count() > 0) std::this_thread::sleep_for(stepTime);
  });
  auto history = std::make_shared<ScalarHistory>();
  trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{history}));
  auto recorder = std::make_shared<Recorder>();
  if (before) trainer->registerCallback(before);
  trainer->registerCallback(tracker);
  trainer->registerCallback(recorder);
  LoopOptions loop;
  loop.stepsPerEpoch = 3;
  loop.maxEpoch = kEpochs;
  trainer->train(loop);
  const auto epochs = std::count_if(recorder->events.begin(), recorder->events.end(),
                                    [](const std::string& e) { return startsWith(e, "trigger "); });
  return {history, captured.lines, static_cast<int64_t>(epochs)};
}

/// The names of the scalars GpuUtilizationTracker puts, found in `history`.
std::vector<std::string> gpuScalars(const ScalarHistory& history) {
  std::vector<std::string> names;
  for (const auto& name : history.names()) {
    if (startsWith(name, "GPUUtil/") || startsWith(name, "PeakMemory(MB)/")) {
      names.push_back(name);
    }
  }
  return names;
}

/// The values of `name` in `history`, in order.
std::vector<double> valuesOf(const ScalarHistory& history, const std::string& name) {
  std::vector<double> values;
  for (const auto& point : history.get(name)) values.push_back(point.value);
  return values;
}

constexpr unsigned long long kMiB = 1ULL << 20;

/// fake_nvml.cpp, loaded once more by the test (the same instance the tracker dlopens) to set
/// its readings and look at its counters.
class FakeNvml {
 public:
  FakeNvml() : handle_(dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) return;
    set = reinterpret_cast<decltype(set)>(dlsym(handle_, "fakeNvmlSet"));
    reads = reinterpret_cast<decltype(reads)>(dlsym(handle_, "fakeNvmlReads"));
    initCount = reinterpret_cast<decltype(initCount)>(dlsym(handle_, "fakeNvmlInitCount"));
  }
  ~FakeNvml() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  FakeNvml(const FakeNvml&) = delete;
  FakeNvml& operator=(const FakeNvml&) = delete;
  bool loaded() const { return set != nullptr && reads != nullptr && initCount != nullptr; }

  void (*set)(unsigned int, unsigned int, unsigned long long) = nullptr;
  long long (*reads)(unsigned int) = nullptr;
  int (*initCount)() = nullptr;

 private:
  void* handle_;
};

GpuUtilizationTracker::Options fakeOptions() {
  return GpuUtilizationTracker::Options()
      .libraryName(FAKE_NVML_LIBRARY)
      .every(std::chrono::milliseconds(1));
}

/// CUDA_VISIBLE_DEVICES set to `value` (unset when null) for a scope.
struct ScopedVisibleDevices : tbench::testing::ScopedEnvironment {
  explicit ScopedVisibleDevices(const char* value)
      : ScopedEnvironment("CUDA_VISIBLE_DEVICES", value) {}
};

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

}  // namespace

class TestGpuUtilizationTracker : public QObject {
  Q_OBJECT
 private slots:
  void missingLibraryWarnsOnceAndPutsNothing() {
    auto tracker = std::make_shared<GpuUtilizationTracker>(
        std::vector<int>{0}, GpuUtilizationTracker::Options().libraryName(kMissingLibrary));
    const RunResult run = runWith(tracker);
    QVERIFY2(run.warnings.size() == 1, joined(run.warnings).c_str());
    // The reason is dlopen's message, which names the library.
    QVERIFY2(run.warnings[0].find(kMissingLibrary) != std::string::npos, run.warnings[0].c_str());
    QVERIFY2(gpuScalars(*run.history).empty(), joined(gpuScalars(*run.history)).c_str());
    QVERIFY(!tracker->isSampling());
    QCOMPARE(run.epochsTriggered, kEpochs);  // training went on as usual
  }

  void noCudaDeviceWarnsOnce() {
    auto tracker = std::make_shared<GpuUtilizationTracker>(std::vector<int>{});
    const RunResult run = runWith(tracker);
    QVERIFY2(run.warnings.size() == 1, joined(run.warnings).c_str());
    QVERIFY2(run.warnings[0].find("no CUDA device") != std::string::npos, run.warnings[0].c_str());
    QVERIFY(gpuScalars(*run.history).empty());
    QCOMPARE(run.epochsTriggered, kEpochs);
  }

  void rejectsNegativeIndex() {
    const std::vector<int> devices{0, -1};
    QVERIFY_THROWS_EXCEPTION(CheckError, GpuUtilizationTracker tracker(devices));
  }

  void statusTextOfMissingLibraryNamesIt() {
    const std::string status = nvmlStatusText(kMissingLibrary);
    QVERIFY2(startsWith(status, kUnavailable), status.c_str());
    QVERIFY2(status.find(kMissingLibrary) != std::string::npos, status.c_str());
  }

  void fakeNvmlGivesEachEpochItsOwnMeanAndPeak() {
    FakeNvml fake;
    QVERIFY2(fake.loaded(), dlerror());
    ScopedVisibleDevices visible(nullptr);
    // Registered ahead of the tracker: the readings change before its beforeEpoch resets the
    // epoch's statistics. Epoch 2 reads lower than epoch 1, so a figure that leaked from the
    // previous epoch (no reset) would show.
    CallbackFactory::Hooks hooks;
    hooks.beforeEpoch = [&](TrainerContext& c) {
      const bool first = c.epochNum() == 1;
      fake.set(0, first ? 80 : 20, (first ? 300 : 100) * kMiB);
      fake.set(1, 50, 2048 * kMiB);
    };
    auto setter = std::make_shared<CallbackFactory>("set readings", hooks);
    const long long readsBefore = fake.reads(0) + fake.reads(1);
    auto tracker =
        std::make_shared<GpuUtilizationTracker>(std::vector<int>{1, 0, 1}, fakeOptions());
    const RunResult run = runWith(tracker, setter, std::chrono::milliseconds(3));
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QCOMPARE(run.epochsTriggered, kEpochs);
    QCOMPARE(valuesOf(*run.history, "GPUUtil/cuda:0"), (std::vector<double>{80, 20}));
    QCOMPARE(valuesOf(*run.history, "PeakMemory(MB)/cuda:0"), (std::vector<double>{300, 100}));
    QCOMPARE(valuesOf(*run.history, "GPUUtil/cuda:1"), (std::vector<double>{50, 50}));
    QCOMPARE(valuesOf(*run.history, "PeakMemory(MB)/cuda:1"), (std::vector<double>{2048, 2048}));
    QCOMPARE(gpuScalars(*run.history).size(), size_t{4});  // cuda:1 watched once
    // 2 epochs x 3 steps x 3 ms against a 1 ms interval: the thread sampled, not only the
    // fallback reading in triggerEpoch (one per device and epoch, two functions each).
    QVERIFY2(fake.reads(0) + fake.reads(1) - readsBefore > 2 * 2 * kEpochs,
             std::to_string(fake.reads(0) + fake.reads(1) - readsBefore).c_str());
    QVERIFY(!tracker->isSampling());
    QCOMPARE(fake.initCount(), 0);  // nvmlShutdown matched nvmlInit_v2
  }

  void cudaVisibleDevicesRenumbersTheWatchedDevices() {
    FakeNvml fake;
    QVERIFY2(fake.loaded(), dlerror());
    fake.set(0, 10, 100 * kMiB);
    fake.set(1, 70, 700 * kMiB);
    ScopedVisibleDevices visible("1");
    // cuda:0 is NVML device 1; cuda:1 does not exist under this CUDA_VISIBLE_DEVICES.
    auto tracker = std::make_shared<GpuUtilizationTracker>(std::vector<int>{0, 1}, fakeOptions());
    const RunResult run = runWith(tracker);
    QVERIFY2(run.warnings.size() == 1, joined(run.warnings).c_str());
    QVERIFY2(run.warnings[0].find("cuda:1 is not in CUDA_VISIBLE_DEVICES") != std::string::npos,
             run.warnings[0].c_str());
    QCOMPARE(valuesOf(*run.history, "GPUUtil/cuda:0"), (std::vector<double>{70, 70}));
    QCOMPARE(valuesOf(*run.history, "PeakMemory(MB)/cuda:0"), (std::vector<double>{700, 700}));
    QCOMPARE(gpuScalars(*run.history).size(), size_t{2});
  }

  void aDeviceNvmlDoesNotHaveIsNamedAndTheOthersAreWatched() {
    FakeNvml fake;
    QVERIFY2(fake.loaded(), dlerror());
    fake.set(0, 35, 512 * kMiB);
    ScopedVisibleDevices visible(nullptr);
    auto tracker = std::make_shared<GpuUtilizationTracker>(std::vector<int>{0, 5}, fakeOptions());
    const RunResult run = runWith(tracker);
    QVERIFY2(run.warnings.size() == 1, joined(run.warnings).c_str());
    QVERIFY2(run.warnings[0].find("cuda:5 (NVML device 5 of 2)") != std::string::npos,
             run.warnings[0].c_str());
    QCOMPARE(valuesOf(*run.history, "GPUUtil/cuda:0"), (std::vector<double>{35, 35}));
    QCOMPARE(valuesOf(*run.history, "PeakMemory(MB)/cuda:0"), (std::vector<double>{512, 512}));
  }

  void statusTextOfFakeNvmlNamesTheDriver() {
    QCOMPARE(nvmlStatusText(FAKE_NVML_LIBRARY), std::string("NVML 999.99.fake found"));
  }

  void systemNvmlEitherWorksOrIsReportedMissing() {
    const std::string status = nvmlStatusText();
    auto tracker = std::make_shared<GpuUtilizationTracker>(std::vector<int>{0});
    const RunResult run = runWith(tracker);
    if (startsWith(status, kUnavailable)) {
      // This machine has no driver: a reason follows the prefix, one warning, no scalars.
      QVERIFY2(status.size() > kUnavailable.size(), status.c_str());
      QVERIFY2(run.warnings.size() == 1, joined(run.warnings).c_str());
      QVERIFY2(gpuScalars(*run.history).empty(), joined(gpuScalars(*run.history)).c_str());
      return;
    }
    // NVML is present: the status names the driver and cuda:0 is measured every epoch.
    QVERIFY2(startsWith(status, "NVML ") && status.size() > 11 &&
                 status.compare(status.size() - 6, 6, " found") == 0,
             status.c_str());
    QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
    QCOMPARE(run.epochsTriggered, kEpochs);
    const auto& utilization = run.history->get("GPUUtil/cuda:0");
    const auto& memory = run.history->get("PeakMemory(MB)/cuda:0");
    QCOMPARE(static_cast<int64_t>(utilization.size()), kEpochs);
    QCOMPARE(static_cast<int64_t>(memory.size()), kEpochs);
    for (const auto& point : utilization) QVERIFY(point.value >= 0 && point.value <= 100);
    for (const auto& point : memory) QVERIFY(point.value > 0);
    QVERIFY(!tracker->isSampling());  // stopped in afterTrain
  }
};

}  // namespace test_GpuUtilizationTracker

TB_TEST_GUILESS_MAIN(test_GpuUtilizationTracker::TestGpuUtilizationTracker)
#include "test_GpuUtilizationTracker.moc"
