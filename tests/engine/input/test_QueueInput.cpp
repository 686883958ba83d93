// QueueInput with a slow DataFlow and with one that throws; FeedInput; DummyConstantInput.

#include <QtTest>

#include <mutex>
#include <set>
#include <thread>

#include "engine/core/Check.h"
#include "engine/core/Environment.h"
#include "engine/data/DataFromList.h"
#include "engine/data/MapData.h"
#include "engine/input/DummyConstantInput.h"
#include "engine/input/FeedInput.h"
#include "engine/input/QueueInput.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/train/NoOpTrainer.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_QueueInput {

using namespace tbench;

namespace {

const std::vector<InputSpec> kSpecs = {{"x", torch::kInt64, {-1}}};

/// Points {[i]} for i in [0, n).
std::shared_ptr<DataFromList> counting(int n) {
  std::vector<Datapoint> points;
  for (int i = 0; i < n; ++i) points.push_back({torch::full({1}, i, torch::kInt64)});
  return std::make_shared<DataFromList>(points);
}

int64_t valueOf(const Batch& b) { return b["x"].item<int64_t>(); }

}  // namespace

class TestQueueInput : public QObject {
  Q_OBJECT
 private slots:
  // Issue 24: the producer batched and normalised with as many intra-op threads as the step,
  // so on a small machine its OpenMP team and the step's fought for the cores (queue_input
  // trained the MLP at half of simple's rate). It now runs on one (Note [Pipeline threads]),
  // and the training thread keeps its own setting.
  void producerRunsOnOneIntraOpThread() {
    const int before = at::get_num_threads();
    at::set_num_threads(4);
    std::mutex mutex;
    std::set<int> producerThreads;
    auto recording =
        std::make_shared<MapData>(counting(50), [&](Datapoint p) -> std::optional<Datapoint> {
          // A parallel operation as batching does one, then the setting it ran under.
          p[0] = p[0] + torch::zeros({1}, torch::kInt64);
          std::lock_guard<std::mutex> lock(mutex);
          producerThreads.insert(at::get_num_threads());
          return p;
        });
    auto input = std::make_shared<QueueInput>(recording, 4);
    NoOpTrainer trainer(input, kSpecs, [](NoOpTrainer&) {});
    trainer.train({10, 1, 3});
    const int trainingThreads = at::get_num_threads();
    at::set_num_threads(before);
    QCOMPARE(producerThreads, (std::set<int>{1}));
    QCOMPARE(trainingThreads, 4);
  }

  void deliversInOrderAndRepeatsPasses() {
    QueueInput input(counting(5), 3);
    input.setup(kSpecs);
    std::vector<int64_t> seen;
    for (int i = 0; i < 12; ++i) seen.push_back(valueOf(input.nextBatch()));
    QCOMPARE(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1}));
    input.stop();
  }

  void slowDataFlowThroughTheRealLoop() {
    auto slow =
        std::make_shared<MapData>(counting(100), [](Datapoint p) -> std::optional<Datapoint> {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          return p;
        });
    auto input = std::make_shared<QueueInput>(slow, 4);
    std::vector<int64_t> seen;
    NoOpTrainer trainer(input, kSpecs,
                        [&](NoOpTrainer& t) { seen.push_back(valueOf(t.lastBatch())); });
    auto history = std::make_shared<ScalarHistory>();
    trainer.setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{history}));
    trainer.train({10, 1, 2});
    QCOMPARE(seen.size(), size_t{20});
    for (int i = 0; i < 20; ++i) QCOMPARE(seen[i], int64_t{i});
    // The trainer outpaces the data: the queue is nearly empty whenever it asks.
    const auto& size = history->get("QueueInput/queue_size");
    QCOMPARE(size.size(), size_t{2});
    QVERIFY2(size[1].value < 1.0, qPrintable(QString::number(size[1].value)));
    // The same as a share of the capacity (4), for the window's data-bound indicator.
    const auto& fullness = history->get("QueueInput/queue_fullness");
    QCOMPARE(fullness.size(), size_t{2});
    QCOMPARE(fullness[1].value, size[1].value / 4.0);
  }

  void fastDataFlowFillsTheQueue() {
    auto input = std::make_shared<QueueInput>(counting(1000), 8);
    NoOpTrainer trainer(input, kSpecs, [](NoOpTrainer&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    });
    auto history = std::make_shared<ScalarHistory>();
    trainer.setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{history}));
    trainer.train({20, 1, 1});
    QVERIFY2(history->get("QueueInput/queue_size").at(0).value > 5.0,
             qPrintable(QString::number(history->get("QueueInput/queue_size").at(0).value)));
    const double fullness = history->get("QueueInput/queue_fullness").at(0).value;
    QVERIFY2(fullness > 5.0 / 8.0 && fullness <= 1.0, qPrintable(QString::number(fullness)));
  }

  void exceptionInDataFlowIsRethrownWithItsMessage() {
    auto failing =
        std::make_shared<MapData>(counting(10), [](Datapoint p) -> std::optional<Datapoint> {
          if (p[0].item<int64_t>() == 6) throw std::runtime_error("corrupt record 6 in shard.bin");
          return p;
        });
    auto input = std::make_shared<QueueInput>(failing, 2);
    std::vector<int64_t> seen;
    NoOpTrainer trainer(input, kSpecs,
                        [&](NoOpTrainer& t) { seen.push_back(valueOf(t.lastBatch())); });
    try {
      trainer.train({100, 1, 1});
      QFAIL("expected the DataFlow's exception");
    } catch (const std::runtime_error& e) {
      QCOMPARE(std::string(e.what()), std::string("corrupt record 6 in shard.bin"));
    }
    // Everything produced before the failure was consumed first.
    QCOMPARE(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  }

  void stopNeverLeavesTheThreadHanging() {
    // The worker blocks on a full queue; stop() must wake and join it at once.
    auto input = std::make_shared<QueueInput>(counting(1000), 2);
    input->setup(kSpecs);
    input->start();
    QTRY_COMPARE(input->queueSize(), int64_t{2});
    QElapsedTimer timer;
    timer.start();
    input->stop();
    QVERIFY(timer.elapsed() < 1000);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, input->nextBatch());
  }

  void emptyDataFlowIsAnError() {
    // From the producer thread and from the training thread alike.
    for (auto producer : {QueueInput::Producer::Thread, QueueInput::Producer::TrainingThread}) {
      QueueInput input(counting(0), 2);
      input.setProducer(producer);
      input.setup(kSpecs);
      try {
        input.nextBatch();
        QFAIL("expected an InputError");
      } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("no data") != std::string::npos, e.what());
      }
    }
  }

  // Note [Producer on the training thread]: where every tower is on the CPU and the step's
  // intra-op threads take every core, the batches are made on the training thread (a producer
  // thread could only run by preempting the step); the same batches in the same order, the
  // same skip on resume and the same errors as the thread.
  void producesOnTheTrainingThreadWhereTheStepTakesEveryCore() {
    const int before = at::get_num_threads();
    at::set_num_threads(static_cast<int>(coresForThisProcess()));
    std::set<std::thread::id> producers;
    auto recording =
        std::make_shared<MapData>(counting(5), [&](Datapoint p) -> std::optional<Datapoint> {
          producers.insert(std::this_thread::get_id());
          return p;
        });
    QueueInput input(recording, 3);
    input.setTowerDevices({Device{}});
    input.setup(kSpecs);
    input.skipBatches(2);
    QCOMPARE(input.producer(), QueueInput::Producer::Auto);
    input.start();
    const QueueInput::Producer chosen = input.producer();
    std::vector<int64_t> seen;
    for (int i = 0; i < 10; ++i) seen.push_back(valueOf(input.nextBatch()));
    at::set_num_threads(before);
    QCOMPARE(chosen, QueueInput::Producer::TrainingThread);
    QCOMPARE(seen, (std::vector<int64_t>{2, 3, 4, 0, 1, 2, 3, 4, 0, 1}));
    QCOMPARE(producers, (std::set<std::thread::id>{std::this_thread::get_id()}));
    QCOMPARE(input.queueSize(), int64_t{0});
    input.stop();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, input.nextBatch());
  }

  void keepsTheThreadWhereItHasACoreOfItsOwn() {
    const auto chosenFor = [](const std::vector<Device>& towers, int threads,
                              QueueInput::Producer asked) {
      const int before = at::get_num_threads();
      at::set_num_threads(threads);
      QueueInput input(counting(4), 2);
      input.setProducer(asked);
      input.setTowerDevices(towers);
      input.setup(kSpecs);
      input.start();
      const int64_t first = valueOf(input.nextBatch());
      at::set_num_threads(before);
      input.stop();
      return std::make_pair(input.producer(), first);
    };
    const int cores = static_cast<int>(coresForThisProcess());
    using P = QueueInput::Producer;
    // A CUDA tower leaves the CPU's cores to the producer (the step runs on the GPU).
    QCOMPARE(chosenFor({Device::parse("cuda:0")}, cores, P::Auto),
             std::make_pair(P::Thread, int64_t{0}));
    // Consumers unknown (no trainer said): the thread, as tensorpack has it.
    QCOMPARE(chosenFor({}, cores, P::Auto), std::make_pair(P::Thread, int64_t{0}));
    // Asked for explicitly, either way.
    QCOMPARE(chosenFor({Device{}}, cores, P::Thread), std::make_pair(P::Thread, int64_t{0}));
    QCOMPARE(chosenFor({Device::parse("cuda:0")}, cores, P::TrainingThread),
             std::make_pair(P::TrainingThread, int64_t{0}));
    if (cores < 2) QSKIP("one core: every intra-op setting takes all of it");
    QCOMPARE(chosenFor({Device{}}, cores - 1, P::Auto), std::make_pair(P::Thread, int64_t{0}));
  }

  void feedInputRepeatsPasses() {
    FeedInput input(counting(3));
    input.setup(kSpecs);
    std::vector<int64_t> seen;
    for (int i = 0; i < 7; ++i) seen.push_back(valueOf(input.nextBatch()));
    QCOMPARE(seen, (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0}));
    QCOMPARE(input.size(), std::optional<int64_t>(3));
  }

  void dummyConstantInputFillsTheBatchDimension() {
    DummyConstantInput input(6);
    input.setup({{"image", torch::kFloat32, {-1, 1, 4, 4}}, {"label", torch::kInt64, {-1}}});
    const Batch a = input.nextBatch();
    const Batch b = input.nextBatch();
    QCOMPARE(a["image"].sizes().vec(), (std::vector<int64_t>{6, 1, 4, 4}));
    QCOMPARE(a["label"].sizes().vec(), (std::vector<int64_t>{6}));
    QVERIFY(torch::equal(a["image"], b["image"]));
    QCOMPARE(input.batchesTaken(), int64_t{2});
  }

  void batchChecksComponentCountAndDtype() {
    QVERIFY_THROWS_EXCEPTION(InputError, Batch(kSpecs, {}));
    try {
      Batch(kSpecs, {torch::zeros({3}, torch::kFloat32)});
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("\"x\" expects Long [?]") != std::string::npos, e.what());
    }
  }
};

}  // namespace test_QueueInput

TB_TEST_GUILESS_MAIN(test_QueueInput::TestQueueInput)
#include "test_QueueInput.moc"
