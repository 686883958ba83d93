// BridgeMonitor, the window's monitor inside the engine, in the real loop (NoOpTrainer +
// DummyConstantInput): every scalar with its step, the learning rate in force after the first
// step, and the loop's progress carrying the engine's own facts.

#include <QtTest>

#include <chrono>
#include <thread>

#include "app/bridge/BridgeMonitor.h"
#include "app/bridge/RunMailbox.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/input/DummyConstantInput.h"
#include "engine/monitors/Monitors.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_BridgeMonitor {

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

  // Time paused counts in neither the rate nor the ETA: on a clock the test moves (10 ms a step)
  // and a trainer whose paused time it sets, a 1 s pause after step 20 of 40 leaves the rate at
  // exactly 100 steps/s and the ETA at the remaining steps at that rate. Counting the pause
  // would give about 24 steps/s and an ETA four times longer.
  void aPauseCountsInNeitherTheRateNorTheEta() {
    struct PausedTrainer : NoOpTrainer {
      using NoOpTrainer::NoOpTrainer;
      double paused = 0;
      double secondsPaused() const override { return paused; }
    };
    BridgeMonitor::Clock::time_point clock{};  // the test's clock
    auto mailbox = std::make_shared<RunMailbox>([] {});
    auto monitor = std::make_shared<BridgeMonitor>(mailbox, [&] { return clock; });
    PausedTrainer* self = nullptr;
    std::optional<RunProgress> afterPause;
    auto trainer = std::make_unique<PausedTrainer>(
        std::make_shared<DummyConstantInput>(4), tbench::testing::loopSpecs(), [&](NoOpTrainer& t) {
          clock += std::chrono::milliseconds(10);
          if (t.globalStep() == 20) {          // paused between steps 20 and 21
            clock += std::chrono::seconds(1);  // shorter than the 3 s rate window
            self->paused += 1.0;
          }
          if (t.globalStep() == 35) mailbox->take(&afterPause);  // what the window has now
        });
    self = trainer.get();
    trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{monitor}));
    trainer->train({20, 1, 2});
    QVERIFY(afterPause.has_value());
    QVERIFY2(afterPause->globalStep > 20 && afterPause->globalStep <= 35,
             qPrintable(QString::number(afterPause->globalStep)));
    QVERIFY2(qAbs(afterPause->stepsPerSecond - 100.0) < 1e-6,
             qPrintable(QString::number(afterPause->stepsPerSecond)));
    QVERIFY(qAbs(afterPause->etaSeconds - (40 - afterPause->globalStep) / 100.0) < 1e-9);
    std::optional<RunProgress> last;
    mailbox->take(&last);
    QVERIFY(last.has_value());
    QCOMPARE(last->globalStep, qint64{40});
    QVERIFY(qAbs(last->stepsPerSecond - 100.0) < 1e-6);
  }

  // An epoch's end (validation) is neither in the step rate nor missing from the ETA: steps of
  // 10 ms and 1 s at each epoch's end on the test's clock, 3 epochs of 10. The progress after
  // step 11 (published every 100 ms) has the rate at 100 steps/s and the ETA at 19 steps
  // (0.19 s) plus the ends of epochs 2 and 3 (2 s); it had said 0.19 s at a rate pulled down
  // by the last validation.
  void anEpochsEndIsInTheEtaNotInTheRate() {
    BridgeMonitor::Clock::time_point clock{};
    auto mailbox = std::make_shared<RunMailbox>([] {});
    auto monitor = std::make_shared<BridgeMonitor>(mailbox, [&] { return clock; });
    std::optional<RunProgress> published;
    auto trainer = makeNoOpTrainer([&](NoOpTrainer& t) {
      clock += std::chrono::milliseconds(10);
      if (t.globalStep() == 15) mailbox->take(&published);  // the newest progress by then
    });
    trainer->registerCallback(CallbackFactory::everyTrigger(
        "validation", [&](TrainerContext&) { clock += std::chrono::seconds(1); }));
    trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{monitor}));
    trainer->train({10, 1, 3});
    QVERIFY(published.has_value());
    QCOMPARE(published->globalStep, qint64{11});
    QVERIFY2(qAbs(published->stepsPerSecond - 100.0) < 1e-6,
             qPrintable(QString::number(published->stepsPerSecond)));
    QVERIFY2(qAbs(published->etaSeconds - 2.19) < 1e-9,
             qPrintable(QString::number(published->etaSeconds)));
  }
};

}  // namespace test_BridgeMonitor

TB_TEST_GUILESS_MAIN(test_BridgeMonitor::TestBridgeMonitor)
#include "test_BridgeMonitor.moc"
