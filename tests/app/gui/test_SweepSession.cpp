// SweepSession without a window: following a sweep directory (read through a stand-in reader,
// polled while a trial is busy), and running a queue (a shell script standing in for
// `towerbench-cli sweep`): its output as lines, its end, and a queue that outlives the
// session only when asked to. And the CliProcess under it and LaunchedRun: one exit-status
// mapping, whole lines, a program that cannot start.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <utility>
#include <vector>

#include "app/gui/run/CliProcess.h"
#include "app/gui/sweep/SweepSession.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_SweepSession {

using namespace tbench;
using namespace tbench::gui;

namespace {

/// An executable script in `dir` running `body` (the arguments as the CLI gets them).
QString writeScript(const QTemporaryDir& dir, const QString& body) {
  const QString path = dir.filePath("fake-cli.sh");
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  file.write(("#!/bin/sh\n" + body + "\n").toUtf8());
  file.close();
  file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
  return path;
}

using Phase = bridge::TrialPhase;

bridge::SweepStateView stateWith(const QList<Phase>& trialStates) {
  bridge::SweepStateView state;
  state.present = true;
  for (int i = 0; i < trialStates.size(); ++i) {
    bridge::SweepTrialView trial;
    trial.index = i;
    trial.state = trialStates[i];
    state.trials << trial;
  }
  return state;
}

/// The pid a script wrote to `file`, once it has.
qint64 pidIn(const QString& file) {
  QFile f(file);
  return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed().toLongLong() : 0;
}

bool alive(qint64 pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0; }

}  // namespace

class TestSweepSession : public QObject {
  Q_OBJECT

 private slots:
  void followsADirectoryWhileItsTrialsAreBusy() {
    QList<Phase> trials = {Phase::Finished, Phase::Running, Phase::Pending};
    int reads = 0;
    SweepSession session([&](const QString&) {
      ++reads;
      return stateWith(trials);
    });
    QSignalSpy dirs(&session, &SweepSession::sweepDirChanged);
    QSignalSpy states(&session, &SweepSession::stateChanged);
    QSignalSpy progress(&session, &SweepSession::progress);
    QVERIFY(session.follow("sd"));
    QCOMPARE(session.sweepDir(), QDir("sd").absolutePath());
    QCOMPARE(dirs.size(), 1);
    QCOMPARE(states.size(), 1);
    QVERIFY(session.busy());
    QVERIFY(!session.queueRuns());
    QCOMPARE(progress.size(), 1);
    QCOMPARE(progress[0][0].toString(), QString("Sweep: 1 of 3 trials ended, 1 running"));
    QCOMPARE(progress[0][1].toInt(), -1);  // no queue runs
    // Busy: read again at the next poll.
    QTRY_VERIFY_WITH_TIMEOUT(reads >= 2, 3 * SweepSession::kPollMs);
    // Nothing busy: the polling stops.
    trials = {Phase::Finished, Phase::Failed, Phase::Cancelled};
    session.refresh();
    const int after = reads;
    QTest::qWait(2 * SweepSession::kPollMs);
    QCOMPARE(reads, after);
    // The same directory again is no change of directory.
    QVERIFY(session.follow(QDir("sd").absolutePath()));
    QCOMPARE(dirs.size(), 1);
  }

  // How the CLI ended, as a shell says it: its status, 128 + a signal, 127 when not started.
  void aCliProcessMapsItsEndToOneExitStatus() {
    QCOMPARE(CliProcess::exitStatus(3, QProcess::NormalExit), 3);
    QCOMPARE(CliProcess::exitStatus(0, QProcess::CrashExit), 128 + SIGKILL);
    QTemporaryDir dir;
    for (const auto& [body, expected] :
         std::vector<std::pair<QString, int>>{{"exit 130", CliProcess::kExitStopped},
                                              {"kill -SEGV $$", 128 + SIGSEGV},
                                              {"kill -KILL $$", 128 + SIGKILL},
                                              {"printf 'a\r\n\nlast'", 0}}) {
      const QString cli = writeScript(dir, body);
      CliProcess process(CliProcess::Lifetime::StopsWithWindow);
      QSignalSpy finished(&process, &CliProcess::finished);
      QStringList lines;
      connect(&process, &CliProcess::lines, this, [&](const QStringList& l) { lines << l; });
      QString error;
      QVERIFY2(process.start(cli, {}, &error), qPrintable(error));
      QVERIFY(!process.start(cli, {}, &error));  // one at a time
      QVERIFY(error.contains("still running"));
      QTRY_COMPARE(finished.size(), 1);
      QCOMPARE(finished[0][0].toInt(), expected);
      QCOMPARE(process.lastExitStatus(), expected);
      if (expected == 0) QCOMPARE(lines, (QStringList{"a\r", "", "last"}));
    }
    CliProcess missing(CliProcess::Lifetime::Outlives);
    QSignalSpy finished(&missing, &CliProcess::finished);
    QString error;
    QVERIFY(!missing.start(dir.filePath("no-such-cli"), {}, &error));
    QVERIFY2(error.contains("cannot start") && error.contains("no-such-cli"), qPrintable(error));
    QCOMPARE(missing.lastExitStatus(), CliProcess::kExitCannotStart);
    QCOMPARE(finished.size(), 0);
  }

  void runsAQueueAndReadsItsOutputByLine() {
    QTemporaryDir dir;
    const QString cli = writeScript(dir, "printf 'one\\ntw'; sleep 0.2; printf 'o\\n'; exit 3");
    SweepSession session([](const QString&) { return bridge::SweepStateView{}; });
    QStringList events;
    connect(&session, &SweepSession::logLines, this,
            [&](const QStringList& lines) { events << lines; });
    connect(&session, &SweepSession::runningChanged, this,
            [&](bool running) { events << (running ? "running" : "ended"); });
    connect(&session, &SweepSession::stateChanged, this, [&] { events << "state"; });
    connect(&session, &SweepSession::finished, this,
            [&](int code) { events << QString("finished %1").arg(code); });
    QString error;
    QVERIFY2(session.run(cli, "s.json", dir.filePath("sd"), &error), qPrintable(error));
    QVERIFY(session.isRunning());
    QVERIFY(!session.run(cli, "s.json", dir.filePath("sd"), &error));  // one queue at a time
    QVERIFY(!session.follow(dir.filePath("other")));                   // nor another sweep
    QTRY_VERIFY(!session.isRunning());
    QCOMPARE(events.value(0),
             QString("$ %1 sweep s.json --sweep-dir %2").arg(cli, dir.filePath("sd")));
    events.removeFirst();
    events.removeAll("a sweep is running in the Sweeps tab: stop it before showing another");
    // The state is read once the queue started (and at each poll), and last after its end.
    QCOMPARE(events.value(1), QString("state"));
    QCOMPARE(events.mid(events.size() - 3), (QStringList{"ended", "state", "finished 3"}));
    events.removeAll("state");
    QCOMPARE(events, (QStringList{"running", "one", "two", "ended", "finished 3"}));
  }

  // Closing the window with "keep it running" leaves the queue running; otherwise the session
  // stops it (SIGTERM) and waits.
  void aQueueOutlivesTheSessionOnlyWhenKept() {
    QTemporaryDir dir;
    const QString pidFile = dir.filePath("pid");
    const QString cli = writeScript(dir, QString("echo $$ > '%1'; exec sleep 60").arg(pidFile));
    const auto reader = [](const QString&) { return bridge::SweepStateView{}; };
    QString error;
    qint64 stopped = 0;
    {
      SweepSession session(reader);
      QVERIFY2(session.run(cli, "s.json", dir.filePath("sd"), &error), qPrintable(error));
      QTRY_VERIFY((stopped = pidIn(pidFile)) > 0);
    }
    QVERIFY(!alive(stopped));
    QFile::remove(pidFile);
    qint64 kept = 0;
    {
      SweepSession session(reader);
      QVERIFY2(session.run(cli, "s.json", dir.filePath("sd"), &error), qPrintable(error));
      QTRY_VERIFY((kept = pidIn(pidFile)) > 0);
      session.keepRunningAfterClose();
    }
    QVERIFY(alive(kept));
    ::kill(static_cast<pid_t>(kept), SIGKILL);  // the test's own child
  }
};

}  // namespace test_SweepSession

TB_TEST_MAIN(test_SweepSession::TestSweepSession)
#include "test_SweepSession.moc"
