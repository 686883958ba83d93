// TowerWorkers: one thread per device (Note [One thread per device]), towers of a device in
// order, every tower finishing its step before the first error is rethrown.

#include <QtTest>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/strategies/TowerWorkers.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_TowerWorkers {

using namespace tbench;

namespace {

const Device kCpu = Device::parse("cpu");
const Device kGpu0 = Device::parse("cuda:0");  // TowerWorkers never touches the device
const Device kGpu1 = Device::parse("cuda:1");

struct Trace {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  void record(int tower) {
    std::lock_guard<std::mutex> lock(mutex);
    order.push_back(tower);
    threads[static_cast<size_t>(tower)] = std::this_thread::get_id();
  }
};

}  // namespace

class TestTowerWorkers : public QObject {
  Q_OBJECT
 private slots:
  void towersOnOneDeviceRunInOrderOnTheCallingThread() {
    TowerWorkers workers({kCpu, kCpu, kCpu});
    QCOMPARE(workers.deviceCount(), 1);
    for (int step = 0; step < 3; ++step) {
      Trace trace;
      trace.threads.resize(3);
      workers.run([&](int t) { trace.record(t); });
      QCOMPARE(trace.order, (std::vector<int>{0, 1, 2}));
      for (const auto& id : trace.threads) QVERIFY(id == std::this_thread::get_id());
    }
  }

  void eachDeviceHasItsOwnThreadEveryStep() {
    TowerWorkers workers({kGpu0, kCpu, kGpu1, kCpu});
    QCOMPARE(workers.deviceCount(), 3);
    std::vector<std::thread::id> first;
    for (int step = 0; step < 4; ++step) {
      Trace trace;
      trace.threads.resize(4);
      workers.run([&](int t) { trace.record(t); });
      QCOMPARE(trace.order.size(), size_t{4});
      // The two CPU towers share a thread, in tower order; the others have their own.
      QVERIFY(trace.threads[1] == trace.threads[3]);
      const auto cpuFirst = std::find(trace.order.begin(), trace.order.end(), 1);
      QVERIFY(std::find(cpuFirst, trace.order.end(), 3) != trace.order.end());
      QVERIFY(trace.threads[0] != trace.threads[1] && trace.threads[2] != trace.threads[1] &&
              trace.threads[0] != trace.threads[2]);
      for (const auto& id : trace.threads) QVERIFY(id != std::this_thread::get_id());
      if (step == 0) {
        first = trace.threads;
      } else {
        QVERIFY(trace.threads == first);  // the same thread every step
      }
    }
  }

  void theFirstErrorIsRethrownAfterEveryTowerRan() {
    for (const std::vector<Device>& devices :
         {std::vector<Device>{kCpu, kCpu, kCpu}, std::vector<Device>{kGpu0, kGpu1, kCpu}}) {
      TowerWorkers workers(devices);
      std::mutex mutex;
      std::vector<int> ran;
      try {
        workers.run([&](int t) {
          {
            std::lock_guard<std::mutex> lock(mutex);
            ran.push_back(t);
          }
          if (t >= 1) throw std::out_of_range("tower " + std::to_string(t) + " failed");
        });
        QFAIL("no exception");
      } catch (const std::out_of_range& e) {
        QCOMPARE(std::string(e.what()), std::string("tower 1 failed"));  // tower order
      }
      std::sort(ran.begin(), ran.end());
      QCOMPARE(ran, (std::vector<int>{0, 1, 2}));
      // The next step starts clean.
      int count = 0;
      workers.run([&](int) {
        std::lock_guard<std::mutex> lock(mutex);
        ++count;
      });
      QCOMPARE(count, 3);
    }
  }
};

}  // namespace test_TowerWorkers

TB_TEST_GUILESS_MAIN(test_TowerWorkers::TestTowerWorkers)
#include "test_TowerWorkers.moc"
