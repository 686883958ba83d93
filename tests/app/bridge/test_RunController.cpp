// RunController on the engine thread with the synthetic project: signal order, commands at
// step boundaries (stop, pause, save now, learning rate) and failures reported as signals.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/bridge/RunController.h"
#include "engine/checkpoint/Checkpoint.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_RunController {

using namespace tbench;
using namespace tbench::bridge;

namespace {

/// projects/synthetic-mlp.json with its runs under `runRoot` and `edit` applied.
QString syntheticProject(const QString& runRoot,
                         const std::function<void(nlohmann::json&)>& edit = {}) {
  std::ifstream in(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["run_root"] = runRoot.toStdString();
  doc["monitors"] = {{"scalar_printer", false}};
  if (edit) edit(doc);
  return QString::fromStdString(doc.dump(2));
}

StartOptions startOptions(const QString& text, const QString& path) {
  StartOptions options;
  options.projectText = text;
  options.projectPath = path;
  return options;
}

/// A long run (stopped by the test) without savers.
void longRun(nlohmann::json& doc) {
  doc["max_epoch"] = 1000;
  doc["steps_per_epoch"] = 50;
  doc["callbacks"] = nlohmann::json::array();
}

/// Records every signal of a controller as a line, in emission order.
struct SignalLog {
  SignalLog() = default;
  explicit SignalLog(RunController& c) { attach(c); }
  void attach(RunController& c) {
    QObject::connect(&c, &RunController::stateChanged,
                     [this](RunState s) { lines << "state " + toString(s); });
    QObject::connect(&c, &RunController::runStarted,
                     [this](const QString&, qint64, qint64, qint64) { lines << "started"; });
    QObject::connect(&c, &RunController::metrics, [this](const MetricSamples& s) {
      if (lines.isEmpty() || lines.back() != "metrics") lines << "metrics";
      samples += s;
    });
    QObject::connect(&c, &RunController::runFinished,
                     [this](bool early) { lines << (early ? "finished early" : "finished"); });
    QObject::connect(&c, &RunController::runFailed, [this](const QString& m) {
      lines << "failed";
      failure = m;
    });
  }
  QStringList lines;
  MetricSamples samples;
  QString failure;

  QVector<MetricSample> named(const QString& name) const {
    QVector<MetricSample> out;
    for (const auto& s : samples)
      if (s.name == name) out << s;
    return out;
  }
};

bool waitUntil(const std::function<bool()>& condition, int timeoutMs = 60000) {
  QElapsedTimer timer;
  timer.start();
  while (!condition()) {
    if (timer.elapsed() > timeoutMs) return false;
    QTest::qWait(10);
  }
  return true;
}

/// A controller, the directory of its runs and the log of its signals; `startLong` starts a
/// long run (longRun) there. The log outlives the controller, whose destructor stops a run that
/// is still going and emits while it does.
struct Controller {
  Controller() { log.attach(controller); }
  QTemporaryDir root;
  SignalLog log;  // declared first, destroyed last
  RunController controller;
  bool startLong() {
    return controller.start(startOptions(syntheticProject(root.path(), longRun), "long"));
  }
  /// Waits until the run has done `steps` steps.
  bool reaches(qint64 steps) {
    return waitUntil([&] { return controller.globalStep() >= steps; });
  }
};

}  // namespace

class TestRunController : public QObject {
  Q_OBJECT

 private slots:
  void runsTheProjectAndReportsInOrder() {
    QTemporaryDir root;
    RunController controller;
    SignalLog log(controller);
    QSignalSpy started(&controller, &RunController::runStarted);
    QSignalSpy finished(&controller, &RunController::runFinished);
    QSignalSpy progress(&controller, &RunController::progress);
    QSignalSpy logLines(&controller, &RunController::logLines);
    QVERIFY(controller.start(startOptions(syntheticProject(root.path()), "synthetic-mlp.json")));
    QVERIFY(controller.state() == RunState::Starting);
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.front().front().toBool(), false);

    // Starting, then started, then scalars, then the end; nothing after the final state.
    QCOMPARE(log.lines.first(), QString("state starting"));
    QCOMPARE(log.lines.at(1), QString("started"));
    QCOMPARE(log.lines.at(2), QString("state running"));
    QCOMPARE(log.lines.at(log.lines.size() - 2), QString("finished"));
    QCOMPARE(log.lines.last(), QString("state finished"));
    QVERIFY(log.lines.indexOf("metrics") > 2);

    // 2048 samples / batch 64 = 32 steps per epoch, 3 epochs.
    QCOMPARE(started.front().at(1).toLongLong(), 32);
    QCOMPARE(started.front().at(2).toLongLong(), 3);
    QCOMPARE(started.front().at(3).toLongLong(), 64);
    const auto cost = log.named("cost");
    QCOMPARE(cost.size(), 96);
    for (int i = 0; i < cost.size(); ++i) QCOMPARE(cost[i].step, qint64(i + 1));
    QCOMPARE(cost.back().epoch, qint64(3));
    QVERIFY(cost.back().value < cost.front().value);
    QCOMPARE(log.named("validation_error").size(), 3);
    // The learning rate from the first step on (the engine puts it after each epoch too).
    const auto rate = log.named("learning_rate");
    QCOMPARE(rate.size(), 4);
    QCOMPARE(rate.front().step, qint64(1));
    QCOMPARE(rate.back().step, qint64(96));

    QVERIFY(!progress.isEmpty());
    const auto last = progress.back().front().value<RunProgress>();
    QCOMPARE(last.globalStep, qint64(96));
    QCOMPARE(last.epoch, qint64(3));
    QCOMPARE(controller.globalStep(), qint64(96));

    // The run directory is a normal one, started from the GUI; its log reached the window too.
    const QString dir = controller.runDir();
    QVERIFY(dir.startsWith(root.path()));
    QVERIFY(QFile::exists(dir + "/project.json"));
    QVERIFY(QFile::exists(dir + "/stats.json"));
    QFile file(dir + "/log.log");
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY(text.contains("command: started from the GUI (synthetic-mlp.json)"));
    QVERIFY(text.contains("training finished at epoch 3"));
    QStringList shown;
    for (const auto& args : logLines) shown += args.front().toStringList();
    QVERIFY(shown.join('\n').contains("started from the GUI"));
  }

  void imagesPutOnTheEngineThreadArriveAsSignals() {
    QTemporaryDir root;
    RunController controller;
    SignalLog log(controller);
    QList<ImageSample> images;
    QList<bool> onGuiThread;
    connect(&controller, &RunController::imageReceived, this, [&](const ImageSample& image) {
      images << image;
      onGuiThread << (QThread::currentThread() == thread());
      log.lines << "image";
    });
    // dump_images (DumpTensorAsImage) puts 8 validation inputs (8x8 grey) after every epoch.
    const QString project = syntheticProject(root.path(), [](nlohmann::json& doc) {
      doc["callbacks"] = nlohmann::json::array(
          {{{"type", "dump_images"}, {"samples", 8}, {"columns", 4}, {"low", -3}, {"high", 3}}});
    });
    QVERIFY(controller.start(startOptions(project, "synthetic-mlp.json")));
    QVERIFY(controller.waitForEnd(120000));
    QVERIFY(controller.state() == RunState::Finished);

    QCOMPARE(images.size(), 3);
    for (int i = 0; i < images.size(); ++i) {
      const ImageSample& image = images[i];
      QVERIFY(onGuiThread[i]);
      QCOMPARE(image.name, QString("validation_input"));
      QCOMPARE(image.epoch, qint64(i + 1));
      QCOMPARE(image.step, qint64(32 * (i + 1)));
      QVERIFY(image.wallTime > 1.6e9);
      QCOMPARE(image.channels, 1);
      QCOMPARE(image.width, 4 * 8 + 5);
      QCOMPARE(image.height, 2 * 8 + 3);
      QCOMPARE(image.pixels.size(), qsizetype(image.width * image.height));
      QCOMPARE(image.pixels, images.front().pixels);  // the same fixed batch every epoch
    }
    QVERIFY(images.front().pixels.count(char(0)) < images.front().pixels.size() / 2);
    // Between "running" and the end, in order with the other signals.
    QVERIFY(log.lines.indexOf("image") > log.lines.indexOf("state running"));
    QVERIFY(log.lines.lastIndexOf("image") < log.lines.indexOf("finished"));

    // The images monitor is on by default: the same images are PNG files of the run.
    const QString dir = controller.runDir() + "/images/validation_input/";
    for (int epoch = 1; epoch <= 3; ++epoch) {
      const QString file = dir + QString("epoch-%1-step-%2.png").arg(epoch).arg(32 * epoch);
      QVERIFY2(QFile::exists(file), qPrintable(file));
    }
  }

  void stopIsHonouredWithinOneStep() {
    Controller c;
    RunController& controller = c.controller;
    QSignalSpy finished(&controller, &RunController::runFinished);
    QVERIFY(c.startLong() && c.reaches(20));
    const qint64 atStop = controller.globalStep();
    controller.stop();
    QVERIFY(controller.state() == RunState::Stopping);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.front().front().toBool(), true);
    const qint64 last = c.log.named("cost").back().step;
    QVERIFY2(last <= atStop + 1,
             qPrintable(QString("stopped at %1, last step %2").arg(atStop).arg(last)));
    QVERIFY(controller.state() == RunState::Stopped);
    QVERIFY(!controller.isActive());

    // A controller runs again after a run ended.
    QVERIFY(controller.start(startOptions(syntheticProject(c.root.path()), "again")));
    QVERIFY(controller.waitForEnd(120000));
    QVERIFY(controller.state() == RunState::Finished);
  }

  void pauseHoldsTheLoopAndResumeContinues() {
    Controller c;
    RunController& controller = c.controller;
    QVERIFY(c.startLong());
    QVERIFY(waitUntil(
        [&] { return controller.state() == RunState::Running && controller.globalStep() >= 5; }));
    controller.setPaused(true);
    QVERIFY(controller.state() == RunState::Paused);
    QTest::qWait(200);
    const qint64 held = controller.globalStep();
    QTest::qWait(300);
    QCOMPARE(controller.globalStep(), held);
    controller.setPaused(false);
    QVERIFY(controller.state() == RunState::Running);
    QVERIFY(waitUntil([&] { return controller.globalStep() > held + 5; }));
    // Stop while paused does not hang.
    controller.setPaused(true);
    controller.stop();
    QVERIFY(controller.waitForEnd(60000));
    QVERIFY(controller.state() == RunState::Stopped);
  }

  // Issue 26 (point 3): the samples per step the window shows are the engine's, not batch ×
  // devices (wrong for a GAN with d_steps > 1: each step takes d_steps batches).
  void samplesPerStepAreTheEnginesForAGan() {
    QTemporaryDir root;
    const QString path = QString(TB_SOURCE_DIR) + "/projects/fashion-mnist-dcgan.json";
    std::ifstream in(path.toStdString());
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["run_root"] = root.path().toStdString();
    doc["monitors"] = {{"scalar_printer", false}};
    doc["model"]["d_steps"] = 2;
    doc["max_epoch"] = 1;
    doc["steps_per_epoch"] = 3;
    doc["callbacks"] = nlohmann::json::array();
    RunController controller;
    QSignalSpy started(&controller, &RunController::runStarted);
    QSignalSpy finished(&controller, &RunController::runFinished);
    QSignalSpy progress(&controller, &RunController::progress);
    QVERIFY(controller.start(startOptions(QString::fromStdString(doc.dump(2)), path)));
    QVERIFY(finished.wait(120000));
    QCOMPARE(started.front().at(3).toLongLong(), qint64{128});  // 64 × 2 discriminator batches
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.back().front().value<RunProgress>().samplesPerStep, qint64{128});
  }

  void savesNowAndSetsTheLearningRate() {
    Controller c;
    RunController& controller = c.controller;
    QSignalSpy saved(&controller, &RunController::checkpointSaved);
    QVERIFY(c.startLong() && c.reaches(3));
    controller.setLearningRate(0.0125);
    controller.saveCheckpointNow();
    QVERIFY(saved.wait(30000));
    const QString path = saved.front().front().toString();
    const TrainingState state = readCheckpointFile(path.toStdString());
    QVERIFY(state.globalStep >= 3);
    QVERIFY(QFileInfo(path).fileName().startsWith("model-"));
    // The rate reached the optimizer before the save that was asked after it (both run on
    // the engine thread, in order): the checkpoint's value in force and its optimizer's group.
    QCOMPARE(state.hyperParams.at("learning_rate"), 0.0125);
    QVERIFY(waitUntil([&] {
      for (const auto& s : c.log.named("learning_rate"))
        if (s.value == 0.0125) return true;
      return false;
    }));
    // Stop with a final checkpoint (the project has no model_saver of its own).
    saved.clear();
    controller.stop(true);
    QVERIFY(controller.waitForEnd(60000));
    QCOMPARE(saved.size(), 1);
    QVERIFY(QFile::exists(saved.front().front().toString()));
  }

  void setupFailureIsASignal() {
    QTemporaryDir root;
    RunController controller;
    SignalLog log(controller);
    QSignalSpy failed(&controller, &RunController::runFailed);
    const QString project = syntheticProject(root.path(), [](nlohmann::json& doc) {
      doc["data"]["train"] = {{"type", "idx"},
                              {"images", "/nonexistent/train-images-idx3-ubyte"},
                              {"labels", "/nonexistent/train-labels-idx1-ubyte"}};
    });
    QVERIFY(controller.start(startOptions(project, "broken.json")));
    QVERIFY(failed.wait(60000));
    QVERIFY2(log.failure.contains("/nonexistent/train-"), qPrintable(log.failure));
    QVERIFY(controller.state() == RunState::Failed);
    QCOMPARE(log.lines.last(), QString("state failed"));
    QVERIFY(!log.lines.contains("started"));
  }

  void invalidProjectIsASignal() {
    RunController controller;
    QSignalSpy failed(&controller, &RunController::runFailed);
    QVERIFY(controller.start(startOptions("{\"format\": 1, \"max_epoch\": -3}", "bad.json")));
    QVERIFY(failed.wait(30000));
    const QString message = failed.front().front().toString();
    QVERIFY2(message.contains("bad.json") && message.contains("$.max_epoch"), qPrintable(message));

    QVERIFY(controller.start(startOptions("{not json", "worse.json")));
    QVERIFY(controller.waitForEnd(30000));
    QCOMPARE(failed.size(), 2);
    QVERIFY(failed.back().front().toString().contains("not valid JSON"));
  }

  void trainingFailureIsASignal() {
    // A learning rate that makes the cost overflow: check_numerics ends the run with a message.
    QTemporaryDir root;
    RunController controller;
    QSignalSpy failed(&controller, &RunController::runFailed);
    const QString project = syntheticProject(root.path(), [](nlohmann::json& doc) {
      doc["optimizer"] = {{"type", "sgd"}, {"learning_rate", 1e30}};
      doc["callbacks"] = {{{"type", "check_numerics"}, {"every_k_steps", 1}}};
    });
    QVERIFY(controller.start(startOptions(project, "diverges.json")));
    QVERIFY(controller.waitForEnd(60000));
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.front().front().toString().contains("non-finite") ||
                 failed.front().front().toString().contains("the cost is"),
             qPrintable(failed.front().front().toString()));
    QVERIFY(controller.state() == RunState::Failed);
  }

  void refusesASecondRunWhileOneIsActive() {
    Controller c;
    QVERIFY(c.startLong());
    QString error;
    QVERIFY(!c.controller.start(startOptions(syntheticProject(c.root.path()), "second"), &error));
    QVERIFY(error.contains("already active"));
    // The destructor stops the run and waits for the engine thread.
  }
};

}  // namespace test_RunController

TB_TEST_MAIN(test_RunController::TestRunController)
#include "test_RunController.moc"
