// BridgeMonitor, the window's monitor inside the engine, in the real loop (NoOpTrainer +
// DummyConstantInput): every scalar with its step, the learning rate in force after the first
// step, and the loop's progress carrying the engine's own facts.

#include <QtTest>

#include <chrono>
#include <thread>

#include "app/bridge/BridgeMonitor.h"
#include "app/bridge/RunMailbox.h"
#include "engine/monitors/Monitors.h"
#include "tests/support/Recorder.h"

using namespace tbench;
using namespace tbench::bridge;
using tbench::testing::makeNoOpTrainer;

class TestBridgeMonitor : public QObject {
  Q_OBJECT
 private slots:
  void publishesScalarsTheFirstRateAndTheEnginesProgress() {
    int wakes = 0;
    auto mailbox = std::make_shared<RunMailbox>([&] { ++wakes; });
    auto monitor = std::make_shared<BridgeMonitor>(mailbox);
    auto trainer = makeNoOpTrainer([](NoOpTrainer& t) {
      t.monitors().putScalar("cost", 1.0 / static_cast<double>(t.globalStep() + 1));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a rate needs 0.05 s
    });
    trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{monitor}));
    trainer->learningRate().set(0.025);
    trainer->train({10, 1, 2});
    QCOMPARE(monitor->globalStep(), int64_t{20});
    QVERIFY(wakes >= 1);

    std::optional<RunProgress> progress;
    QVector<MetricSample> cost, rate;
    for (const RunEvent& e : mailbox->take(&progress)) {
      for (const MetricSample& s : e.samples) {
        if (s.name == "cost") cost << s;
        if (s.name == "learning_rate") rate << s;
        QVERIFY(s.wallTime > 0);
      }
    }
    QCOMPARE(cost.size(), 20);
    for (int i = 0; i < cost.size(); ++i) {
      QCOMPARE(cost[i].step, qint64(i));  // put inside step i + 1, before it was counted
      QCOMPARE(cost[i].value, 1.0 / (i + 1));
    }
    // The value in force from the first step on (the engine itself puts it per epoch).
    QVERIFY(!rate.isEmpty());
    QCOMPARE(rate.front().step, qint64{1});
    QCOMPARE(rate.front().value, 0.025);
    // The final progress: the loop's counters and the engine's own facts.
    QVERIFY(progress.has_value());
    QCOMPARE(progress->globalStep, qint64{20});
    QCOMPARE(progress->epoch, qint64{2});
    QCOMPARE(progress->maxEpoch, qint64{2});
    QCOMPARE(progress->stepsPerEpoch, qint64{10});
    QCOMPARE(progress->stepInEpoch, qint64{10});
    QCOMPARE(progress->samplesPerStep, qint64{4});
    QCOMPARE(progress->learningRate, 0.025);
    QVERIFY(progress->stepsPerSecond > 0);
    QCOMPARE(progress->etaSeconds, 0.0);
  }
};

QTEST_GUILESS_MAIN(TestBridgeMonitor)
#include "test_BridgeMonitor.moc"
