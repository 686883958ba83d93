// Monitors, JSONWriter (stats.json) and ScalarHistory through the real loop.

#include <QtTest>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/monitors/JSONWriter.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/ScalarHistory.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Monitors {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;

namespace {

/// Puts "loss" = 10 / globalStep after every step and "val" once per epoch.
CallbackPtr scalarSource() {
  return std::make_shared<CallbackFactory>(
      "source",
      CallbackFactory::Hooks{
          {},
          {},
          {},
          [](TrainerContext& c) { c.monitors().putScalar("loss", 10.0 / c.globalStep()); },
          [](TrainerContext& c) { c.monitors().putScalar("val", c.epochNum() * 1.5); },
          {}});
}

nlohmann::json runInto(const std::string& dir, LoopOptions options,
                       std::shared_ptr<ScalarHistory> history = nullptr) {
  auto trainer = makeNoOpTrainer();
  trainer->setRunDir(dir);
  std::vector<TrainingMonitorPtr> monitors{std::make_shared<JSONWriter>()};
  if (history) monitors.push_back(history);
  trainer->setMonitors(std::make_shared<Monitors>(monitors));
  trainer->registerCallback(scalarSource());
  trainer->train(options);
  return JSONWriter::load(dir + "/stats.json");
}

}  // namespace

class TestMonitors : public QObject {
  Q_OBJECT
 private slots:
  void statsJsonHasOneEntryPerEpoch() {
    QTemporaryDir dir;
    auto history = std::make_shared<ScalarHistory>();
    const auto stats = runInto(dir.path().toStdString(), {4, 1, 3}, history);
    QCOMPARE(stats.size(), size_t{3});
    QCOMPARE(stats[1]["epoch_num"].get<int64_t>(), int64_t{2});
    QCOMPARE(stats[1]["global_step"].get<int64_t>(), int64_t{8});
    QCOMPARE(stats[1]["loss"].get<double>(), 10.0 / 8);  // the latest value of the epoch
    QCOMPARE(stats[2]["val"].get<double>(), 4.5);
    // No temporary file is left behind.
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
      ++files;
      QVERIFY2(e.path().filename() == "stats.json", e.path().c_str());
    }
    QCOMPARE(files, 1);
    // ScalarHistory saw every value with its step.
    QCOMPARE(history->get("loss").size(), size_t{12});
    QCOMPARE(history->get("loss")[4].globalStep, int64_t{5});
    QCOMPARE(history->get("val")[0].epochNum, int64_t{1});
  }

  void resumedRunAppendsAndDropsEntriesPastItsStart() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    runInto(path, {4, 1, 3});  // entries at global steps 4, 8, 12
    // Continue from the end of epoch 2 (as if the last checkpoint were at step 8).
    const auto stats = runInto(path, {4, 3, 4});
    QCOMPARE(stats.size(), size_t{4});
    std::vector<int64_t> steps;
    for (const auto& e : stats) steps.push_back(e["global_step"].get<int64_t>());
    QCOMPARE(steps, (std::vector<int64_t>{4, 8, 12, 16}));
    QCOMPARE(stats[2]["epoch_num"].get<int64_t>(), int64_t{3});
  }

  void flushesPendingScalarsWhenStoppedMidEpoch() {
    QTemporaryDir dir;
    auto trainer = makeNoOpTrainer([](NoOpTrainer& t) {
      if (t.globalStep() == 5) t.requestStop();
    });
    trainer->setRunDir(dir.path().toStdString());
    trainer->setMonitors(std::make_shared<Monitors>(
        std::vector<TrainingMonitorPtr>{std::make_shared<JSONWriter>()}));
    trainer->registerCallback(scalarSource());
    trainer->train({4, 1, 3});
    const auto stats = JSONWriter::load(dir.path().toStdString() + "/stats.json");
    QCOMPARE(stats.size(), size_t{2});
    QCOMPARE(stats[1]["global_step"].get<int64_t>(), int64_t{6});
  }

  // Note [Records that cannot be written]: stats.json's directory is missing during epochs 1
  // and 2 (each write fails, training goes on) and appears before epoch 3 (the whole file is
  // written, holes filled: a success); it never appears (the run fails at its end, naming the
  // file and the first step missing).
  void aStatsFileThatCannotBeWrittenFailsTheRunUnlessALaterWriteWorks() {
    for (const bool appears : {true, false}) {
      QTemporaryDir dir;
      const std::string later = dir.path().toStdString() + "/later";
      auto trainer = makeNoOpTrainer();
      trainer->setRunDir(dir.path().toStdString());
      trainer->setMonitors(std::make_shared<Monitors>(
          std::vector<TrainingMonitorPtr>{std::make_shared<JSONWriter>(later + "/stats.json")}));
      trainer->registerCallback(scalarSource());
      trainer->registerCallback(std::make_shared<CallbackFactory>(
          "mkdir", CallbackFactory::Hooks{{},
                                          {},
                                          [&](TrainerContext& c) {
                                            if (appears && c.epochNum() == 3) {
                                              std::filesystem::create_directory(later);
                                            }
                                          },
                                          {},
                                          {},
                                          {}}));
      std::string said;
      try {
        trainer->train({4, 1, 3});
      } catch (const std::runtime_error& e) {
        said = e.what();
      }
      QCOMPARE(trainer->globalStep(), int64_t{12});  // every epoch trained
      if (appears) {
        QVERIFY2(said.empty(), said.c_str());
        const auto stats = JSONWriter::load(later + "/stats.json");
        QCOMPARE(stats.size(), size_t{3});  // epochs 1 and 2 are in it too
        QCOMPARE(stats[0]["global_step"].get<int64_t>(), int64_t{4});
      } else {
        QVERIFY2(said.find(later + "/stats.json lacks the stats from global step 4 on") !=
                     std::string::npos,
                 said.c_str());
      }
    }
  }

  void nonFiniteValuesStayVisible() {
    QTemporaryDir dir;
    auto trainer = makeNoOpTrainer();
    trainer->setRunDir(dir.path().toStdString());
    trainer->setMonitors(std::make_shared<Monitors>(
        std::vector<TrainingMonitorPtr>{std::make_shared<JSONWriter>()}));
    trainer->registerCallback(std::make_shared<CallbackFactory>(
        "nan", CallbackFactory::Hooks{
                   {},
                   {},
                   {},
                   {},
                   [](TrainerContext& c) { c.monitors().putScalar("cost", std::nan("")); },
                   {}}));
    trainer->train({1, 1, 1});
    const auto stats = JSONWriter::load(dir.path().toStdString() + "/stats.json");
    QCOMPARE(stats[0]["cost"].get<std::string>(), std::string("nan"));
  }

  void loadRejectsAFileThatIsNotAList() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/stats.json";
    writeFileAtomically(path, "{\"cost\": 1}");
    try {
      JSONWriter::load(path);
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
    }
  }

  // A resumed run's stats.json whose "global_step" is not an integer: get<int64_t> had thrown
  // nlohmann's type_error, which does not name the file, or cast 1e300 (undefined).
  void resumingRefusesAStepThatIsNotAnInteger() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/stats.json";
    for (const char* step : {"\"8\"", "1e300", "12.0", "18446744073709551615", "null"}) {
      writeFileAtomically(path, str("[{\"global_step\": 4}, {\"global_step\": ", step, "}]"));
      try {
        JSONWriter::loadUpTo(path, 8);
        QFAIL(step);
      } catch (const InputError& e) {
        QVERIFY2(
            std::string(e.what()).find(path + ": entry 1 has \"global_step\"") != std::string::npos,
            e.what());
      }
    }
    writeFileAtomically(path, R"([{"global_step": 4}, 3, {"cost": 1}, {"global_step": 9}])");
    QCOMPARE(JSONWriter::loadUpTo(path, 8).size(), size_t{2});  // steps 4 and 0
  }

  void scalarHistoryKeepsBoundedMemory() {
    // Issue 10: the history kept every per-step value for ever. Now: the newest N per scalar
    // and one value per epoch.
    auto trainer = makeNoOpTrainer([](NoOpTrainer& t) {
      t.monitors().putScalar("loss", static_cast<double>(t.globalStep()));
    });
    auto history = std::make_shared<ScalarHistory>(100);
    trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{history}));
    trainer->train({1000, 1, 5});  // 5000 values
    const auto recent = history->get("loss");
    QCOMPARE(recent.size(), size_t{100});
    QCOMPARE(recent.front().value, 4900.0);  // put during the step that starts at 4900
    QCOMPARE(recent.back().value, 4999.0);
    QCOMPARE(history->count("loss"), int64_t{5000});
    const auto epochs = history->perEpoch("loss");
    QCOMPARE(epochs.size(), size_t{5});
    QCOMPARE(epochs[1].value, 1999.0);  // the last value of epoch 2
    QCOMPARE(epochs[1].epochNum, int64_t{2});
    QCOMPARE(history->names(), (std::vector<std::string>{"learning_rate", "loss"}));
  }

  void latestValueIsVisibleToCallbacks() {
    auto trainer = makeNoOpTrainer();
    std::optional<double> seen;
    trainer->registerCallback(scalarSource());
    trainer->registerCallback(std::make_shared<CallbackFactory>(
        "reader",
        CallbackFactory::Hooks{
            {}, {}, {}, {}, [&](TrainerContext& c) { seen = c.monitors().latest("loss"); }, {}}));
    trainer->train({5, 1, 1});
    QVERIFY(seen.has_value());
    QCOMPARE(*seen, 2.0);
  }
};

}  // namespace test_Monitors

TB_TEST_GUILESS_MAIN(test_Monitors::TestMonitors)
#include "test_Monitors.moc"
