// Scheduling decorators and hyper-parameter schedules, through the real loop
// (NoOpTrainer + DummyConstantInput), recording what happened at each step.

#include <QtTest>

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryFile>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include <unistd.h>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/callbacks/CheckNumerics.h"
#include "engine/callbacks/EarlyStopping.h"
#include "engine/callbacks/EnableCallbackIf.h"
#include "engine/callbacks/EstimatedTimeLeft.h"
#include "engine/callbacks/HyperParamSetter.h"
#include "engine/callbacks/NamedSchedule.h"
#include "engine/callbacks/PeriodicTrigger.h"
#include "engine/callbacks/ProgressBar.h"
#include "engine/callbacks/StatMonitorParamSetter.h"
#include "engine/callbacks/ThroughputTracker.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/ScalarHistory.h"
#include "tests/support/Python.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Callbacks {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;
using tbench::testing::Recorder;

namespace {

/// A callback whose trigger (after every epoch, where a validation puts its scalars) runs `hook`.
std::shared_ptr<CallbackFactory> atEveryEpoch(std::string name, CallbackFactory::Hook hook) {
  return CallbackFactory::everyTrigger(std::move(name), std::move(hook));
}

/// Global steps at which `events` recorded `hook`.
std::vector<int64_t> stepsOf(const std::vector<std::string>& events, const std::string& hook) {
  std::vector<int64_t> steps;
  for (const auto& e : events) {
    if (e.rfind(hook + " ", 0) != 0) continue;
    const auto g = e.find(" g");
    steps.push_back(std::stoll(e.substr(g + 2)));
  }
  return steps;
}

std::shared_ptr<ScalarHistory> attachHistory(Trainer& trainer) {
  auto history = std::make_shared<ScalarHistory>();
  trainer.setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{history}));
  return history;
}

}  // namespace

class TestCallbacks : public QObject {
  Q_OBJECT
 private slots:
  // EstimatedTimeLeft: the median epoch so far times the epochs left, so one slow epoch (a
  // validation, a checkpoint) does not make the estimate jump; nothing left after the last.
  void estimatedTimeLeftUsesTheMedianEpoch() {
    auto trainer = makeNoOpTrainer([](NoOpTrainer& t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(t.epochNum() == 2 ? 500 : 10));
    });
    auto eta = std::make_shared<EstimatedTimeLeft>();
    std::vector<double> estimates;
    trainer->registerCallback(eta);
    trainer->registerCallback(atEveryEpoch(  // after it: reads it
        "read", [&](TrainerContext&) { estimates.push_back(eta->secondsLeft()); }));
    QVERIFY(eta->secondsLeft() < 0);
    trainer->train({2, 1, 4});  // epochs of about 0.02, 1, 0.02, 0.02 s
    QCOMPARE(estimates.size(), size_t{4});
    QVERIFY2(estimates[1] > 1.0, qPrintable(QString::number(estimates[1])));  // 2 x ~1 s
    // After epoch 3: the median (~0.02 s) for the one epoch left; the mean would be ~0.35 s.
    QVERIFY2(estimates[2] < 0.2, qPrintable(QString::number(estimates[2])));
    QCOMPARE(estimates[3], 0.0);
  }

  // A run resumed at step 8 of 10 runs 2 steps of its first epoch: they stand for an epoch of
  // 10 such steps, not for an epoch (the estimate had been 5 times too short).
  void estimatedTimeLeftAfterAMidEpochResume() {
    auto trainer = makeNoOpTrainer(
        [](NoOpTrainer&) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
    auto eta = std::make_shared<EstimatedTimeLeft>();
    std::vector<double> estimates;
    trainer->registerCallback(eta);
    trainer->registerCallback(
        atEveryEpoch("read", [&](TrainerContext&) { estimates.push_back(eta->secondsLeft()); }));
    LoopOptions loop{10, 1, 3};
    loop.startingGlobalStep = 8;
    loop.startingLocalStep = 8;
    trainer->train(loop);
    QCOMPARE(estimates.size(), size_t{3});
    // 2 epochs of at least 10 x 20 ms left.
    QVERIFY2(estimates[0] >= 0.4, qPrintable(QString::number(estimates[0])));
  }

  // The progress bar of a run resumed at step 80 of 100: its rate counts the 20 steps run
  // here (2 ms each: at most 500 it/s), not the 100 of the epoch (it had said ~2500 it/s).
  void progressBarRateAfterAMidEpochResume() {
    auto trainer = makeNoOpTrainer(
        [](NoOpTrainer&) { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
    trainer->registerCallback(std::make_shared<ProgressBar>());
    LoopOptions loop{100, 1, 1};
    loop.startingGlobalStep = 80;
    loop.startingLocalStep = 80;
    const LogLevel level = logging::level();
    logging::setLevel(LogLevel::Info);
    QTemporaryFile captured;
    QVERIFY(captured.open());
    std::fflush(stderr);
    const int saved = ::dup(STDERR_FILENO);
    ::dup2(captured.handle(), STDERR_FILENO);  // not a terminal: plain lines
    trainer->train(loop);
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    logging::setLevel(level);
    captured.seek(0);
    const QString text = QString::fromUtf8(captured.readAll());
    const QRegularExpressionMatch m =
        QRegularExpression(R"(100/100 \[[^,]*, ([0-9.]+)it/s)").match(text);
    QVERIFY2(m.hasMatch(), qPrintable(text));
    QVERIFY2(m.captured(1).toDouble() <= 500, qPrintable(text));
  }

  void periodicTriggerBySteps() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    trainer->registerCallback(
        std::make_shared<PeriodicTrigger>(rec, PeriodicTriggerOptions().steps(3)));
    trainer->train({4, 1, 3});  // 12 steps
    QCOMPARE(stepsOf(rec->events, "trigger"), (std::vector<int64_t>{3, 6, 9, 12}));
    // As in tensorpack, only triggerEpoch is replaced; triggerStep and the others are
    // forwarded (a wrapped CheckNumerics keeps its per-step check).
    QCOMPARE(stepsOf(rec->events, "triggerStep").size(), size_t{12});
    QVERIFY(stepsOf(rec->events, "triggerEpoch").empty());
    QCOMPARE(stepsOf(rec->events, "beforeRun").size(), size_t{12});
  }

  void periodicTriggerByEpochsAndAtStart() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    trainer->registerCallback(
        std::make_shared<PeriodicTrigger>(rec, PeriodicTriggerOptions().epochs(2).atStart()));
    trainer->train({2, 1, 5});
    // At start (g0), then after epochs 2 and 4 (g4, g8).
    QCOMPARE(stepsOf(rec->events, "trigger"), (std::vector<int64_t>{0, 4, 8}));
  }

  void periodicTriggerRejectsNoPeriod() {
    QVERIFY_THROWS_EXCEPTION(
        CheckError, PeriodicTrigger(std::make_shared<Recorder>(), PeriodicTriggerOptions()));
  }

  void enableCallbackIfKeepsBeforeAndAfterRunPaired() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    // Enabled on even global steps, as seen at each hook.
    trainer->registerCallback(std::make_shared<EnableCallbackIf>(
        rec, [](const TrainerContext& c) { return c.globalStep() % 2 == 0; }));
    trainer->train({5, 1, 1});
    QCOMPARE(stepsOf(rec->events, "beforeRun"), (std::vector<int64_t>{0, 2, 4}));
    // afterRun follows its beforeRun although globalStep is odd by then.
    QCOMPARE(stepsOf(rec->events, "afterRun"), (std::vector<int64_t>{1, 3, 5}));
    QCOMPARE(stepsOf(rec->events, "setupGraph").size(), size_t{1});
    QCOMPARE(stepsOf(rec->events, "afterTrain").size(), size_t{1});
  }

  void statMonitorChangesTheParamOnPlateau() {
    // One step per epoch; the stat of epoch E is stat[E-1]. Patience 2 (ReduceLROnPlateau):
    // epochs 3 and 4 are bad (2, not more than 2), epoch 5 is a new best; epochs 6, 7 and 8
    // are bad against the all-time best 0.7, so the rate halves after epoch 8. (The rule before
    // issue 25 halved after epoch 4 and again after epoch 7.)
    const std::vector<double> stat = {1.0, 0.8, 0.85, 0.82, 0.7, 0.75, 0.76, 0.74, 0.73, 0.72};
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    auto history = attachHistory(*trainer);
    trainer->registerCallback(atEveryEpoch(
        "stat", [&](TrainerContext& c) { c.monitors().putScalar("val", stat[c.epochNum() - 1]); }));
    auto setter = std::make_shared<StatMonitorParamSetter>(
        "learning_rate", "val", StatMonitorParamSetter::Options().factor(0.5).patience(2));
    trainer->registerCallback(setter);
    trainer->train({1, 1, 10});
    QCOMPARE(lrAtStep, (std::vector<double>{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05}));
    QCOMPARE(setter->changes(), 1);
    QCOMPARE(setter->best(), 0.7);
    QCOMPARE(setter->badEpochs(), int64_t{2});
  }

  // Issue 37: early_stopping, as Lightning's EarlyStopping: an improvement is more than
  // min_delta better than the best; after `patience` epochs without one, training ends at that
  // epoch's end (the loop's real StopTraining path); a NaN ends it at once; the state resumes.
  void earlyStoppingEndsAfterPatienceEpochsWithoutImprovement() {
    const auto runWith = [&](const std::vector<double>& stat, EarlyStopping::Options options,
                             const std::string& state = "") {
      auto trainer = makeNoOpTrainer();
      trainer->registerCallback(atEveryEpoch("stat", [&](TrainerContext& c) {
        c.monitors().putScalar("val", stat[c.epochNum() - 1]);
      }));
      auto early = std::make_shared<EarlyStopping>("val", options);
      if (!state.empty()) early->restoreCheckpointState(state);
      trainer->registerCallback(early);
      trainer->train({1, 1, static_cast<int64_t>(stat.size())});
      return std::make_tuple(trainer->epochNum(), trainer->stoppedEarly(), early);
    };
    // Best 0.7 at epoch 3; 0.69 is not better by more than 0.02; patience 3: ends at epoch 6.
    auto [epoch, stopped, early] = runWith({1.0, 0.8, 0.7, 0.69, 0.75, 0.71, 0.5, 0.4},
                                           EarlyStopping::Options().patience(3).minDelta(0.02));
    QCOMPARE(epoch, int64_t{6});
    QVERIFY(stopped && early->stoppedEarly());
    QCOMPARE(early->best(), 0.7);
    QVERIFY2(early->reason().find("did not improve on 0.7 by more than 0.02 for 3 epoch(s)") !=
                 std::string::npos,
             early->reason().c_str());
    // Improving all along: runs to the end; mode max.
    auto [all, none, kept] =
        runWith({0.1, 0.2, 0.3, 0.4}, EarlyStopping::Options().patience(1).maximize(true));
    QCOMPARE(all, int64_t{4});
    QVERIFY(!none && !kept->stoppedEarly());
    // A NaN ends it at once.
    auto [nanEpoch, nanStopped, nanEarly] =
        runWith({1.0, std::nan(""), 0.5}, EarlyStopping::Options().patience(5));
    QCOMPARE(nanEpoch, int64_t{2});
    QVERIFY(nanStopped && nanEarly->reason().find("nan") != std::string::npos);
    // Resumed with 2 epochs without improvement against a best of 0.5: one more ends it.
    auto [resumed, resumedStopped, resumedEarly] =
        runWith({0.6, 0.4}, EarlyStopping::Options().patience(3), R"({"best": 0.5, "wait": 2})");
    QCOMPARE(early->checkpointState(), std::string(R"({"best":0.7,"wait":3})"));
    QCOMPARE(resumed, int64_t{1});
    QVERIFY(resumedStopped);
    QVERIFY_THROWS_EXCEPTION(InputError,
                             EarlyStopping("val", EarlyStopping::Options().patience(0)));
    QVERIFY_THROWS_EXCEPTION(InputError,
                             EarlyStopping("val", EarlyStopping::Options().minDelta(-1)));
  }

  // Note [A stop lets the hook finish]: the epoch EarlyStopping ends is complete: the callbacks
  // after it trigger (a MinSaver's best, the printer's figures), the scalars they put reach the
  // monitors, and what they deferred to after the triggers (the savers' writes) runs.
  void earlyStoppingEndsTrainingAfterTheEpochsOtherCallbacks() {
    auto trainer = makeNoOpTrainer();
    auto history = attachHistory(*trainer);
    const std::vector<double> stat = {1.0, 0.9, 0.8};
    trainer->registerCallback(atEveryEpoch("stat", [&](TrainerContext& c) {
      c.monitors().putScalar("val", stat[static_cast<size_t>(c.epochNum() - 1)]);
    }));
    // 0.9 is not better than 1.0 by more than 0.5: patience 1 stops at epoch 2.
    trainer->registerCallback(
        std::make_shared<EarlyStopping>("val", EarlyStopping::Options().patience(1).minDelta(0.5)));
    std::vector<int64_t> triggered, saved;
    trainer->registerCallback(atEveryEpoch("after", [&](TrainerContext& c) {
      triggered.push_back(c.epochNum());
      c.monitors().putScalar("after", static_cast<double>(c.epochNum()));
      c.afterTriggers([&saved, epoch = c.epochNum()] { saved.push_back(epoch); });
    }));
    trainer->train({1, 1, 3});
    QVERIFY(trainer->stoppedEarly());
    QCOMPARE(trainer->epochNum(), int64_t{2});
    QCOMPARE(triggered, (std::vector<int64_t>{1, 2}));
    QCOMPARE(saved, (std::vector<int64_t>{1, 2}));
    QCOMPARE(history->count("after"), int64_t{2});
  }

  void statMonitorRespectsThresholdMaximizeAndFloor() {
    // Accuracy-like stat, higher is better, improving by 0.001 per epoch: below the absolute
    // threshold of 0.01, so with patience 1 the rate is multiplied by 0.1 after every second
    // bad epoch (3 and 5), but never below 0.002 (after epoch 7 it would be; it stays).
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    attachHistory(*trainer);
    trainer->registerCallback(atEveryEpoch("stat", [&](TrainerContext& c) {
      c.monitors().putScalar("acc", 0.9 + 0.001 * c.epochNum());
    }));
    auto setter = std::make_shared<StatMonitorParamSetter>("learning_rate", "acc",
                                                           StatMonitorParamSetter::Options()
                                                               .factor(0.1)
                                                               .patience(1)
                                                               .threshold(0.01)
                                                               .thresholdMode("abs")
                                                               .maximize(true)
                                                               .minValue(0.002));
    trainer->registerCallback(setter);
    trainer->train({1, 1, 7});
    QCOMPARE(lrAtStep.size(), size_t(7));
    for (int e : {0, 1, 2}) QCOMPARE(lrAtStep[e], 0.1);
    QVERIFY(qAbs(lrAtStep[3] - 0.01) < 1e-12);
    QVERIFY(qAbs(lrAtStep[4] - 0.01) < 1e-12);
    QCOMPARE(lrAtStep[5], 0.002);  // 0.001 is below the floor
    QCOMPARE(lrAtStep[6], 0.002);
    QCOMPARE(setter->changes(), 2);  // at the floor, no change is counted
    QVERIFY_THROWS_EXCEPTION(
        InputError, StatMonitorParamSetter("learning_rate", "acc",
                                           StatMonitorParamSetter::Options().patience(-1)));
    QVERIFY_THROWS_EXCEPTION(
        InputError, StatMonitorParamSetter("learning_rate", "acc",
                                           StatMonitorParamSetter::Options().thresholdMode("pct")));
  }

  // Issue 25 (F7): the plateau rule is PyTorch's ReduceLROnPlateau, step for step. The rates
  // an epoch trains with, for stat sequences and settings that exercise min and max, relative
  // and absolute thresholds, cooldown, min_lr and patience 0, against what /usr/bin/python3's
  // torch.optim.lr_scheduler computes now.
  void plateauRuleIsPyTorchsReduceLROnPlateau() {
    struct Case {
      std::string mode;
      double factor;
      int64_t patience;
      double threshold;
      std::string thresholdMode;
      int64_t cooldown;
      double minLr;
      std::vector<double> stat;
    };
    const std::vector<Case> cases = {
        {"min",
         0.5,
         2,
         1e-4,
         "rel",
         0,
         0.0,
         {1.0, 0.8, 0.85, 0.82, 0.7, 0.75, 0.76, 0.74, 0.73, 0.72, 0.71, 0.6999}},
        {"max",
         0.1,
         1,
         0.01,
         "abs",
         1,
         0.002,
         {0.9, 0.901, 0.902, 0.903, 0.95, 0.951, 0.952, 0.953, 0.954, 0.955, 0.956, 0.957}},
        {"min",
         0.5,
         0,
         0.05,
         "rel",
         2,
         0.01,
         {1.0, 0.99, 0.98, 0.9, 0.89, 0.88, 0.87, 0.8, 0.79, 0.78, 0.7, 0.69}},
        {"max",
         0.2,
         3,
         0.0,
         "rel",
         0,
         0.0,
         {0.1, 0.2, 0.2, 0.2, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3}},
    };
    nlohmann::json request = nlohmann::json::array();
    for (const Case& c : cases) {
      request.push_back({{"mode", c.mode},
                         {"factor", c.factor},
                         {"patience", c.patience},
                         {"threshold", c.threshold},
                         {"threshold_mode", c.thresholdMode},
                         {"cooldown", c.cooldown},
                         {"min_lr", c.minLr},
                         {"stat", c.stat}});
    }
    const char* script = R"(
import json, sys, torch
out = []
for c in json.loads(sys.argv[1]):
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.optim.lr_scheduler.ReduceLROnPlateau(
        opt, mode=c["mode"], factor=c["factor"], patience=c["patience"],
        threshold=c["threshold"], threshold_mode=c["threshold_mode"], cooldown=c["cooldown"],
        min_lr=c["min_lr"])
    rates = []
    for v in c["stat"]:
        rates.append(opt.param_groups[0]["lr"])
        s.step(v)
    out.append(rates)
print(json.dumps(out))
)";
    QProcess python;
    python.start("/usr/bin/python3", {"-c", script, QString::fromStdString(request.dump())});
    QVERIFY(python.waitForFinished(60000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const auto golden = nlohmann::json::parse(python.readAllStandardOutput().toStdString());
    QCOMPARE(golden.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      std::vector<double> lrAtStep;
      auto trainer =
          makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
      attachHistory(*trainer);
      trainer->registerCallback(atEveryEpoch("stat", [&](TrainerContext& ctx) {
        ctx.monitors().putScalar("s", c.stat[ctx.epochNum() - 1]);
      }));
      trainer->registerCallback(
          std::make_shared<StatMonitorParamSetter>("learning_rate", "s",
                                                   StatMonitorParamSetter::Options()
                                                       .factor(c.factor)
                                                       .patience(c.patience)
                                                       .threshold(c.threshold)
                                                       .thresholdMode(c.thresholdMode)
                                                       .cooldown(c.cooldown)
                                                       .maximize(c.mode == "max")
                                                       .minValue(c.minLr)));
      trainer->train({1, 1, static_cast<int64_t>(c.stat.size())});
      const auto expected = golden[i].get<std::vector<double>>();
      QCOMPARE(lrAtStep.size(), expected.size());
      int changes = 0;
      for (size_t e = 0; e < expected.size(); ++e) {
        if (e > 0 && expected[e] != expected[e - 1]) ++changes;
        QVERIFY2(std::abs(lrAtStep[e] - expected[e]) <= 1e-12 * expected[e],
                 qPrintable(QString("case %1, epoch %2: %3, PyTorch %4")
                                .arg(i)
                                .arg(e + 1)
                                .arg(lrAtStep[e])
                                .arg(expected[e])));
      }
      QVERIFY2(changes > 0, "a case where PyTorch never changes the rate proves little");
    }
  }

  void callbackFactoryRunsItsFunctions() {
    auto trainer = makeNoOpTrainer();
    int triggers = 0, setups = 0;
    trainer->registerCallback(std::make_shared<CallbackFactory>(
        "counter", CallbackFactory::Hooks{[&](TrainerContext&) { ++setups; },
                                          {},
                                          {},
                                          {},
                                          [&](TrainerContext&) { ++triggers; },
                                          {}}));
    trainer->train({2, 1, 3});
    QCOMPARE(setups, 1);
    QCOMPARE(triggers, 3);  // triggerEpoch calls trigger by default
  }

  void piecewiseEpochSchedule() {
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    auto history = attachHistory(*trainer);
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", std::vector<std::pair<int64_t, double>>{{1, 1.0}, {3, 0.1}, {4, 0.01}}));
    trainer->train({2, 1, 5});
    // tensorpack's meaning: (E, v) applies after epoch E. Before the first point the
    // optimizer's own value (NoOpTrainer's 0.1) holds.
    QCOMPARE(lrAtStep, (std::vector<double>{0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.01, 0.01}));
    // The value each epoch used is a scalar, once per epoch.
    const auto& scalar = history->get("learning_rate");
    QCOMPARE(scalar.size(), size_t{5});
    QCOMPARE(scalar[3].value, 0.1);
    QCOMPARE(scalar[3].epochNum, int64_t{4});
    QCOMPARE(scalar[4].value, 0.01);
  }

  void linearStepScheduleWithWarmup() {
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", std::vector<std::pair<int64_t, double>>{{0, 0.0}, {4, 1.0}, {6, 0.5}},
        HyperParamSetter::Unit::Step, ScheduledHyperParamSetter::Interpolation::Linear));
    trainer->train({4, 1, 2});
    const std::vector<double> expected = {0.0, 0.25, 0.5, 0.75, 1.0, 0.75, 0.5, 0.5};
    QCOMPARE(lrAtStep.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
      QVERIFY(qFuzzyCompare(1 + lrAtStep[i], 1 + expected[i]));
  }

  void namedSchedulesAreTorchsSchedulers() {
    // Golden values from PyTorch's own schedulers, stepped once per position: CosineAnnealingLR,
    // OneCycleLR (cos, two phases) and the warm-up + cosine of Hugging Face's
    // get_cosine_schedule_with_warmup written as a LambdaLR.
    const char* script = R"(
import json, math, torch
def run(make, n):
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    sched = make(opt)
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]['lr'])
        opt.step(); sched.step()
    return out
S = torch.optim.lr_scheduler
W, T = 4, 20
hf = lambda s: s / W if s < W else 0.5 * (1 + math.cos(math.pi * (s - W) / (T - W)))
print(json.dumps({
  'cosine': run(lambda o: S.CosineAnnealingLR(o, T_max=12, eta_min=0.001), 13),
  'one_cycle': run(lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=20, pct_start=0.25,
                                          div_factor=10, final_div_factor=100), 20),
  'warmup_cosine': run(lambda o: S.LambdaLR(o, hf), T + 1)}))
)";
    const auto python = tbench::testing::runPython({"-c", script});
    if (!python.ok) TB_SKIP_WITHOUT_INTEROP("python3-torch is not installed");
    const nlohmann::json golden = nlohmann::json::parse(python.out.toStdString());
    NamedScheduleShape cosine{"cosine", 0.1, 12, 0, 0.001};
    NamedScheduleShape cycle{"one_cycle", 0.1, 20, 0, 0, 0.25, 10, 100};
    NamedScheduleShape warm{"warmup_cosine", 0.1, 20, 4, 0};
    for (const auto& [name, shape] : {std::pair{"cosine", cosine}, std::pair{"one_cycle", cycle},
                                      std::pair{"warmup_cosine", warm}}) {
      const auto& values = golden.at(name);
      for (size_t t = 0; t < values.size(); ++t) {
        const double ours = namedScheduleValue(shape, static_cast<int64_t>(t));
        const double theirs = values[t].get<double>();
        QVERIFY2(std::abs(ours - theirs) <= 1e-12 + 1e-9 * std::abs(theirs),
                 qPrintable(QString("%1 at %2: %3, PyTorch %4")
                                .arg(name)
                                .arg(t)
                                .arg(ours, 0, 'g', 17)
                                .arg(theirs, 0, 'g', 17)));
      }
    }
    // After its length a shape holds its last value.
    QCOMPARE(namedScheduleValue(cosine, 40), namedScheduleValue(cosine, 12));
  }

  void namedScheduleSpansTheWholeRun() {
    // Length 0: the run's maxEpoch x stepsPerEpoch steps (here 3 x 4), read from the trainer.
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    NamedScheduleShape shape{"cosine", 1.0, 0, 0, 0.0};
    trainer->registerCallback(std::make_shared<NamedScheduleSetter>("learning_rate", shape,
                                                                    HyperParamSetter::Unit::Step));
    trainer->train({4, 1, 3});
    QCOMPARE(lrAtStep.size(), size_t{12});
    shape.length = 12;
    for (size_t s = 0; s < lrAtStep.size(); ++s) {
      QVERIFY(qFuzzyCompare(1 + lrAtStep[s], 1 + namedScheduleValue(shape, int64_t(s))));
    }
    QCOMPARE(lrAtStep.front(), 1.0);
    QVERIFY(lrAtStep.back() < 0.02);  // cos near the end: (1 + cos(11 pi / 12)) / 2
    // Per epoch: epoch e runs with the value after e - 1 epochs of 4.
    std::vector<double> perEpoch;
    auto byEpoch =
        makeNoOpTrainer([&](NoOpTrainer& t) { perEpoch.push_back(t.learningRate().get()); });
    byEpoch->registerCallback(std::make_shared<NamedScheduleSetter>(
        "learning_rate", NamedScheduleShape{"cosine", 1.0, 0, 0, 0.0},
        HyperParamSetter::Unit::Epoch));
    byEpoch->train({2, 1, 4});
    QCOMPARE(perEpoch.size(), size_t{8});
    QCOMPARE(perEpoch[0], 1.0);
    QVERIFY(qFuzzyCompare(perEpoch[2], 0.5 * (1 + std::cos(M_PI / 4))));
    QCOMPARE(perEpoch[3], perEpoch[2]);
    QVERIFY(qFuzzyCompare(perEpoch[7], 0.5 * (1 + std::cos(3 * M_PI / 4))));
  }

  void scheduleGivesTheSameValueWhenStartingLater() {
    // A fresh run that starts at epoch 3 gets the value in force after epoch 2.
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", std::vector<std::pair<int64_t, double>>{{1, 1.0}, {3, 0.1}}));
    trainer->train({1, 3, 4});
    QCOMPARE(lrAtStep, (std::vector<double>{1.0, 0.1}));
  }

  void scheduleBeforeFirstPointKeepsTheValue() {
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", std::vector<std::pair<int64_t, double>>{{2, 0.5}}));
    trainer->train({1, 1, 3});
    // 0.1 is NoOpTrainer's initial value; (2, 0.5) applies from epoch 3.
    QCOMPARE(lrAtStep, (std::vector<double>{0.1, 0.1, 0.5}));
  }

  void setterForUnknownParamFailsAtSetup() {
    auto trainer = makeNoOpTrainer();
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "momentum", std::vector<std::pair<int64_t, double>>{{1, 0.9}}));
    try {
      trainer->train({1, 1, 1});
      QFAIL("expected a CheckError");
    } catch (const CheckError& e) {
      QVERIFY2(std::string(e.what()).find("\"momentum\"") != std::string::npos, e.what());
    }
  }

  void functionSetter() {
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    trainer->registerCallback(std::make_shared<HyperParamSetterWithFunc>(
        "learning_rate", [](int64_t done) { return 1.0 / static_cast<double>(done + 1); }));
    trainer->train({1, 1, 4});
    QCOMPARE(lrAtStep, (std::vector<double>{1.0, 0.5, 1.0 / 3, 0.25}));
  }

  void plateauReductionHoldsUntilTheScheduleChanges() {
    // Issue 10: a schedule [[0, 0.05], [100, 0.01]] with lr_on_plateau used to set 0.05 back
    // every epoch while the scalar said 0.025. Now the reduction holds until the next point,
    // and the scalar is the value the epoch trained with.
    std::vector<double> lrAtStep;
    auto trainer =
        makeNoOpTrainer([&](NoOpTrainer& t) { lrAtStep.push_back(t.learningRate().get()); });
    auto history = attachHistory(*trainer);
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", std::vector<std::pair<int64_t, double>>{{0, 0.05}, {100, 0.01}}));
    trainer->registerCallback(atEveryEpoch(
        "flat-stat", [](TrainerContext& c) { c.monitors().putScalar("validation_error", 0.5); }));
    auto plateau = std::make_shared<StatMonitorParamSetter>(
        "learning_rate", "validation_error",
        StatMonitorParamSetter::Options().factor(0.5).patience(0));
    trainer->registerCallback(plateau);
    trainer->train({1, 1, 4});
    // Epoch 2's value did not beat epoch 1's: halved after epoch 2, and again after epoch 3.
    QCOMPARE(lrAtStep, (std::vector<double>{0.05, 0.05, 0.025, 0.0125}));
    std::vector<double> scalars;
    for (const auto& p : history->get("learning_rate")) scalars.push_back(p.value);
    QCOMPARE(scalars, lrAtStep);
    QCOMPARE(plateau->changes(), 3);  // after epochs 2, 3 and 4
  }

  void liveEditHoldsUntilTheNextStepPoint() {
    // A live edit (the window's F8 posts a command) used to be reverted before the next step
    // by a step-unit schedule. It holds until the schedule's next point.
    std::vector<double> lrAtStep;
    auto trainer = makeNoOpTrainer([&](NoOpTrainer& t) {
      lrAtStep.push_back(t.learningRate().get());
      if (t.globalStep() == 2) t.post([&t] { t.learningRate().set(0.5); });
    });
    trainer->registerCallback(std::make_shared<ScheduledHyperParamSetter>(
        "learning_rate", std::vector<std::pair<int64_t, double>>{{0, 0.1}, {6, 0.01}},
        HyperParamSetter::Unit::Step));
    trainer->train({8, 1, 1});
    QCOMPARE(lrAtStep, (std::vector<double>{0.1, 0.1, 0.1, 0.5, 0.5, 0.5, 0.01, 0.01}));
  }

  void aStatNotProducedAgainDoesNotCountTwice() {
    // Validation every 3 epochs, patience 2: only the validations count (tensorpack reads the
    // stat's history). The old code re-counted the latest value each epoch and cut the rate
    // after a single validation.
    auto trainer = makeNoOpTrainer();
    trainer->registerCallback(atEveryEpoch("every-3", [](TrainerContext& c) {
      if (c.epochNum() % 3 == 0) c.monitors().putScalar("validation_error", 0.5);
    }));
    auto plateau = std::make_shared<StatMonitorParamSetter>(
        "learning_rate", "validation_error",
        StatMonitorParamSetter::Options().factor(0.5).patience(2));
    trainer->registerCallback(plateau);
    trainer->train({1, 1, 8});  // validations after epochs 3 and 6: two values, patience 2
    QCOMPARE(plateau->changes(), 0);
    QCOMPARE(plateau->best(), 0.5);
    QCOMPARE(plateau->badEpochs(), int64_t{1});
    QCOMPARE(trainer->learningRate().get(), 0.1);
  }

  void periodicTriggerKeepsTheWrappedPerStepCheck() {
    // PeriodicTrigger(CheckNumerics) must still check the cost after every step.
    auto trainer = makeNoOpTrainer([](NoOpTrainer& t) {
      t.monitors().putScalar("cost", t.globalStep() == 4 ? std::nan("") : 1.0);
    });
    trainer->registerCallback(std::make_shared<PeriodicTrigger>(
        std::make_shared<CheckNumerics>(), PeriodicTriggerOptions().epochs(10)));
    try {
      trainer->train({3, 1, 4});
      QFAIL("expected a NumericError");
    } catch (const NumericError& e) {
      // The cost was put during step 5's runStep, while globalStep() is still 4: the monitors
      // stamp it 4, and CheckNumerics (which sees every value as the monitors get it, Note [Step
      // scalars read in batches]) names the value's own stamp.
      QVERIFY2(std::string(e.what()).find("the cost is nan at epoch 2, global step 4") !=
                   std::string::npos,
               e.what());
    }
  }

  void periodicThroughputReportsEveryKSteps() {
    auto trainer = makeNoOpTrainer();
    auto history = attachHistory(*trainer);
    trainer->registerCallback(std::make_shared<PeriodicTrigger>(
        std::make_shared<ThroughputTracker>(), PeriodicTriggerOptions().steps(10)));
    trainer->train({25, 1, 2});  // 50 steps
    const auto steps = history->get("ThroughputTracker/steps_per_sec");
    QCOMPARE(steps.size(), size_t{5});
    QCOMPARE(steps[0].globalStep, int64_t{10});
    for (const auto& p : steps) QVERIFY(p.value > 0);
  }

  void secondsInCallbacksCountsTheHookRunningNow() {
    // ThroughputTracker restarts its clock inside its own trigger: the callbacks' time it reads
    // there must already hold that hook's time so far, or the next window subtracts it again
    // (CI saw 0 steps/s from a NoOp run whose 10 steps took less than the tracker's own hook).
    struct Reader : Callback {
      std::vector<double> grew;
      void onTriggerStep() override {
        const double before = context().secondsInCallbacks();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        grew.push_back(context().secondsInCallbacks() - before);
      }
    };
    auto trainer = makeNoOpTrainer();
    auto reader = std::make_shared<Reader>();
    trainer->registerCallback(reader);
    trainer->train({2, 1, 1});
    QCOMPARE(reader->grew.size(), size_t{2});
    for (double g : reader->grew) QVERIFY2(g >= 0.019, std::to_string(g).c_str());
  }

  void enableCallbackIfLeavesSetupBeforeAndAfterTrainAlone() {
    auto trainer = makeNoOpTrainer();
    auto rec = std::make_shared<Recorder>();
    trainer->registerCallback(
        std::make_shared<EnableCallbackIf>(rec, [](const TrainerContext&) { return false; }));
    trainer->train({2, 1, 2});
    QCOMPARE(stepsOf(rec->events, "beforeTrain").size(), size_t{1});
    QCOMPARE(stepsOf(rec->events, "afterTrain").size(), size_t{1});
    QVERIFY(stepsOf(rec->events, "beforeEpoch").empty());
    QVERIFY(stepsOf(rec->events, "beforeRun").empty());
    QVERIFY(stepsOf(rec->events, "triggerStep").empty());
    QVERIFY(stepsOf(rec->events, "triggerEpoch").empty());
  }

  // On a GPU a callback that reads a step's value (the progress bar's cost) waits in
  // readStepScalars for the steps queued on the device: that is the steps' time. Here every
  // read after a step takes 20 ms (the device's work): the rate must count it, at most 50
  // steps/s; it had been excluded as the callback's, for thousands of steps/s.
  void aCallbacksWaitForTheStepsValuesIsTheStepsTime() {
    struct SlowDevice : NoOpTrainer {
      using NoOpTrainer::NoOpTrainer;
      int64_t readAt = 0;
      void readStepScalars() override {
        if (globalStep() == readAt) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        readAt = globalStep();
      }
    };
    SlowDevice trainer(std::make_shared<DummyConstantInput>(4), tbench::testing::loopSpecs());
    auto history = attachHistory(trainer);
    trainer.registerCallback(CallbackFactory::everyStep(
        "reader", [](TrainerContext& c) { (void)c.monitors().latest("cost"); }));
    trainer.registerCallback(std::make_shared<ThroughputTracker>());
    trainer.train({10, 1, 2});
    const auto steps = history->get("ThroughputTracker/steps_per_sec");
    QCOMPARE(steps.size(), size_t{2});
    for (const auto& p : steps) QVERIFY2(p.value <= 51, std::to_string(p.value).c_str());
  }

  void throughputTrackerReportsRates() {
    auto trainer = makeNoOpTrainer();
    auto history = attachHistory(*trainer);
    trainer->registerCallback(std::make_shared<ThroughputTracker>());
    trainer->train({50, 1, 2});
    const auto& steps = history->get("ThroughputTracker/steps_per_sec");
    const auto& samples = history->get("ThroughputTracker/samples_per_sec");
    QCOMPARE(steps.size(), size_t{2});
    QVERIFY(steps[0].value > 0);
    QCOMPARE(samples[1].value, steps[1].value * 4);  // batch 4, one tower
  }
};

}  // namespace test_Callbacks

TB_TEST_GUILESS_MAIN(test_Callbacks::TestCallbacks)
#include "test_Callbacks.moc"
