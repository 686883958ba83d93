// RunSession without a window: a followed directory and an in-process run on the real engine
// give the same signals in the same order (started, metrics and progress, ended, then the final
// state), one run directory and id, and the session refuses to forget a run that is going.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryServices.h"
#include "app/gui/run/RunFollower.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/rundir/RunDirectoryInfo.h"
#include "tests/support/RunFiles.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_RunSession {

using namespace tbench;
using namespace tbench::gui;
using bridge::RunState;
using tbench::testing::writeRunJson;

namespace {

void appendScalar(const QString& dir, qint64 step, double value) {
  QFile file(QDir(dir).filePath("scalars.jsonl"));
  QVERIFY(file.open(QIODevice::Append));
  file.write(tbench::testing::scalarLine("cost", step, value, 1 + (step - 1) / 10));
}

}  // namespace

class TestRunSession : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { tbench::testing::prepareWindowTests(settingsDir_); }

  void aFollowedRunGoesFromStartedToItsRecordedEnd() {
    QTemporaryDir dir;
    writeRunJson(dir.path(), "running", 0);
    appendScalar(dir.path(), 12, 0.5);
    RunSession session;
    QSignalSpy started(&session, &RunSession::started);
    QSignalSpy metrics(&session, &RunSession::metrics);
    QSignalSpy progress(&session, &RunSession::progress);
    QSignalSpy ended(&session, &RunSession::ended);
    QSignalSpy states(&session, &RunSession::stateChanged);
    QSignalSpy notes(&session, &RunSession::note);
    session.follow(dir.path());
    QCOMPARE(session.kind(), RunSession::Kind::Followed);
    QVERIFY(session.state() == RunState::Running);
    QVERIFY(!session.isActive());  // not the window's run: Start stays available
    QCOMPARE(started.size(), 1);
    QCOMPARE(started.front().at(0).toString(), QDir(dir.path()).absolutePath());
    QCOMPARE(session.runId(), QFileInfo(dir.path()).fileName());
    QCOMPARE(metrics.size(), 1);  // read at once
    QVERIFY(!progress.isEmpty());
    const auto p = progress.back().front().value<bridge::RunProgress>();
    QCOMPARE(p.globalStep, qint64(12));  // the newest step read, ahead of run.json's 0
    QCOMPARE(p.epoch, qint64(2));
    QCOMPARE(p.stepInEpoch, qint64(2));
    QVERIFY(ended.isEmpty());

    // The run records its end: ended, then the state, once.
    writeRunJson(dir.path(), "stopped", 15);
    session.follower()->poll();
    QCOMPARE(ended.size(), 1);
    QVERIFY(ended.front().at(0).value<RunState>() == RunState::Stopped);
    QVERIFY(session.state() == RunState::Stopped);
    // Stopped at global step 15 of 10 a epoch: the last step was epoch 2's fifth (it had said
    // "epoch 1, step 15 of 10").
    const auto last = progress.back().front().value<bridge::RunProgress>();
    QCOMPARE(last.epoch, qint64(2));
    QCOMPARE(last.stepInEpoch, qint64(5));
    QVERIFY(states.back().front().value<RunState>() == RunState::Stopped);
    QVERIFY(!session.follower()->isFollowing());
    bool said = false;
    for (const auto& n : notes) said |= n.front().toString().contains("stopped at step 15");
    QVERIFY(said);

    // Forgetting it: idle, no directory.
    QVERIFY(session.clear());
    QVERIFY(session.state() == RunState::Idle);
    QCOMPARE(session.kind(), RunSession::Kind::None);
    QVERIFY(session.runDir().isEmpty());
  }

  // A followed run killed without recording its end (run.json still "running", its process
  // gone from this host) ends the follow as unknown; it had said "Running" forever.
  void aFollowedRunWhoseProcessIsGoneEndsUnknown() {
    QTemporaryDir dir;
    QProcess gone;  // a process of this host that has ended
    gone.start("sleep", {"0.1"});
    QVERIFY(gone.waitForStarted(10000));
    const qint64 pid = gone.processId();
    QVERIFY(pid > 0 && gone.waitForFinished(10000));
    char host[256] = {};
    QVERIFY(::gethostname(host, sizeof(host) - 1) == 0);
    QFile file(dir.filePath("run.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(QJsonObject{{"format", 1},
                                         {"state", "running"},
                                         {"host", QString::fromLocal8Bit(host)},
                                         {"pid", pid},
                                         {"epoch", 1},
                                         {"global_step", 25},
                                         {"max_epoch", 5},
                                         {"steps_per_epoch", 10}})
                   .toJson());
    file.close();
    RunSession session;
    QSignalSpy ended(&session, &RunSession::ended);
    session.follow(dir.path());
    QVERIFY(ended.isEmpty());  // once is not enough: the process may just have written its end
    session.follower()->poll();
    QCOMPARE(ended.size(), 1);
    QVERIFY(ended.front().at(0).value<RunState>() == RunState::Unknown);
    QVERIFY2(ended.front().at(1).toString().contains("gone without recording an end"),
             qPrintable(ended.front().at(1).toString()));
    QVERIFY(session.state() == RunState::Unknown);
    QVERIFY(!session.follower()->isFollowing());
  }

  // New Sweep's time per epoch comes from the newest whole run, not from a session resumed in
  // the window (its run.json times cover that session, its epochs the whole run: 6 s an epoch
  // here instead of 60).
  void theEpochTimeSkipsARunResumedInTheWindow() {
    QTemporaryDir root;
    const auto write = [&](const QString& id, const QString& origin, const QString& started,
                           const QString& ended) {
      QVERIFY(QDir(root.path()).mkpath("p/" + id));
      QFile file(root.filePath("p/" + id + "/run.json"));
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(QJsonDocument(QJsonObject{{"format", 1},
                                           {"state", "finished"},
                                           {"origin", origin},
                                           {"started", started},
                                           {"ended", ended},
                                           {"epoch", 10},
                                           {"global_step", 100},
                                           {"max_epoch", 10},
                                           {"steps_per_epoch", 10}})
                     .toJson());
    };
    write("20261101-100000", "towerbench-cli train p.json", "2026-11-01T10:00:00Z",
          "2026-11-01T10:10:00Z");
    write("20261101-110000", "resumed from the GUI (p.json)", "2026-11-01T11:00:00Z",
          "2026-11-01T11:01:00Z");
    const EpochTime time = newestEpochTime(root.path(), "p");
    QCOMPARE(time.runId, QString("20261101-100000"));
    QCOMPARE(time.seconds, 60.0);
  }

  void anInProcessRunIsStartedThenStopped() {
    QTemporaryDir dir;
    const QString path = tbench::testing::writeProjectFrom(dir, "long.json", [](nlohmann::json& d) {
      d["max_epoch"] = 1000;  // stopped by the test
      d["callbacks"] = nlohmann::json::array();
    });
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    RunSession session;
    QStringList seen;
    connect(&session, &RunSession::started, this, [&] { seen << "started"; });
    connect(&session, &RunSession::ended, this,
            [&](RunState s, const QString&) { seen << "ended:" + bridge::toString(s); });
    connect(&session, &RunSession::stateChanged, this,
            [&](RunState s) { seen << "state:" + bridge::toString(s); });
    QSignalSpy metrics(&session, &RunSession::metrics);
    bridge::StartOptions options;
    options.projectText = QString::fromUtf8(file.readAll());
    options.projectPath = path;
    QString error;
    QVERIFY2(session.start(options, &error), qPrintable(error));
    QCOMPARE(session.kind(), RunSession::Kind::InProcess);
    QVERIFY(session.isActive());
    QVERIFY(!session.clear());  // a run that is going is not forgotten
    QTRY_VERIFY_WITH_TIMEOUT(!metrics.isEmpty(), 60000);
    QVERIFY(QFileInfo(session.runDir()).isDir());
    QVERIFY(session.runDir().startsWith(dir.filePath("runs")));
    QTRY_VERIFY_WITH_TIMEOUT(std::isfinite(session.learningRate()), 30000);
    session.stop(false);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isActive(), 60000);
    QTRY_VERIFY(session.state() == RunState::Stopped);
    // One order for every kind of run: started before its end, the end before the final state.
    const qsizetype s = seen.indexOf("started");
    const qsizetype e = seen.indexOf("ended:stopped");
    const qsizetype f = seen.lastIndexOf("state:stopped");
    QVERIFY2(s >= 0 && e > s && f > e, qPrintable(seen.join(", ")));
    QVERIFY2(seen.indexOf("state:starting") < s, qPrintable(seen.join(", ")));
    QVERIFY(readRunDirectory(session.runDir()).status == RunState::Stopped);
  }

 private:
  QTemporaryDir settingsDir_;
};

}  // namespace test_RunSession

TB_TEST_MAIN(test_RunSession::TestRunSession)
#include "test_RunSession.moc"
