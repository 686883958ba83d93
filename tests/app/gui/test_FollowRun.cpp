// Runs the window follows through their run directory (issue 15, item 5), offscreen on the real
// CLI: RunFollower reads whole lines of scalars.jsonl (or stats.json) and run.json's state; the
// window follows a run started elsewhere by the CLI to its end; it launches a distributed
// project as two processes, plots rank 0's scalars, shows each rank's state, and Stop stops
// both at the same step.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
#include <memory>

#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryServices.h"
#include "app/gui/MainWindow.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/run/LaunchedRun.h"
#include "app/gui/run/RunFollower.h"
#include "app/gui/rundir/RunDirectoryInfo.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunStatusBar.h"
#include "tests/support/RunFiles.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"
#include "widgets/LivePlotWidget.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_FollowRun {

using namespace tbench;
using namespace tbench::gui;
using tbench::testing::scalarLine;
using tbench::testing::windowAction;
using tbench::testing::writeProjectFrom;
using tbench::testing::writeRunJson;

namespace {

const QString kCli = QStringLiteral(TB_BINARY_DIR "/bin/towerbench-cli");

void append(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::Append));
  file.write(text);
}

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

qint64 lastStep(const MainWindow& window, const QString& name) {
  const ui::Series* s = window.plots()->store().series({window.liveRunId(), name});
  return s != nullptr && s->size() > 0 ? s->step(s->size() - 1) : -1;
}

}  // namespace

class TestFollowRun : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    tbench::testing::prepareWindowTests(settingsDir_);
    qputenv("TOWERBENCH_CLI", kCli.toUtf8());
    // The ranks' log lines are what the window shows: CTest's quiet logging must not reach them.
    qunsetenv("TB_QUIET");
  }

  void followerReadsWholeLinesAndTheEnd() {
    QTemporaryDir dir;
    const QString stream = dir.filePath("scalars.jsonl");
    writeRunJson(dir.path(), "running", 0);
    const QByteArray second = scalarLine("cost", 2, 0.5);
    append(stream, scalarLine("cost", 1, 0.9) + second.left(10));  // the second line half written
    RunFollower follower;
    QSignalSpy metrics(&follower, &RunFollower::metricsRead);
    QSignalSpy ended(&follower, &RunFollower::ended);
    QSignalSpy problems(&follower, &RunFollower::problem);
    follower.follow(dir.path());
    QCOMPARE(metrics.count(), 1);
    auto samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 1);
    QCOMPARE(samples[0].step, qint64{1});
    QVERIFY(follower.status().state == bridge::RunState::Running);

    append(stream, second.mid(10) + "not json\n" + scalarLine("cost", 3, 0.25) + "{\"name\": 1}\n");
    follower.poll();
    samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 2);  // the completed line and the next; the damaged two skipped
    QCOMPARE(samples[0].value, 0.5);
    QCOMPARE(samples[1].step, qint64{3});
    QCOMPARE(problems.count(), 1);
    append(stream, "garbage\n");
    follower.poll();
    QCOMPARE(problems.count(), 1);  // said once
    QCOMPARE(ended.count(), 0);

    writeRunJson(dir.path(), "finished", 20);
    follower.poll();
    follower.poll();
    QCOMPARE(ended.count(), 1);
    QVERIFY(ended.at(0).at(0).value<bridge::RunState>() == bridge::RunState::Finished);
    QCOMPARE(follower.status().globalStep, qint64{20});

    // An older run: stats.json only, one point per scalar and epoch; only new entries count.
    QTemporaryDir old;
    QFile stats(old.filePath("stats.json"));
    QVERIFY(stats.open(QIODevice::WriteOnly));
    stats.write(R"([{"cost": 1.0, "epoch_num": 1, "global_step": 10}])");
    stats.close();
    follower.follow(old.path());
    QCOMPARE(metrics.takeFirst().at(0).value<bridge::MetricSamples>().size(), 1);
    QVERIFY(stats.open(QIODevice::WriteOnly | QIODevice::Truncate));
    stats.write(R"([{"cost": 1.0, "epoch_num": 1, "global_step": 10},
                    {"cost": 0.5, "epoch_num": 2, "global_step": 20}])");
    stats.close();
    follower.poll();
    samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 1);
    QCOMPARE(samples[0].step, qint64{20});
    // Its stream appears (a resumed run): only what stats.json did not give already.
    append(old.filePath("scalars.jsonl"),
           scalarLine("cost", 15, 0.7) + scalarLine("cost", 25, 0.4));
    follower.poll();
    samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 1);
    QCOMPARE(samples[0].step, qint64{25});
  }

  void aLongFileIsReadInPiecesAndARewrittenOneAgain() {
    // Issue 28 (long runs): a run of millions of lines followed late is read kMaxReadBytes a
    // poll, the rest as soon as the event loop is free; the end is said after the last line.
    QTemporaryDir dir;
    const QString stream = dir.filePath("scalars.jsonl");
    QByteArray text;
    const qint64 lines = 120000;
    for (qint64 step = 1; step <= lines; ++step) text += scalarLine("cost", step, 1.0 / step);
    QVERIFY(text.size() > 2 * RunFollower::kMaxReadBytes);
    append(stream, text);
    writeRunJson(dir.path(), "finished", lines);
    RunFollower follower;
    QSignalSpy metrics(&follower, &RunFollower::metricsRead);
    QSignalSpy ended(&follower, &RunFollower::ended);
    follower.follow(dir.path());
    QCOMPARE(metrics.count(), 1);
    const auto first = metrics.at(0).at(0).value<bridge::MetricSamples>();
    QVERIFY(first.size() > 0 && first.size() < lines);  // one piece
    QCOMPARE(ended.count(), 0);                         // not before the rest
    QTRY_COMPARE(ended.count(), 1);
    qint64 read = 0, lastStep = 0;
    for (const auto& call : metrics) {
      for (const auto& sample : call.at(0).value<bridge::MetricSamples>()) {
        QCOMPARE(sample.step, lastStep + 1);  // every line once, in order
        lastStep = sample.step;
        ++read;
      }
    }
    QCOMPARE(read, lines);

    // A file replaced by a longer one (another run in the directory) is read from its start,
    // as is one that shrank.
    QTemporaryDir other;
    const QString path = other.filePath("scalars.jsonl");
    writeRunJson(other.path(), "running", 3);
    append(path, scalarLine("cost", 1, 0.9) + scalarLine("cost", 2, 0.8));
    follower.follow(other.path());
    metrics.clear();
    QVERIFY(QFile::remove(path));
    append(path, scalarLine("cost", 7, 0.7, 2) + scalarLine("cost", 8, 0.6, 2) +
                     scalarLine("cost", 9, 0.5, 2));
    follower.poll();
    QCOMPARE(metrics.count(), 1);
    auto samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 3);
    QCOMPARE(samples[0].step, qint64{7});
    QFile shorter(path);
    QVERIFY(shorter.open(QIODevice::WriteOnly | QIODevice::Truncate));
    shorter.write(R"({"name":"cost","step":1,"epoch":1,"time":2000.5,"value":0.3})"
                  "\n");
    shorter.close();
    follower.poll();
    samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 1);
    QCOMPARE(samples[0].value, 0.3);
  }

  // Note [A resumed stream]: a resumed run replaces the file with its lines up to the
  // checkpoint (given already) and appends its own, newer ones: only those are given, once,
  // whether the new file is shorter than the part read or not.
  void aResumedRunsRewrittenStreamGivesOnlyItsNewLines() {
    QTemporaryDir dir;
    const QString path = dir.filePath("scalars.jsonl");
    writeRunJson(dir.path(), "running", 4);
    append(path, scalarLine("cost", 1, 0.9) + scalarLine("cost", 2, 0.8) +
                     scalarLine("cost", 3, 0.7) + scalarLine("cost", 4, 0.6));
    RunFollower follower;
    QSignalSpy metrics(&follower, &RunFollower::metricsRead);
    follower.follow(dir.path());
    QCOMPARE(metrics.takeFirst().at(0).value<bridge::MetricSamples>().size(), 4);
    // The run, killed after step 4, resumes from its checkpoint at step 2: steps 3 to 5 again,
    // later, in a file that replaced the old one (as writeFileAtomically does).
    const QString replacement = dir.filePath("scalars.jsonl.new");
    append(replacement, scalarLine("cost", 1, 0.9) + scalarLine("cost", 2, 0.8) +
                            R"({"name":"cost","step":3,"epoch":1,"time":3003.0,"value":0.75})"
                            "\n"
                            R"({"name":"cost","step":4,"epoch":1,"time":3004.0,"value":0.65})"
                            "\n"
                            R"({"name":"cost","step":5,"epoch":1,"time":3005.0,"value":0.55})"
                            "\n");
    QVERIFY(::rename(replacement.toLocal8Bit().constData(), path.toLocal8Bit().constData()) == 0);
    follower.poll();
    QCOMPARE(metrics.count(), 1);
    const auto samples = metrics.takeFirst().at(0).value<bridge::MetricSamples>();
    QCOMPARE(samples.size(), 3);
    QCOMPARE(samples[0].step, qint64{3});
    QCOMPARE(samples[0].value, 0.75);
    QCOMPARE(samples[2].step, qint64{5});
  }

  void theWindowFollowsARunStartedElsewhere() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    // Not a run directory: told, nothing followed.
    window.followRunDirectory(dir.path());
    auto* box = window.findChild<QMessageBox*>("messageBox");
    QVERIFY(box);
    QVERIFY2(box->text().contains("not a run directory"), qPrintable(box->text()));
    box->close();
    QVERIFY(!window.follower()->isFollowing());

    const QString project = writeProjectFrom(dir, "elsewhere.json", [](nlohmann::json& doc) {
      doc["max_epoch"] = 3;
      doc["steps_per_epoch"] = 150;
      doc["callbacks"] = nlohmann::json::array();
    });
    const QString runDir = dir.filePath("elsewhere-run");
    QProcess cli;
    cli.start(kCli, {"train", project, "--run-dir", runDir});
    QVERIFY(cli.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(QDir(runDir).filePath("run.json")), 60000);
    window.followRunDirectory(runDir);
    QVERIFY(window.follower()->isFollowing());
    QCOMPARE(window.liveRunId(), QString("elsewhere-run"));
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!window.follower()->isFollowing(), 10000);  // it ended
    window.plots()->flush();
    QCOMPARE(lastStep(window, "cost"), qint64{450});  // the last step's scalar, from the stream
    QVERIFY2(window.runStatusBar()->stateText().startsWith("Finished"),
             qPrintable(window.runStatusBar()->stateText()));
    QVERIFY(window.runStatusBar()->positionText().contains("global step 450"));
  }

  void theWindowLaunchesADistributedRunAndStopsIt() {
    QTemporaryDir dir;
    MainWindow window;
    window.setAsker([](auto&&...) { return QMessageBox::Save; });
    window.show();
    QVERIFY(window.openProject(writeProjectFrom(dir, "dist.json", [](nlohmann::json& doc) {
      doc["max_epoch"] = 1;
      doc["steps_per_epoch"] = 40;
      doc["callbacks"] = nlohmann::json::array({{{"type", "model_saver"}}});
      doc["trainer"] = {{"strategy", "distributed"}, {"devices", {"cpu"}}, {"local_processes", 2}};
    })));
    windowAction(window, "actionStart")->trigger();
    LaunchedRun* launched = window.launchedRun();
    QVERIFY(launched->isActive());
    QVERIFY(!windowAction(window, "actionStart")->isEnabled());
    QVERIFY(windowAction(window, "actionStop")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(!launched->isActive(), 120000);
    QCOMPARE(launched->exitCode(), 0);
    QCOMPARE(launched->ranks().size(), 2);
    for (const RankState& r : launched->ranks())
      QVERIFY2(r.state == bridge::RunState::Finished, qPrintable(r.stateText()));
    const QString runDir = QDir(window.history()->runs().first().dir).absolutePath();
    QCOMPARE(readJson(QDir(runDir).filePath("run.json"))["state"].toString(), QString("finished"));
    QVERIFY(QFile::exists(QDir(runDir).filePath("log-rank1.log")));
    window.plots()->flush();
    QCOMPARE(lastStep(window, "cost"), qint64{40});
    const QString log = window.logView()->toPlainText();
    QVERIFY(log.contains("[rank 0]") && log.contains("[rank 1]"));
    QVERIFY2(log.contains("total batch 64 x 2 ranks = 128"), qPrintable(log.right(3000)));
    QVERIFY(windowAction(window, "actionStart")->isEnabled());

    // A long run, stopped: both ranks stop at the same step, cleanly, and say so.
    QVERIFY(window.openProject(writeProjectFrom(dir, "long.json", [](nlohmann::json& doc) {
      doc["max_epoch"] = 1000;
      // Its saver also saves where a stop ends the run: what Resume continues from.
      doc["callbacks"] = nlohmann::json::array({{{"type", "model_saver"}}});
      doc["trainer"] = {{"strategy", "distributed"}, {"devices", {"cpu"}}, {"local_processes", 2}};
    })));
    windowAction(window, "actionStart")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lastStep(window, "cost") >= 5, 60000);
    windowAction(window, "actionStop")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!launched->isActive(), 60000);
    QCOMPARE(launched->exitCode(), 130);  // the CLI's "stopped by a signal"
    for (const RankState& r : launched->ranks())
      QVERIFY2(r.state == bridge::RunState::Stopped, qPrintable(r.stateText()));
    QVERIFY(!window.findChild<QMessageBox*>("messageBox"));  // no "Run Failed"
    const QString longRun = window.history()->runs().first().dir;
    const QJsonObject status = readJson(QDir(longRun).filePath("run.json"));
    QCOMPARE(status["state"].toString(), QString("stopped"));
    QVERIFY2(window.runStatusBar()->stateText().startsWith("Stopped"),
             qPrintable(window.runStatusBar()->stateText()));

    // Resumed from Run History: launched again with --resume, its curve continued.
    const qint64 stoppedAt = status["global_step"].toInteger();
    {
      std::unique_ptr<QMenu> menu(
          window.history()->createContextMenu(window.history()->rowOf(longRun), &window));
      QAction* resume = menu->findChild<QAction*>("resumeAction");
      QVERIFY(resume->isEnabled());
      resume->trigger();
    }
    QVERIFY(launched->isActive());
    QVERIFY(window.logView()->toPlainText().contains("--resume"));
    QTRY_VERIFY_WITH_TIMEOUT(lastStep(window, "cost") > stoppedAt + 3, 60000);
    windowAction(window, "actionStop")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!launched->isActive(), 60000);
    const QJsonObject again = readJson(QDir(longRun).filePath("run.json"));
    QCOMPARE(again["state"].toString(), QString("stopped"));
    QVERIFY(again["global_step"].toInteger() > stoppedAt);
    QCOMPARE(window.history()->runCount(), 2);  // the same run continued, not a new one
  }

 private:
  QTemporaryDir settingsDir_;
};

}  // namespace test_FollowRun

TB_TEST_MAIN(test_FollowRun::TestFollowRun)
#include "test_FollowRun.moc"
