// NVML loaded at run time: device details for the devices panel and `towerbench-cli devices`,
// CUDA_VISIBLE_DEVICES mapping, and clear reasons when there is no driver. Runs against
// fake_nvml (two devices) and the system's NVML, which is absent on the build machines.

#include <QtTest>

#include <dlfcn.h>

#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Nvml.h"
#include "tests/support/ScopedEnvironment.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Nvml {

using namespace tbench;

namespace {

constexpr const char* kMissing = "libtowerbench-no-such-nvml.so.1";

/// CUDA_VISIBLE_DEVICES set to `value` (unset when null) for a scope.
struct ScopedVisibleDevices : tbench::testing::ScopedEnvironment {
  explicit ScopedVisibleDevices(const char* value)
      : ScopedEnvironment("CUDA_VISIBLE_DEVICES", value) {}
};

Device cuda(int index) { return Device{Device::Kind::Cuda, index}; }

std::string detailsOf(int cudaIndex) {
  return describeCudaDevices({cuda(cudaIndex)}, FAKE_NVML_LIBRARY).at(0);
}

}  // namespace

class TestNvml : public QObject {
  Q_OBJECT
 private slots:
  void detailsNameTheDeviceAndItsMemory() {
    void* fake = dlopen(FAKE_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(fake != nullptr, dlerror());
    auto set = reinterpret_cast<void (*)(unsigned, unsigned, unsigned long long)>(
        dlsym(fake, "fakeNvmlSet"));
    QVERIFY(set != nullptr);
    set(0, 0, 1ULL << 30);  // 1 GiB used of the fake's 16 GiB
    set(1, 0, 3ULL << 30);
    ScopedVisibleDevices all(nullptr);
    QCOMPARE(detailsOf(0), std::string("Fake GPU 0, 16384 MiB, 15360 MiB free"));
    QCOMPARE(detailsOf(1), std::string("Fake GPU 1, 16384 MiB, 13312 MiB free"));
    QCOMPARE(describeCudaDevices({cuda(1), Device{}, cuda(0)}, FAKE_NVML_LIBRARY),
             (std::vector<std::string>{"Fake GPU 1, 16384 MiB, 13312 MiB free", "",
                                       "Fake GPU 0, 16384 MiB, 15360 MiB free"}));
    // Only the CPU: NVML is not even loaded (a missing library would name itself).
    QCOMPARE(describeCudaDevices({Device{}}, kMissing), std::vector<std::string>{""});
    const std::string beyond = detailsOf(2);
    QVERIFY2(beyond.rfind("NVML device 2: ", 0) == 0, beyond.c_str());
    {
      ScopedVisibleDevices second("1");
      QCOMPARE(detailsOf(0), std::string("Fake GPU 1, 16384 MiB, 13312 MiB free"));
      QCOMPARE(detailsOf(1), std::string("cuda:1 is not in CUDA_VISIBLE_DEVICES=1"));
    }
    dlclose(fake);
  }

  void indexMappingReadsTheListAsCudaDoes() {
    ScopedVisibleDevices none(nullptr);
    QCOMPARE(nvmlIndexOf(3), std::optional<unsigned int>(3));
    {
      ScopedVisibleDevices list("2,3");
      QCOMPARE(nvmlIndexOf(0), std::optional<unsigned int>(2));
      QCOMPARE(nvmlIndexOf(1), std::optional<unsigned int>(3));
      std::string why;
      QCOMPARE(nvmlIndexOf(2, &why), std::optional<unsigned int>());
      QCOMPARE(why, std::string("cuda:2 is not in CUDA_VISIBLE_DEVICES=2,3"));
    }
    {
      ScopedVisibleDevices cut("2,-1,3");  // CUDA sees GPU 2 only
      QCOMPARE(nvmlIndexOf(0), std::optional<unsigned int>(2));
      QCOMPARE(nvmlIndexOf(1), std::optional<unsigned int>());
    }
    {
      ScopedVisibleDevices uuids("1,GPU-8f3a");
      QCOMPARE(nvmlIndexOf(0), std::optional<unsigned int>(1));
      std::string why;
      QCOMPARE(nvmlIndexOf(1, &why), std::optional<unsigned int>());
      QVERIFY2(why.find("GPU-8f3a") != std::string::npos && why.find("UUID") != std::string::npos,
               why.c_str());
    }
  }

  void withoutADriverTheReasonNamesTheLibrary() {
    const std::vector<std::string> all = describeCudaDevices({cuda(0), cuda(1)}, kMissing);
    QCOMPARE(all.size(), size_t{2});
    const std::string& details = all[1];
    QVERIFY2(details.rfind("NVML not available: ", 0) == 0, details.c_str());
    QVERIFY2(details.find(kMissing) != std::string::npos, details.c_str());
    QCOMPARE(nvmlStatusText(FAKE_NVML_LIBRARY), std::string("NVML 999.99.fake found"));
    const std::string system = nvmlStatusText();
    QVERIFY2(system.rfind("NVML ", 0) == 0 && system.size() > 12, system.c_str());
  }
};

}  // namespace test_Nvml

TB_TEST_GUILESS_MAIN(test_Nvml::TestNvml)
#include "test_Nvml.moc"
