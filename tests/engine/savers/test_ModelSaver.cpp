// ModelSaver, MinSaver/MaxSaver and the checkpoint index, in the real training loop
// (SimpleTrainer on a tiny MLP over fixed batches) writing into a temporary run directory.

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/callbacks/EnableCallbackIf.h"

#include <torch/torch.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/callbacks/EnableCallbackIf.h"
#include "engine/callbacks/PeriodicTrigger.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/savers/MinMaxSaver.h"
#include "engine/savers/ModelSaver.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/ExpectError.h"
#include "tests/support/TinyMlp.h"

using namespace tbench;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<SupervisedModel> makeModel() { return testing::tinyMlpModel(); }

std::vector<Datapoint> fixedBatches(int n) { return testing::randomBatches(n, 8); }

/// Trains epochs [startingEpoch, maxEpoch] of 2 steps each in `runDir` with `callbacks`.
/// Returns the trainer's final global step.
int64_t train(const std::string& runDir, std::vector<CallbackPtr> callbacks, int64_t maxEpoch,
              int64_t startingEpoch = 1) {
  TrainConfig config = TrainConfig::quiet();
  config.model = makeModel();
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(fixedBatches(2)));
  config.callbacks = std::move(callbacks);
  config.stepsPerEpoch = 2;
  config.startingEpoch = startingEpoch;
  config.maxEpoch = maxEpoch;
  config.runDir = runDir;
  config.seed = 1;
  config.numThreads = 1;
  SimpleTrainer trainer;
  launchTrainWithConfig(config, trainer);
  return trainer.globalStep();
}

/// A callback that puts `stat` with values[epoch] (when there is one) on every trigger.
CallbackPtr statProducer(const std::string& stat, std::map<int64_t, double> values) {
  return CallbackFactory::everyTrigger("produce " + stat, [stat, values](TrainerContext& c) {
    auto it = values.find(c.epochNum());
    if (it != values.end()) c.monitors().putScalar(stat, it->second);
  });
}

std::vector<std::string> filesIn(const std::string& dir, const std::string& prefix = "") {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Captures log lines at Warning and above while alive.
class LogCapture {
 public:
  LogCapture() { logging::setExtraSink(&LogCapture::sink, this); }
  ~LogCapture() { logging::setExtraSink(nullptr, nullptr); }
  std::vector<std::string> containing(const std::string& text) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& line : lines_) {
      if (line.find(text) != std::string::npos) out.push_back(line);
    }
    return out;
  }

 private:
  static void sink(LogLevel level, const std::string& line, void* user) {
    auto* self = static_cast<LogCapture*>(user);
    std::lock_guard<std::mutex> lock(self->mutex_);
    if (level >= LogLevel::Warning) self->lines_.push_back(line);
  }
  mutable std::mutex mutex_;  // guards lines_
  std::vector<std::string> lines_;
};

std::shared_ptr<ModelSaver> saver(int64_t maxToKeep, double hours = 0) {
  return std::make_shared<ModelSaver>(
      ModelSaver::Options().maxToKeep(maxToKeep).keepCheckpointEveryNHours(hours));
}

}  // namespace

class TestModelSaver : public QObject {
  Q_OBJECT

 private slots:
  // Note [Checkpoint after the triggers]: a save triggered in beforeTrain (PeriodicTrigger's
  // atStart) is written before the first step, with the initial weights.
  void atStartSavesTheStateBeforeTheFirstStep() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    train(dir,
          {std::make_shared<PeriodicTrigger>(saver(5),
                                             PeriodicTriggerOptions().epochs(100).atStart())},
          1);
    const TrainingState start = readCheckpointFile(dir + "/model-0.pt");
    QCOMPARE(start.globalStep, int64_t{0});
    QCOMPARE(start.epochNum, int64_t{0});
  }

  void keepsTheNewestMaxToKeep() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    auto modelSaver = saver(2);
    QCOMPARE(train(dir, {modelSaver}, 5), int64_t{10});

    QCOMPARE(filesIn(dir, "model-"), (std::vector<std::string>{"model-10.pt", "model-8.pt"}));
    const auto index = CheckpointIndex::read(dir);
    QVERIFY(index.has_value());
    QCOMPARE(index->latest, std::string("model-10.pt"));
    QCOMPARE(index->all, (std::vector<std::string>{"model-8.pt", "model-10.pt"}));
    QVERIFY(index->kept.empty());
    const TrainingState last = readCheckpointFile(dir + "/model-10.pt");
    QCOMPARE(last.globalStep, int64_t{10});
    QCOMPARE(last.epochNum, int64_t{5});
    QCOMPARE(readCheckpointFile(dir + "/model-8.pt").epochNum, int64_t{4});
    QCOMPARE(modelSaver->lastSavedStep(), int64_t{10});
    QCOMPARE(filesIn(dir), (std::vector<std::string>{"checkpoint", "model-10.pt", "model-8.pt"}));
    QCOMPARE(latestCheckpoint(dir), dir + "/model-10.pt");
  }

  void manualSavesAreKeptAndMarked() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    auto modelSaver = saver(2);
    // "Save now" at step 3 (mid-epoch) and at step 6 (an epoch end, saved by the schedule too).
    auto saveNow = CallbackFactory::everyStep("save now", [&](TrainerContext& c) {
      if (c.globalStep() == 3 || c.globalStep() == 6) modelSaver->saveNow();
    });
    QCOMPARE(train(dir, {modelSaver, saveNow}, 6), int64_t{12});

    QCOMPARE(filesIn(dir, "model-"),
             (std::vector<std::string>{"model-10.pt", "model-12.pt", "model-3.pt", "model-6.pt"}));
    auto index = CheckpointIndex::read(dir);
    QVERIFY(index.has_value());
    QCOMPARE(index->manual, (std::vector<std::string>{"model-3.pt", "model-6.pt"}));
    QCOMPARE(index->kept, (std::vector<std::string>{"model-3.pt", "model-6.pt"}));
    QCOMPARE(index->all,
             (std::vector<std::string>{"model-3.pt", "model-6.pt", "model-10.pt", "model-12.pt"}));
    QVERIFY(index->isManual("model-6.pt") && !index->isManual("model-12.pt"));

    // A run that continues in the directory keeps them manual and never deletes them.
    train(dir, {saver(1)}, 9, 7);
    index = CheckpointIndex::read(dir);
    QCOMPARE(index->manual, (std::vector<std::string>{"model-3.pt", "model-6.pt"}));
    QCOMPARE(filesIn(dir, "model-"),
             (std::vector<std::string>{"model-18.pt", "model-3.pt", "model-6.pt"}));
  }

  void indexWithoutManualListReadsAsBefore() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    std::ofstream(dir + "/checkpoint")
        << R"({"latest": "model-4.pt", "all": ["model-2.pt", "model-4.pt"], "kept": ["model-2.pt"]})";
    const auto index = CheckpointIndex::read(dir);
    QVERIFY(index.has_value());
    QVERIFY(index->manual.empty());
    QCOMPARE(index->kept, std::vector<std::string>{"model-2.pt"});
    index->write(dir);  // no "manual" key is written for an index without manual saves
    std::ifstream in(dir + "/checkpoint");
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    QVERIFY(text.find("manual") == std::string::npos);
  }

  void keepsOnePerIntervalForGood() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    // An interval of ~4 ns: every checkpoint that leaves the window is kept.
    train(dir, {saver(2, 1e-12)}, 5);
    QCOMPARE(filesIn(dir, "model-").size(), size_t{5});
    auto index = CheckpointIndex::read(dir);
    QCOMPARE(index->kept, (std::vector<std::string>{"model-2.pt", "model-4.pt", "model-6.pt"}));
    QCOMPARE(index->all.size(), size_t{5});
    QCOMPARE(index->all.back(), std::string("model-10.pt"));

    // The run continues in the directory: kept files stay, the window moves on.
    train(dir, {saver(2, 0)}, 7, 6);
    QCOMPARE(filesIn(dir, "model-"),
             (std::vector<std::string>{"model-12.pt", "model-14.pt", "model-2.pt", "model-4.pt",
                                       "model-6.pt"}));
    index = CheckpointIndex::read(dir);
    QCOMPARE(index->latest, std::string("model-14.pt"));
    QCOMPARE(index->all, (std::vector<std::string>{"model-2.pt", "model-4.pt", "model-6.pt",
                                                   "model-12.pt", "model-14.pt"}));
  }

  void periodicTriggerAndFinalSave() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    auto every3 = std::make_shared<PeriodicTrigger>(saver(10), PeriodicTriggerOptions().steps(3));
    train(dir, {every3}, 5);
    // Steps 3, 6, 9 by the schedule, 10 in afterTrain because the last save was not at the end.
    QCOMPARE(CheckpointIndex::read(dir)->all,
             (std::vector<std::string>{"model-3.pt", "model-6.pt", "model-9.pt", "model-10.pt"}));

    QTemporaryDir tmp2;
    auto noFinal = std::make_shared<ModelSaver>(ModelSaver::Options().saveOnAfterTrain(false));
    train(tmp2.path().toStdString(),
          {std::make_shared<PeriodicTrigger>(noFinal, PeriodicTriggerOptions().steps(3))}, 5);
    QCOMPARE(CheckpointIndex::read(tmp2.path().toStdString())->latest, std::string("model-9.pt"));
  }

  void stoppedRunSavesItsFinalStateButAFailedOneDoesNot() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    auto stopAt3 = CallbackFactory::everyStep("stop", [](TrainerContext& c) {
      if (c.globalStep() == 3) c.requestStop();
    });
    QCOMPARE(train(dir, {saver(10), stopAt3}, 5), int64_t{3});
    QCOMPARE(CheckpointIndex::read(dir)->all,
             (std::vector<std::string>{"model-2.pt", "model-3.pt"}));
    QCOMPARE(readCheckpointFile(dir + "/model-3.pt").globalStep, int64_t{3});

    QTemporaryDir tmp2;
    const std::string dir2 = tmp2.path().toStdString();
    auto failAt3 = CallbackFactory::everyStep("fail", [](TrainerContext& c) {
      if (c.globalStep() == 3) throw std::runtime_error("loss is NaN");
    });
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, train(dir2, {saver(10), failAt3}, 5));
    QCOMPARE(filesIn(dir2, "model-"), std::vector<std::string>{"model-2.pt"});
    QCOMPARE(CheckpointIndex::read(dir2)->latest, std::string("model-2.pt"));
  }

  void failedWriteKeepsWhatWasThereAndTrainingGoesOn() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    // model-6.pt is a directory: the third save cannot rename onto it.
    QVERIFY(QDir(tmp.path()).mkdir("model-6.pt"));
    std::vector<std::string> afterFailure;
    std::string latestAfterFailure;
    int64_t stepOfLatest = 0;
    auto inspect = CallbackFactory::everyTrigger("inspect", [&](TrainerContext& c) {
      if (c.globalStep() != 6) return;
      afterFailure = filesIn(dir, "model-");
      latestAfterFailure = CheckpointIndex::read(dir)->latest;
      stepOfLatest = readCheckpointFile(dir + "/" + latestAfterFailure).globalStep;
    });
    LogCapture log;
    QCOMPARE(train(dir, {saver(2), inspect}, 5), int64_t{10});

    QCOMPARE(afterFailure,
             (std::vector<std::string>{"model-2.pt", "model-4.pt", "model-6.pt"}));  // + the dir
    QCOMPARE(latestAfterFailure, std::string("model-4.pt"));
    QCOMPARE(stepOfLatest, int64_t{4});
    const auto errors = log.containing("ERR");
    QCOMPARE(errors.size(), size_t{1});
    QVERIFY2(errors[0].find(dir + "/model-6.pt") != std::string::npos, errors[0].c_str());
    QVERIFY2(errors[0].find("Is a directory") != std::string::npos, errors[0].c_str());
    QCOMPARE(CheckpointIndex::read(dir)->all,
             (std::vector<std::string>{"model-8.pt", "model-10.pt"}));
    QVERIFY(fs::is_directory(dir + "/model-6.pt"));
    QVERIFY(filesIn(dir, "model-6.pt.tmp").empty());
  }

  // Note [A checkpoint that cannot be written]: the last save fails (model-10.pt is a
  // directory), so the run's final state is on no disk: training ran to its end, then fails,
  // naming the step, the file, the reason and the checkpoint to resume from, which loads.
  void aRunWhoseLastStateIsOnNoDiskFails() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    QVERIFY(QDir(tmp.path()).mkdir("model-10.pt"));
    LogCapture log;
    std::string message;
    int64_t lastStep = 0;
    auto watch = CallbackFactory::everyTrigger(
        "watch", [&](TrainerContext& c) { lastStep = c.globalStep(); });
    try {
      train(dir, {saver(2), watch}, 5);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    QCOMPARE(lastStep, int64_t{10});  // every step trained
    for (const std::string& part : {std::string("the state of global step 10 is on no disk"),
                                    dir + "/model-10.pt", std::string("Is a directory"),
                                    dir + "/model-8.pt (global step 8)", std::string("--resume")}) {
      QVERIFY2(message.find(part) != std::string::npos, (part + " not in: " + message).c_str());
    }
    QCOMPARE(CheckpointIndex::read(dir)->latest, std::string("model-8.pt"));
    QCOMPARE(readCheckpointFile(dir + "/model-8.pt").globalStep, int64_t{8});
    // The newest checkpoint deleted meanwhile: the message says none is left.
    QTemporaryDir deleted;
    const std::string d = deleted.path().toStdString();
    QVERIFY(QDir(deleted.path()).mkdir("model-10.pt"));
    auto remove = CallbackFactory::everyTrigger("remove", [&](TrainerContext& c) {
      if (c.globalStep() == 10) fs::remove(d + "/model-8.pt");
    });
    message.clear();
    try {
      train(d, {saver(2), remove}, 5);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    QVERIFY2(message.find("no checkpoint of this run is left: " + d + "/model-8.pt is gone") !=
                 std::string::npos,
             message.c_str());
    // A save that works again clears it: model-6.pt blocked, model-8 and model-10 written.
    QTemporaryDir again;
    QVERIFY(QDir(again.path()).mkdir("model-6.pt"));
    QCOMPARE(train(again.path().toStdString(), {saver(2)}, 5), int64_t{10});
  }

  void failedIndexWriteDeletesNothing() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    int64_t blockAt = 6;
    // At step 6 the index path is made a directory, so that index write fails; at step 8 it
    // is removed again.
    auto sabotage = CallbackFactory::everyTrigger("sabotage", [&](TrainerContext& c) {
      if (c.globalStep() == blockAt) {
        fs::remove(dir + "/checkpoint");
        fs::create_directory(dir + "/checkpoint");
      } else if (c.globalStep() == blockAt + 2) {
        fs::remove(dir + "/checkpoint");
      }
    });
    std::vector<std::string> atFailure;
    // Looked at after the saver wrote (Note [Checkpoint after the triggers]).
    auto inspect = CallbackFactory::everyTrigger("inspect", [&](TrainerContext& c) {
      if (c.globalStep() == blockAt) c.afterTriggers([&] { atFailure = filesIn(dir, "model-"); });
    });
    LogCapture log;
    train(dir, {sabotage, saver(2), inspect}, 5);
    // Nothing deleted while the index could not be written.
    QCOMPARE(atFailure, (std::vector<std::string>{"model-2.pt", "model-4.pt", "model-6.pt"}));
    QCOMPARE(log.containing("cannot update the index").size(), size_t{1});
    // Step 8 wrote a fresh index (the old one was gone) and caught up with retention.
    QCOMPARE(filesIn(dir, "model-"), (std::vector<std::string>{"model-10.pt", "model-8.pt"}));
    QCOMPARE(CheckpointIndex::read(dir)->all,
             (std::vector<std::string>{"model-8.pt", "model-10.pt"}));
  }

  void readOnlyDirectoryIsAnErrorNotACrash() {
    if (::geteuid() == 0) QSKIP("root ignores directory permissions");
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    auto lock = CallbackFactory::everyTrigger("lock", [&](TrainerContext& c) {
      if (c.globalStep() == 4) ::chmod(dir.c_str(), 0555);
    });
    LogCapture log;
    // The final state is on no disk: the run fails (Note [A checkpoint that cannot be written]).
    bool failed = false;
    try {
      train(dir, {saver(2), lock}, 3);
    } catch (const std::runtime_error& e) {
      failed = std::string(e.what()).find("is on no disk") != std::string::npos;
    }
    QVERIFY(failed);
    ::chmod(dir.c_str(), 0755);
    QCOMPARE(CheckpointIndex::read(dir)->latest, std::string("model-4.pt"));
    QVERIFY(!log.containing("Permission denied").empty());
  }

  void removesTempFilesOfKilledWriters() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    for (const char* name : {"model-5.pt.tmp999999", "checkpoint.tmp999999",
                             "min-validation_error.pt.tmp999999", "notes.tmp999999"}) {
      std::ofstream(dir + "/" + name) << "partial";
    }
    train(dir, {saver(2)}, 1);
    QCOMPARE(filesIn(dir),
             (std::vector<std::string>{"checkpoint", "model-2.pt", "notes.tmp999999"}));
  }

  void withoutARunDirectoryItRefusesToStart() {
    TrainConfig config;
    config.model = makeModel();
    config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(fixedBatches(1)));
    config.callbacks = {saver(2)};
    config.extraCallbacks = std::vector<CallbackPtr>{};
    config.stepsPerEpoch = 1;
    SimpleTrainer trainer;
    tbench::testing::expectError([&] { launchTrainWithConfig(config, trainer); }, "ModelSaver",
                                 "runDir");
    QVERIFY_THROWS_EXCEPTION(InputError, ModelSaver(ModelSaver::Options().maxToKeep(0)));
  }

  void minSaverKeepsTheBestEpoch() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const std::map<int64_t, double> values = {{1, 0.5}, {2, 0.3}, {3, 0.4}, {4, 0.2}, {5, 0.25}};
    auto minSaver = std::make_shared<MinSaver>("val/error");
    auto maxSaver = std::make_shared<MaxSaver>("val/error");
    LogCapture log;
    train(dir, {statProducer("val/error", values), saver(10), minSaver, maxSaver}, 5);
    QVERIFY(log.containing("MinSaver").empty());

    QCOMPARE(minSaver->fileName(), std::string("min-val_error.pt"));
    // A copy of ModelSaver's checkpoint of epoch 4, byte for byte.
    QCOMPARE(readFile(dir + "/min-val_error.pt"), readFile(dir + "/model-8.pt"));
    QCOMPARE(readCheckpointFile(dir + "/max-val_error.pt").globalStep, int64_t{2});
    const auto index = CheckpointIndex::read(dir);
    QCOMPARE(index->best.size(), size_t{2});
    const BestCheckpoint& min = index->best.at("val/error");
    QCOMPARE(min.file, std::string("min-val_error.pt"));
    QCOMPARE(min.value, 0.2);
    QCOMPARE(min.globalStep, int64_t{8});
    const BestCheckpoint& max = index->best.at("max-val_error");  // the stat's key is taken
    QCOMPARE(max.file, std::string("max-val_error.pt"));
    QCOMPARE(max.value, 0.5);
    QCOMPARE(max.globalStep, int64_t{2});
    QCOMPARE(index->latest, std::string("model-10.pt"));
    QCOMPARE(*minSaver->best(), 0.2);
    QCOMPARE(*maxSaver->best(), 0.5);
  }

  void minSaverWithoutModelSaverSavesItself() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const std::map<int64_t, double> values = {{1, 0.5}, {2, 0.3}, {3, 0.4}};
    train(dir, {statProducer("loss", values), std::make_shared<MinSaver>("loss")}, 3);
    QCOMPARE(filesIn(dir), (std::vector<std::string>{"checkpoint", "min-loss.pt"}));
    QCOMPARE(readCheckpointFile(dir + "/min-loss.pt").globalStep, int64_t{4});
    const auto index = CheckpointIndex::read(dir);
    QCOMPARE(index->best.at("loss").globalStep, int64_t{4});
    QCOMPARE(index->best.at("loss").value, 0.3);
    QCOMPARE(index->best.at("loss").file, std::string("min-loss.pt"));
    QVERIFY(index->latest.empty());
  }

  void minSaverOrderedBeforeItsProducerStillSaves() {
    // The savers act once every callback has triggered (Note [Checkpoint after the triggers]),
    // so a MinSaver listed before the callback that produces its stat sees the stat of the same
    // epoch: no warning, and the best epoch is saved.
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const std::map<int64_t, double> values = {{1, 0.5}, {2, 0.3}, {3, 0.4}};
    LogCapture log;
    train(
        dir,
        {std::make_shared<MinSaver>("validation_error"), statProducer("validation_error", values)},
        3);
    QVERIFY(log.containing("no callback of this run produces it").empty());
    QCOMPARE(CheckpointIndex::read(dir)->best.at("validation_error").value, 0.3);
    QCOMPARE(readCheckpointFile(dir + "/min-validation_error.pt").globalStep, int64_t{4});
  }

  void minSaverWithoutItsStatWarnsOnce() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    LogCapture log;
    train(dir, {std::make_shared<MinSaver>("validation_error")}, 3);
    const auto warnings = log.containing("MinSaver(validation_error)");
    QCOMPARE(warnings.size(), size_t{1});
    QVERIFY2(warnings[0].find("no callback of this run produces it") != std::string::npos,
             warnings[0].c_str());
    QVERIFY2(warnings[0].find("InferenceRunner") != std::string::npos, warnings[0].c_str());
  }

  void minSaverContinuesFromTheRecordedBest() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    train(dir,
          {statProducer("err", {{1, 0.5}, {2, 0.3}}), saver(5), std::make_shared<MinSaver>("err")},
          2);
    QCOMPARE(CheckpointIndex::read(dir)->best.at("err").globalStep, int64_t{4});

    // Epochs 3-4 are worse than 0.3: the best file and its record stay.
    auto resumed = std::make_shared<MinSaver>("err");
    train(dir, {statProducer("err", {{3, 0.4}, {4, 0.35}}), saver(5), resumed}, 4, 3);
    QCOMPARE(*resumed->best(), 0.3);
    QCOMPARE(readCheckpointFile(dir + "/min-err.pt").globalStep, int64_t{4});
    QCOMPARE(CheckpointIndex::read(dir)->best.at("err").value, 0.3);
    QCOMPARE(CheckpointIndex::read(dir)->latest, std::string("model-8.pt"));

    train(dir, {statProducer("err", {{5, 0.1}}), saver(5), std::make_shared<MinSaver>("err")}, 5,
          5);
    QCOMPARE(readCheckpointFile(dir + "/min-err.pt").globalStep, int64_t{10});
    QCOMPARE(CheckpointIndex::read(dir)->best.at("err").value, 0.1);
  }

  void disabledMinSaverStillReadsTheRecordedBest() {
    // Issue 10: EnableCallbackIf used to gate beforeTrain, so a MinSaver disabled at the start
    // of a resumed run never read the best value from the index, and overwrote min-err.pt with
    // a worse model once enabled.
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    train(dir,
          {statProducer("err", {{1, 0.5}, {2, 0.3}}), saver(5), std::make_shared<MinSaver>("err")},
          2);
    auto resumed = std::make_shared<MinSaver>("err");
    auto fromEpoch4 = std::make_shared<EnableCallbackIf>(
        resumed, [](const TrainerContext& c) { return c.epochNum() >= 4; });
    train(dir, {statProducer("err", {{3, 0.2}, {4, 0.4}}), saver(5), fromEpoch4}, 4, 3);
    QCOMPARE(*resumed->best(), 0.3);  // read in beforeTrain although disabled then
    QCOMPARE(readCheckpointFile(dir + "/min-err.pt").globalStep, int64_t{4});
    QCOMPARE(CheckpointIndex::read(dir)->best.at("err").value, 0.3);
  }

  void latestFallsBackToTheNewestLoadableCheckpoint() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    QVERIFY(!loadLatestCheckpoint(dir).has_value());  // empty run directory
    train(dir, {saver(10)}, 3);                       // model-2, -4, -6
    LogCapture log;
    QCOMPARE(loadLatestCheckpoint(dir)->path, dir + "/model-6.pt");
    QVERIFY(log.containing("WRN").empty());

    // The index's latest is cut off: the newest other that loads, with a warning.
    const std::string six = readFile(dir + "/model-6.pt");
    std::ofstream(dir + "/model-6.pt", std::ios::binary | std::ios::trunc)
        << six.substr(0, six.size() / 2);
    auto found = loadLatestCheckpoint(dir);
    QCOMPARE(found->path, dir + "/model-4.pt");
    QCOMPARE(found->state.globalStep, int64_t{4});
    QVERIFY(!log.containing("model-6.pt").empty());

    // No index at all; then an index that is not JSON; then one naming a missing file.
    fs::remove(dir + "/checkpoint");
    QCOMPARE(latestCheckpoint(dir), dir + "/model-4.pt");
    std::ofstream(dir + "/checkpoint") << "{not json";
    QCOMPARE(latestCheckpoint(dir), dir + "/model-4.pt");
    CheckpointIndex index;
    index.latest = "model-99.pt";
    index.write(dir);
    QCOMPARE(latestCheckpoint(dir), dir + "/model-4.pt");
    fs::remove(dir + "/model-2.pt");
    fs::remove(dir + "/model-4.pt");
    QVERIFY(!loadLatestCheckpoint(dir).has_value());

    QVERIFY_THROWS_EXCEPTION(InputError, loadLatestCheckpoint(dir + "/no-such-dir"));
    // An index that tries to name a file outside the run directory is rejected.
    std::ofstream(dir + "/checkpoint") << R"({"latest": "../model-4.pt", "all": []})";
    QVERIFY_THROWS_EXCEPTION(InputError, CheckpointIndex::read(dir));
  }

  void killedWriterAlwaysLeavesALoadableCheckpoint() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    std::mt19937 rng(11);
    int tempFilesSeen = 0;
    for (int round = 0; round < 10; ++round) {
      QProcess child;
      child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert("TB_QUIET", "1");
      child.setProcessEnvironment(env);
      child.start(CHECKPOINT_WRITER_CHILD, {tmp.path(), QString::number(1 + round * 100000)});
      QVERIFY(child.waitForStarted(10000));
      // Wait until it is saving, then kill it at a different moment of its save cycle.
      QByteArray out;
      while (!out.contains("saved")) {
        QVERIFY2(child.waitForReadyRead(20000), "the writer never saved");
        out += child.readAllStandardOutput();
      }
      QThread::usleep(1000 * (round * 13 % 60) + rng() % 5000);
      child.kill();  // SIGKILL
      QVERIFY(child.waitForFinished(10000));
      QCOMPARE(child.exitStatus(), QProcess::CrashExit);
      for (const auto& name : filesIn(dir)) tempFilesSeen += name.find(".tmp") != std::string::npos;

      // The index is whole and its latest loads, as does every file it lists.
      const auto index = CheckpointIndex::read(dir);
      QVERIFY(index.has_value());
      QVERIFY(!index->latest.empty());
      const TrainingState latest = readCheckpointFile(dir + "/" + index->latest);
      QVERIFY(latest.globalStep > round * 100000);
      for (const auto& name : index->all) readCheckpointFile(dir + "/" + name);
      QCOMPARE(loadLatestCheckpoint(dir)->path, dir + "/" + index->latest);
    }
    qInfo("temporary files left by kills: %d", tempFilesSeen);
  }
};

QTEST_GUILESS_MAIN(TestModelSaver)
#include "test_ModelSaver.moc"
