// The sweep queue (engine/sweep/SweepQueue.h) with real `towerbench-cli train` trials of the
// synthetic project: 8 trials on 2 slots all finish and never more than 2 run at once; a trial
// killed with SIGKILL fails and the others go on; hyperband prunes the trial its rule says;
// cancelling stops the running trial cleanly; a queue killed mid-sweep and started again adopts
// the trial that kept running and finishes the sweep.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/core/AtomicFile.h"
#include "engine/sweep/SweepQueue.h"
#include "tests/support/SweepFiles.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Sweeps {

using namespace tbench;
using nlohmann::json;

namespace {

std::string writeSweep(const QTemporaryDir& dir, const json& parameters, int64_t maxEpoch,
                       const json& extra = json::object()) {
  return tbench::testing::writeSyntheticSweep(dir.path(), parameters, maxEpoch, extra);
}

SweepQueue::Options options(const QTemporaryDir& dir, int slotCount) {
  SweepQueue::Options o;
  o.cli = TB_CLI_PATH;
  o.sweepDir = dir.filePath("sweep-dir").toStdString();
  o.slotCount = slotCount;
  o.pollMs = 50;
  return o;
}

/// The trial's state as the state file on disk has it now.
std::optional<TrialRecord> onDisk(const std::string& sweepDir, int64_t index) {
  try {
    const auto state = readSweepState(sweepDir);
    if (!state || index >= static_cast<int64_t>(state->trials.size())) return std::nullopt;
    return state->trials[static_cast<size_t>(index)];
  } catch (const std::exception&) {
    return std::nullopt;  // being replaced: read again
  }
}

/// Trial 0 runs, with a process and at least `epochs` epochs of the metric on disk.
bool firstTrialRuns(const std::string& sweepDir, size_t epochs) {
  const auto t = onDisk(sweepDir, 0);
  return t && t->state == TrialState::Running && t->pid > 0 && t->metric.size() >= epochs;
}

}  // namespace

class TestSweeps : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("TB_QUIET", "1"); }

  void eightTrialsOnTwoSlotsAllFinish() {
    QTemporaryDir dir;
    const std::string sweep =
        writeSweep(dir,
                   {{"optimizer.learning_rate",
                     {{"values", {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08}}}}},
                   1);
    SweepQueue queue(sweep, options(dir, 2));
    const SweepState state = queue.run();
    QCOMPARE(state.trials.size(), size_t{8});
    for (const TrialRecord& t : state.trials) {
      QVERIFY2(t.state == TrialState::Finished,
               qPrintable(QString("trial %1 %2 %3")
                              .arg(t.index)
                              .arg(toString(t.state))
                              .arg(QString::fromStdString(t.detail))));
      QCOMPARE(t.metric.size(), size_t{1});
      // An ordinary run directory, whose frozen project has the trial's value.
      std::ifstream in(t.runDir + "/project.json");
      const json ran = json::parse(in);
      QCOMPARE(ran["optimizer"]["learning_rate"], t.values["optimizer.learning_rate"]);
      QCOMPARE(ran["num_threads"].get<int>(), std::max(1, QThread::idealThreadCount() / 2));
    }
    // Never more than 2 at once: at every start, count the trials running then.
    for (const TrialRecord& a : state.trials) {
      int running = 0;
      for (const TrialRecord& b : state.trials) {
        if (b.started <= a.started && a.started < b.ended) ++running;
      }
      QVERIFY2(running <= 2, qPrintable(QString::number(running)));
    }
    // The state on disk is the state returned.
    const auto saved = readSweepState(dir.filePath("sweep-dir").toStdString());
    QVERIFY(saved.has_value());
    QCOMPARE(saved->toJson(), state.toJson());
  }

  void aKilledTrialFailsAndTheOthersGoOn() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"max_epoch", {{"values", {400, 1, 1}}}}}, 1);
    SweepQueue queue(sweep, options(dir, 1));
    SweepState state;
    std::thread worker([&] { state = queue.run(); });
    const std::string sweepDir = dir.filePath("sweep-dir").toStdString();
    QTRY_VERIFY_WITH_TIMEOUT(firstTrialRuns(sweepDir, 0), 60000);
    ::kill(static_cast<pid_t>(onDisk(sweepDir, 0)->pid), SIGKILL);
    worker.join();
    QVERIFY(state.trials[0].state == TrialState::Failed);
    QVERIFY2(state.trials[0].detail.find("killed by signal 9") != std::string::npos,
             state.trials[0].detail.c_str());
    QVERIFY(state.trials[1].state == TrialState::Finished);
    QVERIFY(state.trials[2].state == TrialState::Finished);
  }

  // A sequential sweep (tpe, run_cap 5) makes its trials as slots free up, the first ones
  // random search's; random without run_cap stops making trials once one reaches
  // metric.target, and a queue started again on it goes on from its state without a new one.
  void sequentialSweepsMakeTrialsUntilCapOrTarget() {
    QTemporaryDir dir;
    const json lr = {{"min", 1e-5}, {"max", 0.1}, {"distribution", "log_uniform_values"}};
    std::string sweep = writeSweep(dir, {{"optimizer.learning_rate", lr}}, 1,
                                   {{"method", "tpe"}, {"run_cap", 5}, {"seed", 2}});
    {
      SweepQueue queue(sweep, options(dir, 2));
      const SweepState state = queue.run();
      QCOMPARE(state.trials.size(), size_t{5});
      for (const TrialRecord& t : state.trials) {
        QVERIFY2(t.state == TrialState::Finished, toString(t.state));
        QCOMPARE(t.values, randomTrialValues(queue.sweep(), t.index));  // tpe's random start
      }
    }
    QTemporaryDir second;
    sweep = writeSweep(second, {{"optimizer.learning_rate", lr}}, 1,
                       {{"method", "random"},
                        {"seed", 1},
                        {"metric", {{"name", "validation_error"}, {"target", 0.05}}}});
    std::vector<std::string> lines;
    SweepQueue::Options o = options(second, 1);
    o.log = [&lines](const std::string& line) { lines.push_back(line); };
    SweepQueue queue(sweep, o);
    const SweepState state = queue.run();
    QVERIFY(!state.trials.empty());
    const TrialRecord& last = state.trials.back();
    QVERIFY2(!last.metric.empty() && last.metric.back() <= 0.05,
             qPrintable(QString::number(last.metric.empty() ? -1 : last.metric.back())));
    for (size_t i = 0; i + 1 < state.trials.size(); ++i) {
      QVERIFY(state.trials[i].metric.back() > 0.05);  // none before it reached the target
    }
    QVERIFY(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return l.find("reached metric.target") != std::string::npos;
    }));
    SweepQueue again(sweep, options(second, 1));
    QCOMPARE(again.run().trials.size(), state.trials.size());
  }

  // Issue 35: a trial whose cost turned NaN had run to its full budget; it is stopped at the
  // next poll and ends failed, saying where it diverged, and the other trials go on.
  void aDivergedTrialIsStopped() {
    QTemporaryDir dir;
    const std::string sweep =
        writeSweep(dir, {{"optimizer.learning_rate", {{"values", {1e12, 0.05}}}}}, 200);
    SweepQueue queue(sweep, options(dir, 1));
    // The good trial needs only a few epochs to show it goes on: cap it through control.json
    // once the bad one has ended.
    std::thread canceller([&] {
      for (int i = 0; i < 1200; ++i) {
        const auto bad = onDisk(dir.filePath("sweep-dir").toStdString(), 0);
        const auto good = onDisk(dir.filePath("sweep-dir").toStdString(), 1);
        if (bad && bad->state != TrialState::Running && bad->state != TrialState::Pending && good &&
            good->state == TrialState::Running && good->metric.size() >= 2) {
          requestTrialCancel(dir.filePath("sweep-dir").toStdString(), 1);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
    const SweepState state = queue.run();
    canceller.join();
    const TrialRecord& bad = state.trials[0];
    QVERIFY2(bad.state == TrialState::Failed, toString(bad.state));
    QVERIFY2(bad.detail.find("diverged: cost") != std::string::npos, bad.detail.c_str());
    QVERIFY(bad.metric.size() < 200);
    QVERIFY2(state.trials[1].metric.size() >= 2, toString(state.trials[1].state));
  }

  void hyperbandPrunesTheTrialItsRuleSays() {
    QTemporaryDir dir;
    // One slot: the good trial runs first; the one that cannot learn (lr 1e-7) is judged
    // against it at the first band it reaches and stopped there.
    const std::string sweep =
        writeSweep(dir, {{"optimizer.learning_rate", {{"values", {0.05, 1e-7}}}}}, 40,
                   {{"early_terminate", {{"type", "hyperband"}, {"min_iter", 1}, {"eta", 3}}}});
    SweepQueue queue(sweep, options(dir, 1));
    const SweepState state = queue.run();
    const TrialRecord& good = state.trials[0];
    const TrialRecord& bad = state.trials[1];
    QVERIFY(good.state == TrialState::Finished);
    QCOMPARE(good.metric.size(), size_t{40});
    QVERIFY2(bad.state == TrialState::Pruned, toString(bad.state));
    QVERIFY(bad.prunedAt == 1 || bad.prunedAt == 3 || bad.prunedAt == 9 || bad.prunedAt == 27);
    QVERIFY(bad.metric.size() < 40);
    QVERIFY(bad.metric[static_cast<size_t>(bad.prunedAt - 1)] >
            good.metric[static_cast<size_t>(bad.prunedAt - 1)]);
  }

  // Issue 34 (N2): a metric put every other epoch (inference.every_k_epochs 2) is read by its
  // occurrences, as W&B reads a run's history; it had been read for epochs 1, 2, ... and stopped
  // at the first epoch without it, so every trial's metric was empty (no pruning, no best).
  void aMetricPutEveryOtherEpochIsRead() {
    QTemporaryDir dir;
    const std::string sweep =
        writeSweep(dir, {{"optimizer.learning_rate", {{"values", {0.05, 1e-4}}}}}, 4,
                   {{"early_terminate", {{"type", "hyperband"}, {"min_iter", 1}, {"eta", 2}}}});
    const std::string basePath = dir.filePath("base.json").toStdString();
    json base = json::parse(std::ifstream(basePath));
    base["callbacks"] = {{{"type", "inference"}, {"every_k_epochs", 2}}};
    std::ofstream(basePath) << base.dump(2);
    SweepQueue queue(sweep, options(dir, 1));
    const SweepState state = queue.run();
    for (const TrialRecord& t : state.trials) {
      QVERIFY2(t.state == TrialState::Finished, toString(t.state));
      QCOMPARE(t.metric.size(), size_t{2});  // after epochs 2 and 4
    }
    QVERIFY(state.trials[0].metric.back() < state.trials[1].metric.back());
  }

  // Cancel Trial's request (control.json) on a running trial: it stops at a step and ends
  // cancelled; the sweep goes on with the next.
  void aRunningTrialCancelledOnRequestEndsCancelled() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"max_epoch", {{"values", {400, 1}}}}}, 1);
    SweepQueue queue(sweep, options(dir, 1));
    SweepState state;
    std::thread worker([&] { state = queue.run(); });
    const std::string sweepDir = dir.filePath("sweep-dir").toStdString();
    QTRY_VERIFY_WITH_TIMEOUT(firstTrialRuns(sweepDir, 1), 60000);
    requestTrialCancel(sweepDir, 0);
    worker.join();
    QVERIFY2(state.trials[0].state == TrialState::Cancelled, toString(state.trials[0].state));
    QVERIFY(state.trials[0].metric.size() < 400);
    QVERIFY(state.trials[1].state == TrialState::Finished);
  }

  void cancellingStopsTheRunningTrialAndThePendingOnes() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"max_epoch", {{"values", {400, 2, 3}}}}}, 1);
    SweepQueue queue(sweep, options(dir, 1));
    SweepState state;
    std::thread worker([&] { state = queue.run(); });
    const std::string sweepDir = dir.filePath("sweep-dir").toStdString();
    QTRY_VERIFY_WITH_TIMEOUT(firstTrialRuns(sweepDir, 1), 60000);
    queue.stop();
    worker.join();
    QVERIFY2(state.trials[0].state == TrialState::Cancelled, toString(state.trials[0].state));
    QVERIFY(state.trials[0].metric.size() < 400);
    QVERIFY(state.trials[1].state == TrialState::Cancelled);
    QVERIFY(state.trials[2].state == TrialState::Cancelled);
    // Run again, the trials cancelled before they started run; the one stopped stays so.
    SweepQueue again(sweep, options(dir, 1));
    const SweepState after = again.run();
    QVERIFY(after.trials[0].state == TrialState::Cancelled);
    QVERIFY(after.trials[1].state == TrialState::Finished);
    QVERIFY(after.trials[2].state == TrialState::Finished);
    // Another sweep (other values) is not run into the same directory.
    const std::string other = writeSweep(dir, {{"max_epoch", {{"values", {400, 2, 4}}}}}, 1);
    QVERIFY_THROWS_EXCEPTION(InputError, SweepQueue(other, options(dir, 1)));
    // Nor the same trials under another goal: the trials so far were ranked (and pruned) by
    // the goal the sweep started with.
    const std::string maximize =
        writeSweep(dir, {{"max_epoch", {{"values", {400, 2, 3}}}}}, 1,
                   {{"metric", {{"name", "validation_error"}, {"goal", "maximize"}}}});
    try {
      SweepQueue(maximize, options(dir, 1));
      QFAIL("a sweep directory taken over by another goal");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("validation_error (minimize)"), e.what());
      QVERIFY2(QString(e.what()).contains("validation_error (maximize)"), e.what());
    }
    QCOMPARE(readSweepState(dir.filePath("sweep-dir").toStdString())->maximize, false);
  }

  // While DIR/pause exists no trial starts; removing it lets the sweep go on.
  void aPausedSweepStartsNothingUntilResumed() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"seed", {{"values", {1, 2}}}}}, 1);
    const std::string sweepDir = dir.filePath("sweep-dir").toStdString();
    std::filesystem::create_directories(sweepDir);
    const std::string pause = sweepDir + "/" + SweepState::kPauseFileName;
    writeFileAtomically(pause, "");
    std::atomic<bool> saidPaused{false};
    SweepQueue::Options o = options(dir, 1);
    o.log = [&](const std::string& line) {
      if (line.rfind("paused", 0) == 0) saidPaused = true;
    };
    SweepQueue queue(sweep, o);
    SweepState state;
    std::thread worker([&] { state = queue.run(); });
    QTRY_VERIFY_WITH_TIMEOUT(saidPaused.load(), 30000);
    for (int64_t i : {0, 1}) QVERIFY(onDisk(sweepDir, i)->state == TrialState::Pending);
    std::filesystem::remove(pause);
    worker.join();
    QVERIFY(state.trials[0].state == TrialState::Finished);
    QVERIFY(state.trials[1].state == TrialState::Finished);
  }

  // A trial killed after its first checkpoint fails; --retry-failed (retryFailed) resumes it
  // from that checkpoint in its own run directory, and it ends with all its epochs.
  void aFailedTrialResumesFromItsCheckpoint() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"max_epoch", {{"values", {40}}}}}, 1);
    {  // the base project saves a checkpoint every epoch
      std::ifstream in(dir.filePath("base.json").toStdString());
      json base = json::parse(in);
      base["callbacks"].push_back({{"type", "model_saver"}});
      std::ofstream(dir.filePath("base.json").toStdString()) << base.dump(2);
    }
    const std::string sweepDir = dir.filePath("sweep-dir").toStdString();
    {
      SweepQueue queue(sweep, options(dir, 1));
      SweepState state;
      std::thread worker([&] { state = queue.run(); });
      QTRY_VERIFY_WITH_TIMEOUT(firstTrialRuns(sweepDir, 2), 60000);
      ::kill(static_cast<pid_t>(onDisk(sweepDir, 0)->pid), SIGKILL);
      worker.join();
      QVERIFY(state.trials[0].state == TrialState::Failed);
      QVERIFY(state.trials[0].metric.size() < 40);
    }
    SweepQueue::Options again = options(dir, 1);
    again.retryFailed = true;
    SweepQueue queue(sweep, again);
    const SweepState state = queue.run();
    const TrialRecord& t = state.trials[0];
    QVERIFY2(t.state == TrialState::Finished, (std::string(toString(t.state)) + t.detail).c_str());
    QVERIFY(t.resume);
    QCOMPARE(t.metric.size(), size_t{40});  // the epochs before the kill and after the resume
    QVERIFY(QFile::exists(QString::fromStdString(t.runDir) + "/log.log"));
  }

  // The queue dies (SIGKILL, like a window killed); its trial runs on in its own process group.
  // The same command again adopts it, records its end from its run.json, and runs the rest.
  // Issue 35: the queue outlives the reader of its output (a window closed with "keep it
  // running"): the broken pipe used to end it with SIGPIPE, leaving a trial recorded running
  // and the pending one never started.
  void aQueueWhoseReaderIsGoneGoesOn() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"max_epoch", {{"values", {3, 1}}}}}, 1);
    const QString sweepDir = dir.filePath("sweep-dir");
    // `| head -c 1`: the reader reads one byte and goes; every later line of the queue's is a
    // write to a closed pipe.
    QProcess shell;
    shell.start("/bin/sh", {"-c", QString("'%1' sweep '%2' --slots 1 --sweep-dir '%3' 2>&1 | "
                                          "head -c 1 >/dev/null")
                                      .arg(TB_CLI_PATH, QString::fromStdString(sweep), sweepDir)});
    QVERIFY(shell.waitForFinished(60000));
    const auto ended = [&] {
      const auto state = readSweepState(sweepDir.toStdString());
      return state && state->queuePid == 0 && !state->trials.empty() &&
             std::all_of(state->trials.begin(), state->trials.end(),
                         [](const TrialRecord& t) { return t.state == TrialState::Finished; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(ended(), 120000);
  }

  // Issue 35: a trial an earlier queue had told to stop (cancelled), whose process then ended
  // before it recorded its end (SIGTERM while it loaded), had been labelled "failed: its process
  // is gone" by the next queue. It is cancelled; the trials never started run.
  void aTrialToldToStopThatLeftNoEndIsCancelledNotFailed() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"seed", {{"values", {1, 2}}}}}, 1);
    const std::string sweepDir = dir.filePath("sweep-dir").toStdString();
    {
      SweepQueue first(sweep, options(dir, 1));
      first.stop();  // before anything starts: every trial cancelled, never started
      first.run();
    }
    QProcess gone;  // a pid that no process has now
    gone.start("true", {});
    QVERIFY(gone.waitForFinished(10000));
    const std::string stateFile = sweepDir + "/sweep-state.json";
    json state = json::parse(std::ifstream(stateFile));
    json& t = state["trials"][0];
    t["state"] = "running";
    t["pid"] = gone.processId();
    char host[256] = {};
    QCOMPARE(::gethostname(host, sizeof host - 1), 0);
    t["host"] = std::string(host);  // this host (as the engine's thisHost)
    t["started"] = 1.0;
    t["stop_requested"] = true;
    state["queue"] = {{"pid", 0}, {"host", ""}};
    writeFileAtomically(stateFile, state.dump(2));

    SweepQueue again(sweep, options(dir, 1));
    const SweepState after = again.run();
    QVERIFY2(after.trials[0].state == TrialState::Cancelled,
             qPrintable(QString::fromStdString(std::string(toString(after.trials[0].state)) + ": " +
                                               after.trials[0].detail)));
    QVERIFY(after.trials[1].state == TrialState::Finished);
  }

  void aQueueStartedAgainAdoptsTheTrialThatKeptRunning() {
    QTemporaryDir dir;
    const std::string sweep = writeSweep(dir, {{"max_epoch", {{"values", {60, 1}}}}}, 1);
    const QString sweepDir = dir.filePath("sweep-dir");
    const QStringList args = {"sweep", QString::fromStdString(sweep), "--slots", "1", "--sweep-dir",
                              sweepDir};
    QProcess first;
    first.start(TB_CLI_PATH, args);
    QTRY_VERIFY_WITH_TIMEOUT(firstTrialRuns(sweepDir.toStdString(), 1), 60000);
    const int64_t pid = onDisk(sweepDir.toStdString(), 0)->pid;
    // Held (SIGSTOP) until the next queue has taken the directory, so that it cannot end first
    // on a fast or a busy machine: the next queue must find it running and adopt it.
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGSTOP), 0);
    struct Continue {  // also when a check below fails: no trial left stopped
      pid_t pid;
      ~Continue() { ::kill(pid, SIGCONT); }
    } const held{static_cast<pid_t>(pid)};
    // A second queue on the same directory while the first lives would start the pending
    // trials twice: refused, naming the first's pid.
    QProcess twice;
    twice.start(TB_CLI_PATH, args);
    QVERIFY(twice.waitForFinished(60000));
    const QString refusal = QString::fromUtf8(twice.readAllStandardError());
    QCOMPARE(twice.exitCode(), 2);
    QVERIFY2(refusal.contains("its queue is already running (pid " +
                              QString::number(first.processId()) + ")"),
             qPrintable(refusal));
    first.kill();  // SIGKILL: no chance to cancel anything
    QVERIFY(first.waitForFinished(10000));
    QCOMPARE(::kill(static_cast<pid_t>(pid), 0), 0);  // the trial lives on

    QProcess again;
    again.start(TB_CLI_PATH, args);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          try {
            const auto s = readSweepState(sweepDir.toStdString());
            return s && s->queuePid == again.processId();
          } catch (const std::exception&) {
            return false;  // being replaced: read again
          }
        }(),
        60000);
    QCOMPARE(::kill(static_cast<pid_t>(pid), SIGCONT), 0);
    QVERIFY(again.waitForFinished(120000));
    const QString out = QString::fromUtf8(again.readAllStandardOutput());
    QVERIFY2(again.exitCode() == 0, qPrintable(out + again.readAllStandardError()));
    const auto state = readSweepState(sweepDir.toStdString());
    QVERIFY(state.has_value());
    QVERIFY2(state->trials[0].state == TrialState::Finished, toString(state->trials[0].state));
    QCOMPARE(state->trials[0].pid, pid);  // adopted, not started again
    QCOMPARE(state->trials[0].metric.size(), size_t{60});
    QVERIFY(state->trials[1].state == TrialState::Finished);
    QVERIFY2(out.contains("best: trial"), qPrintable(out));
  }
};

}  // namespace test_Sweeps

TB_TEST_GUILESS_MAIN(test_Sweeps::TestSweeps)
#include "test_Sweeps.moc"
