// The training loop itself, run for real with NoOpTrainer + DummyConstantInput.

#include <QtTest>

#include <algorithm>
#include <thread>

#include "engine/callbacks/StopTraining.h"
#include "engine/callbacks/ThroughputTracker.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/ScalarHistory.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_TrainLoop {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;
using tbench::testing::Recorder;

class TestTrainLoop : public QObject {
  Q_OBJECT
 private slots:
  void hookOrderAndCounters() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    trainer->registerCallback(rec);
    trainer->train({/*stepsPerEpoch=*/2, /*startingEpoch=*/1, /*maxEpoch=*/2});
    const std::vector<std::string> expected = {
        "setupGraph e0 g0 l0",  "beforeTrain e0 g0 l0",  "beforeEpoch e1 g0 l0",
        "beforeRun e1 g0 l0",   "afterRun e1 g1 l0",     "triggerStep e1 g1 l0",
        "beforeRun e1 g1 l1",   "afterRun e1 g2 l1",     "triggerStep e1 g2 l1",
        "afterEpoch e1 g2 l1",  "triggerEpoch e1 g2 l1", "trigger e1 g2 l1",
        "beforeEpoch e2 g2 l0", "beforeRun e2 g2 l0",    "afterRun e2 g3 l0",
        "triggerStep e2 g3 l0", "beforeRun e2 g3 l1",    "afterRun e2 g4 l1",
        "triggerStep e2 g4 l1", "afterEpoch e2 g4 l1",   "triggerEpoch e2 g4 l1",
        "trigger e2 g4 l1",     "afterTrain e2 g4 l1"};
    QCOMPARE(rec->events, expected);
    QCOMPARE(trainer->globalStep(), int64_t{4});
    QVERIFY(!trainer->stoppedEarly());
  }

  void startingEpochSetsGlobalStep() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    trainer->registerCallback(rec);
    trainer->train({3, 3, 4});
    QCOMPARE(rec->events.at(1), std::string("beforeTrain e2 g6 l0"));
    QCOMPARE(rec->events.at(2), std::string("beforeEpoch e3 g6 l0"));
    QCOMPARE(trainer->globalStep(), int64_t{12});
  }

  void stopTrainingMidEpochEndsCleanly() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    rec->hook = [](const std::string& what, TrainerContext& c) {
      if (what == "triggerStep" && c.globalStep() == 4) throw StopTraining("enough");
    };
    auto after = std::make_shared<Recorder>();
    trainer->registerCallback(rec);
    trainer->registerCallback(after);
    trainer->train({3, 1, 5});  // must return normally
    QVERIFY(trainer->stoppedEarly());
    QCOMPARE(trainer->globalStep(), int64_t{4});
    QCOMPARE(trainer->epochNum(), int64_t{2});
    QCOMPARE(rec->events.back(), std::string("afterTrain e2 g4 l0"));
    QCOMPARE(after->events.back(), std::string("afterTrain e2 g4 l0"));
    // The callback after the one that stopped still saw that step's triggerStep (Note [A stop
    // lets the hook finish]); nothing ran after it but afterTrain.
    QCOMPARE(after->events.at(after->events.size() - 2), std::string("triggerStep e2 g4 l0"));
    QCOMPARE(after->events.at(after->events.size() - 3), std::string("afterRun e2 g4 l0"));
  }

  void exceptionInCallbackPropagatesAfterEveryAfterTrain() {
    auto trainer = makeNoOpTrainer();
    auto failing = std::make_shared<Recorder>();
    failing->hook = [](const std::string& what, TrainerContext& c) {
      if (what == "beforeEpoch" && c.epochNum() == 2) throw std::runtime_error("boom in epoch 2");
      if (what == "afterTrain") throw std::runtime_error("afterTrain also failed");
    };
    auto other = std::make_shared<Recorder>();
    trainer->registerCallback(failing);
    trainer->registerCallback(other);
    try {
      trainer->train({2, 1, 3});
      QFAIL("train() should have thrown");
    } catch (const std::runtime_error& e) {
      QCOMPARE(std::string(e.what()), std::string("boom in epoch 2"));  // the first failure
    }
    QCOMPARE(other->events.back(), std::string("afterTrain e2 g2 l0"));
    QCOMPARE(failing->events.back(), std::string("afterTrain e2 g2 l0"));
    QVERIFY(!trainer->stoppedEarly());
  }

  void exceptionInStepPropagates() {
    auto trainer = makeNoOpTrainer([](NoOpTrainer& t) {
      if (t.globalStep() == 2) throw std::runtime_error("step failed at 2");
    });
    auto rec = std::make_shared<Recorder>();
    trainer->registerCallback(rec);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, trainer->train({5, 1, 1}));
    QCOMPARE(rec->events.back(), std::string("afterTrain e1 g2 l2"));
  }

  void requestStopFromAnotherThreadStopsAtStepBoundary() {
    std::atomic<int64_t> steps{0};
    std::unique_ptr<NoOpTrainer> trainer;
    trainer = makeNoOpTrainer([&](NoOpTrainer&) {
      ++steps;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    std::thread stopper([&] {
      while (steps < 10) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      trainer->requestStop();
    });
    trainer->train({1000000, 1, 1});
    stopper.join();
    QVERIFY(trainer->stoppedEarly());
    QCOMPARE(trainer->globalStep(), steps.load());
    QVERIFY(steps < 100);
  }

  void postedCommandsRunBetweenSteps() {
    std::vector<int64_t> seenAt;
    std::unique_ptr<NoOpTrainer> trainer;
    trainer = makeNoOpTrainer([&](NoOpTrainer& t) {
      if (t.globalStep() == 3) {
        t.post([&] {
          seenAt.push_back(t.globalStep());
          t.learningRate().set(0.5);
        });
      }
    });
    trainer->train({3, 1, 2});
    QCOMPARE(seenAt, std::vector<int64_t>{4});
    QCOMPARE(trainer->learningRate().get(), 0.5);
  }

  void pauseHoldsTheLoopUntilResumed() {
    std::atomic<int64_t> steps{0};
    auto trainer = makeNoOpTrainer([&](NoOpTrainer&) { ++steps; });
    trainer->setPaused(true);
    std::thread runner([&] { trainer->train({5, 1, 1}); });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    QCOMPARE(steps.load(), int64_t{0});
    trainer->setPaused(false);
    runner.join();
    QCOMPARE(steps.load(), int64_t{5});
  }

  void pausedTimeIsLoggedAndExcludedFromRates() {
    // Pauses for 300 ms after step 10 of 20; the step's command resumes from another thread.
    auto trainer = makeNoOpTrainer();
    auto history = std::make_shared<ScalarHistory>();
    trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{history}));
    trainer->registerCallback(std::make_shared<ThroughputTracker>());
    std::thread resumer;
    auto rec = std::make_shared<Recorder>();
    rec->hook = [&](const std::string& what, TrainerContext& c) {
      if (what != "triggerStep" || c.globalStep() != 10) return;
      trainer->setPaused(true);
      resumer = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        trainer->setPaused(false);
      });
    };
    trainer->registerCallback(rec);
    std::vector<std::string> lines;  // logged on this thread (the loop's)
    logging::setExtraSink(
        [](LogLevel, const std::string& line, void* user) {
          static_cast<std::vector<std::string>*>(user)->push_back(line);
        },
        &lines);
    trainer->train({20, 1, 1});
    logging::setExtraSink(nullptr, nullptr);
    resumer.join();

    QVERIFY2(trainer->secondsPaused() >= 0.25, std::to_string(trainer->secondsPaused()).c_str());
    const auto has = [&](const std::string& text) {
      return std::any_of(lines.begin(), lines.end(),
                         [&](const std::string& l) { return l.find(text) != std::string::npos; });
    };
    QVERIFY(has("paused at global step 10"));
    QVERIFY(has("resumed at global step 10 after 0."));
    // 20 no-op steps take well under a millisecond each: counted with the pause they would
    // make at most 20 / 0.3 ~ 67 steps/s.
    const auto rate = history->get("ThroughputTracker/steps_per_sec");
    QCOMPARE(rate.size(), size_t{1});
    QVERIFY2(rate[0].value > 1000, std::to_string(rate[0].value).c_str());
  }

  void trainRunsOnce() {
    auto trainer = makeNoOpTrainer();
    trainer->train({1, 1, 1});
    QVERIFY_THROWS_EXCEPTION(CheckError, trainer->train({1, 1, 1}));
  }
};

}  // namespace test_TrainLoop

TB_TEST_GUILESS_MAIN(test_TrainLoop::TestTrainLoop)
#include "test_TrainLoop.moc"
