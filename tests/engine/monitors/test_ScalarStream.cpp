// ScalarStream through the real loop (NoOpTrainer): scalars.jsonl holds one JSON object per
// line, whole lines only; the first value of a scalar and the last of every epoch are there
// whatever the throttle held back; non-finite values are strings; a resumed run appends (after
// dropping what came after its step); a file that cannot be opened or written is logged, training
// goes on to its last epoch, and the run ends failed naming the file and the first step it lacks
// (Note [Records that cannot be written]).
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/ScalarStream.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ScalarStream {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;
namespace fs = std::filesystem;

namespace {

/// "cost" = 100 * epoch + step in epoch at every step; "odd" = NaN at every epoch's end.
CallbackPtr source() {
  CallbackFactory::Hooks hooks;
  hooks.triggerStep = [](TrainerContext& c) {
    c.monitors().putScalar("cost", 100.0 * double(c.epochNum()) + double(c.localStep()));
  };
  hooks.trigger = [](TrainerContext& c) {
    c.monitors().putScalar("odd", std::numeric_limits<double>::quiet_NaN());
  };
  return std::make_shared<CallbackFactory>("source", hooks);
}

std::vector<nlohmann::json> readLines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

/// Trains epochs firstEpoch..maxEpoch of 50 steps, counting in `epochs` those that ended.
void run(const std::string& runDir, int64_t firstEpoch, int64_t maxEpoch,
         const std::string& path = "", int* epochs = nullptr) {
  auto trainer = makeNoOpTrainer();
  trainer->setRunDir(runDir);
  auto stream = std::make_shared<ScalarStream>(path);
  trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{stream}));
  trainer->registerCallback(source());
  trainer->registerCallback(
      std::make_shared<CallbackFactory>("epochs", CallbackFactory::Hooks{{},
                                                                         {},
                                                                         {},
                                                                         {},
                                                                         [epochs](TrainerContext&) {
                                                                           if (epochs) ++*epochs;
                                                                         },
                                                                         {}}));
  trainer->train({50, firstEpoch, maxEpoch, std::nullopt});
}

/// The message of the std::runtime_error `f` throws; empty when it throws nothing.
template <typename F>
std::string failure(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestScalarStream : public QObject {
  Q_OBJECT

 private slots:
  void everyLineIsAScalarAndEveryEpochsLastValueIsThere() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    run(root, 1, 2);
    const auto lines = readLines(root + "/scalars.jsonl");
    QVERIFY(!lines.empty());
    std::map<int64_t, double> lastCostOfEpoch;
    int odd = 0;
    for (const auto& line : lines) {
      QVERIFY(line.contains("name") && line.contains("step") && line.contains("epoch") &&
              line.contains("time") && line.contains("value"));
      if (line["name"] == "cost") lastCostOfEpoch[line["epoch"]] = line["value"].get<double>();
      if (line["name"] == "odd") {
        QCOMPARE(line["value"].get<std::string>(), std::string("nan"));
        ++odd;
      }
    }
    // 50 steps a few microseconds apart: the throttle keeps few, but never an epoch's last.
    QVERIFY2(lines.size() < 100, std::to_string(lines.size()).c_str());
    QCOMPARE(lastCostOfEpoch.at(1), 149.0);
    QCOMPARE(lastCostOfEpoch.at(2), 249.0);
    QCOMPARE(lines.front()["name"].get<std::string>(), std::string("cost"));
    QCOMPARE(lines.front()["value"].get<double>(), 100.0);  // the first value goes out at once
    QCOMPARE(odd, 2);
    // Lines are in step order.
    for (size_t i = 1; i < lines.size(); ++i)
      QVERIFY(lines[i]["step"].get<int64_t>() >= lines[i - 1]["step"].get<int64_t>());
  }

  void aResumedRunAppends() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    run(root, 1, 1);
    const size_t first = readLines(root + "/scalars.jsonl").size();
    run(root, 2, 2);
    const auto lines = readLines(root + "/scalars.jsonl");
    QVERIFY(lines.size() > first);
    QCOMPARE(lines.back()["epoch"].get<int64_t>(), int64_t{2});
  }

  // Note [A resumed stream]: a run killed after its last checkpoint (end of epoch 1) had
  // written epochs 2 and 3 and half a line; the run resumed from step 50 drops them, so the
  // file has one value a step, in step order, every line whole.
  void aResumedRunDropsWhatCameAfterItsCheckpoint() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString(), path = root + "/scalars.jsonl";
    run(root, 1, 1);
    const std::vector<nlohmann::json> kept = readLines(path);
    run(root, 2, 3);  // the dead tail
    std::ofstream(path, std::ios::app)
        << "{\"epoch\":3,\"name\":\"co";  // cut (not a raw string: moc miscounts its quotes)
    run(root, 2, 3);                      // the resume
    const std::vector<nlohmann::json> lines = readLines(path);  // throws on a cut line
    QVERIFY(lines.size() > kept.size());
    for (size_t i = 0; i < kept.size(); ++i) QCOMPARE(lines[i], kept[i]);
    for (size_t i = 1; i < lines.size(); ++i) {
      QVERIFY2(lines[i]["step"].get<int64_t>() >= lines[i - 1]["step"].get<int64_t>(),
               lines[i].dump().c_str());
    }
    QCOMPARE(lines.back()["epoch"].get<int64_t>(), int64_t{3});
  }

  void aFileThatCannotBeOpenedFailsTheRunAtItsEnd() {
    QTemporaryDir dir;
    const std::string missing = dir.path().toStdString() + "/no/such/dir";
    int epochs = 0;
    const std::string said = failure([&] { run(missing, 1, 2, "", &epochs); });
    QCOMPARE(epochs, 2);  // training went on
    QVERIFY(!fs::exists(missing + "/scalars.jsonl"));
    for (const std::string& part : {missing + "/scalars.jsonl", std::string("global step 1 on"),
                                    std::string("No such file or directory")}) {
      QVERIFY2(said.find(part) != std::string::npos, said.c_str());
    }
  }

  // /dev/full opens, takes the lines into stdio's buffer and refuses them at the flush, as a
  // filesystem that fills does.
  void aDiskThatFillsFailsTheRunAtItsEnd() {
    QTemporaryDir dir;
    int epochs = 0;
    const std::string said =
        failure([&] { run(dir.path().toStdString(), 1, 3, "/dev/full", &epochs); });
    QCOMPARE(epochs, 3);
    QVERIFY2(said.find("/dev/full lacks the scalars from global step 0 on: No space left on "
                       "device") != std::string::npos,
             said.c_str());
  }
};

}  // namespace test_ScalarStream

TB_TEST_GUILESS_MAIN(test_ScalarStream::TestScalarStream)
#include "test_ScalarStream.moc"
