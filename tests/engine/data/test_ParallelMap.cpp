// MultiThreadMapData and PrefetchData: order, completeness, exceptions carried to the consumer,
// early closes and new passes, tiny buffers, and the DataFlow contract.

#include <QtTest/QtTest>

#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/Check.h"
#include "engine/data/DataFromList.h"
#include "engine/data/MultiThreadMapData.h"
#include "engine/data/PrefetchData.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ParallelMap {

using namespace tbench;

namespace {

std::shared_ptr<DataFromList> numbers(int64_t n) {
  std::vector<Datapoint> points;
  for (int64_t i = 0; i < n; ++i) points.push_back({torch::tensor(i)});
  return std::make_shared<DataFromList>(std::move(points));
}

int64_t valueOf(const Datapoint& point) { return point.at(0).item<int64_t>(); }

// The first component of every point of one pass; at most `cap` of them.
std::vector<int64_t> collect(DataFlow& flow, size_t cap = 100000) {
  std::vector<int64_t> values;
  DataPass pass = flow.pass();
  Datapoint point;
  while (values.size() < cap && pass.next(point)) values.push_back(valueOf(point));
  return values;
}

std::vector<int64_t> multiples(int64_t n, int64_t factor) {
  std::vector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = i * factor;
  return values;
}

// Doubles the value after a short wait that varies with it, so that workers finish out of
// order.
std::optional<Datapoint> slowDouble(Datapoint point) {
  const int64_t v = valueOf(point);
  std::this_thread::sleep_for(std::chrono::microseconds((v * 7919) % 300));
  return Datapoint{torch::tensor(v * 2)};
}

using Options = MultiThreadMapData::Options;

// A flow whose child throws InputError when it reaches `failAt`.
class FailingSource : public DataFlow {
 public:
  explicit FailingSource(int64_t failAt) : failAt_(failAt) {}

 protected:
  void startPass() override { next_ = 0; }
  bool nextPoint(Datapoint& out) override {
    if (next_ == failAt_) throw InputError("the source broke at " + std::to_string(failAt_));
    out = {torch::tensor(next_++)};
    return true;
  }

 private:
  int64_t failAt_;
  int64_t next_ = 0;
};

// Runs `f`, which must throw E; returns its message.
template <typename E, typename F>
std::string messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

class TestParallelMap : public QObject {
  Q_OBJECT

 private slots:
  // Note [Pipeline threads]: the workers decode and augment on one intra-op thread each, as
  // DataLoader workers do, and leave the consumer's setting alone.
  void workersRunOnOneIntraOpThread() {
    const int before = at::get_num_threads();
    at::set_num_threads(4);
    std::mutex mutex;
    std::set<int> workerThreads;
    std::vector<Datapoint> points;
    for (int i = 0; i < 40; ++i) points.push_back({torch::full({1}, i, torch::kInt64)});
    MultiThreadMapData map(std::make_shared<DataFromList>(points), 2,
                           [&](Datapoint p) -> std::optional<Datapoint> {
                             std::lock_guard<std::mutex> lock(mutex);
                             workerThreads.insert(at::get_num_threads());
                             return p;
                           });
    map.resetState();
    int64_t count = 0;
    DataPass pass = map.pass();
    Datapoint point;
    while (pass.next(point)) ++count;
    const int consumerThreads = at::get_num_threads();
    at::set_num_threads(before);
    QCOMPARE(count, int64_t{40});
    QCOMPARE(workerThreads, (std::set<int>{1}));
    QCOMPARE(consumerThreads, 4);
  }

  void orderedKeepsTheChildsOrder() {
    for (int64_t threads : {0, 1, 2, 4}) {
      MultiThreadMapData flow(numbers(300), threads, slowDouble, Options().bufferSize(8));
      QCOMPARE(flow.size().value(), int64_t{300});
      flow.resetState();
      QCOMPARE(collect(flow), multiples(300, 2));
      QCOMPARE(collect(flow), multiples(300, 2));  // a second pass, the same
    }
  }

  void unorderedDeliversEveryElementAsItFinishes() {
    // Point 0 is slow: unordered, the others overtake it; ordered, it comes first anyway.
    auto slowFirst = [](Datapoint point) -> std::optional<Datapoint> {
      if (valueOf(point) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return point;
    };
    MultiThreadMapData unordered(numbers(200), 3, slowFirst,
                                 Options().bufferSize(16).ordered(false));
    unordered.resetState();
    std::vector<int64_t> values = collect(unordered);
    QVERIFY(values.front() != 0);
    std::sort(values.begin(), values.end());
    QCOMPARE(values, multiples(200, 1));

    MultiThreadMapData ordered(numbers(50), 3, slowFirst, Options().bufferSize(16));
    ordered.resetState();
    QCOMPARE(collect(ordered), multiples(50, 1));
  }

  void anExceptionInAWorkerReachesTheConsumer() {
    auto failAt37 = [](Datapoint point) -> std::optional<Datapoint> {
      if (valueOf(point) == 37) throw InputError("cannot map point 37");
      return point;
    };
    for (int64_t threads : {0, 1, 3}) {
      MultiThreadMapData flow(numbers(100), threads, failAt37, Options().bufferSize(4));
      flow.resetState();
      DataPass pass = flow.pass();
      Datapoint point;
      std::vector<int64_t> before;
      const std::string message = messageOf<InputError>([&] {
        while (pass.next(point)) before.push_back(valueOf(point));
      });
      QCOMPARE(message, std::string("cannot map point 37"));
      QCOMPARE(before, multiples(37, 1));  // ordered: everything before it, then the error
      QVERIFY(!pass.next(point));          // the pass is over
    }
    // Unordered: the error still arrives, with its type and message.
    MultiThreadMapData unordered(numbers(100), 3, failAt37, Options().ordered(false));
    unordered.resetState();
    QCOMPARE(messageOf<InputError>([&] { collect(unordered); }),
             std::string("cannot map point 37"));
    // The child's own exception, thrown on a worker.
    MultiThreadMapData child(std::make_shared<FailingSource>(12), 2, slowDouble);
    child.resetState();
    std::vector<int64_t> got;
    QCOMPARE(messageOf<InputError>([&] {
               DataPass pass = child.pass();
               Datapoint p;
               while (pass.next(p)) got.push_back(valueOf(p));
             }),
             std::string("the source broke at 12"));
    QCOMPARE(got, multiples(12, 2));
    // A failed pass does not poison the next one.
    QCOMPARE(messageOf<InputError>([&] { collect(child); }), std::string("the source broke at 12"));
  }

  void droppedPointsNeedMayDrop() {
    auto evensOnly = [](Datapoint point) -> std::optional<Datapoint> {
      if (valueOf(point) % 2) return std::nullopt;
      return point;
    };
    MultiThreadMapData dropping(numbers(100), 2, evensOnly, Options().bufferSize(3).mayDrop(true));
    QVERIFY(!dropping.size().has_value());
    dropping.resetState();
    QCOMPARE(collect(dropping), multiples(50, 2));
    MultiThreadMapData strict(numbers(100), 2, evensOnly);
    strict.resetState();
    QVERIFY(messageOf<CheckError>([&] { collect(strict); }).find("mayDrop") != std::string::npos);
  }

  void closingEarlyStopsTheWorkersAndANewPassWorks() {
    std::atomic<int64_t> calls{0};
    auto counted = [&](Datapoint point) -> std::optional<Datapoint> {
      ++calls;
      return slowDouble(std::move(point));
    };
    MultiThreadMapData flow(numbers(1000), 4, counted, Options().bufferSize(6));
    flow.resetState();
    {
      DataPass pass = flow.pass();
      Datapoint point;
      for (int i = 0; i < 3; ++i) QVERIFY(pass.next(point));
      QCOMPARE(valueOf(point), int64_t{4});
    }  // closed with the buffer full and workers waiting for room
    const int64_t afterClose = calls.load();
    QVERIFY(afterClose <= 3 + 6);  // delivered + buffer: the most that can be taken
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    QCOMPARE(calls.load(), afterClose);  // nobody is still working
    QCOMPARE(collect(flow), multiples(1000, 2));
    // Many passes closed at varying points: no hang, no lost or repeated point afterwards.
    for (size_t cap : {0, 1, 5, 17, 100, 999}) QCOMPARE(collect(flow, cap).size(), cap);
    QCOMPARE(collect(flow), multiples(1000, 2));
  }

  void aBufferOfOneDoesNotDeadlock() {
    for (bool ordered : {true, false}) {
      MultiThreadMapData flow(numbers(500), 4, slowDouble,
                              Options().bufferSize(1).ordered(ordered));
      flow.resetState();
      std::vector<int64_t> values = collect(flow);
      if (!ordered) std::sort(values.begin(), values.end());
      QCOMPARE(values, multiples(500, 2));
    }
  }

  void followsTheDataFlowContract() {
    MultiThreadMapData flow(numbers(10), 2, slowDouble);
    QVERIFY(messageOf<CheckError>([&] { flow.pass(); }).find("resetState() must be called") !=
            std::string::npos);
    flow.resetState();  // resets the child as well: its pass opens
    QVERIFY(messageOf<CheckError>([&] { flow.resetState(); }).find("once and only once") !=
            std::string::npos);
    DataPass open = flow.pass();
    QVERIFY(messageOf<CheckError>([&] { flow.pass(); }).find("already open") != std::string::npos);
    QVERIFY(messageOf<CheckError>([&] {
              MultiThreadMapData(numbers(3), -1, slowDouble);
            }).find("numThreads must be >= 0") != std::string::npos);
    QVERIFY(messageOf<CheckError>([&] {
              MultiThreadMapData(numbers(3), 1, slowDouble, Options().bufferSize(0));
            }).find("bufferSize must be >= 1") != std::string::npos);
  }

  void prefetchKeepsOrderAndCarriesErrors() {
    PrefetchData flow(numbers(300), 4);
    QCOMPARE(flow.size().value(), int64_t{300});
    flow.resetState();
    QCOMPARE(collect(flow), multiples(300, 1));
    QCOMPARE(collect(flow, 7).size(), size_t{7});  // closed early
    QCOMPARE(collect(flow), multiples(300, 1));

    PrefetchData failing(std::make_shared<FailingSource>(5), 2);
    failing.resetState();
    std::vector<int64_t> got;
    QCOMPARE(messageOf<InputError>([&] {
               DataPass pass = failing.pass();
               Datapoint p;
               while (pass.next(p)) got.push_back(valueOf(p));
             }),
             std::string("the source broke at 5"));
    QCOMPARE(got, multiples(5, 1));
  }
};

}  // namespace test_ParallelMap

TB_TEST_MAIN(test_ParallelMap::TestParallelMap)
#include "test_ParallelMap.moc"
