// Sweeps on SLURM (Note [Sweeps on SLURM]) against a real single-node SLURM from Debian's
// slurm-wlm, started by the test (tests/support/slurm-cluster.sh; skipped with its reason where
// it cannot start): `towerbench-cli sweep --slurm --submit` runs every trial as an array task,
// at most --slots at once; hyperband prunes across tasks through the shared sweep-state.json;
// scancel cancels the running trial cleanly, and the same command again submits what is left;
// a task that SLURM requeues resumes its trial from its checkpoint.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/support/SkippableMain.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/sweep/SweepQueue.h"
#include "tests/support/SweepFiles.h"

using namespace tbench;
using nlohmann::json;

namespace {

const QString kCluster = QString(TB_SOURCE_DIR) + "/tests/support/slurm-cluster.sh";

/// base.json and sweep.json in `dir` (tests/support/SweepFiles.h), a checkpoint every epoch.
void writeSweep(const QTemporaryDir& dir, const json& parameters, int64_t maxEpoch,
                const json& extra = json::object()) {
  tbench::testing::writeSyntheticSweep(dir.path(), parameters, maxEpoch, extra, true);
}

std::optional<SweepState> stateIn(const QString& sweepDir) {
  try {
    return readSweepState(sweepDir.toStdString());
  } catch (const std::exception&) {
    return std::nullopt;  // being replaced: read again
  }
}

bool allEnded(const QString& sweepDir) {
  const auto state = stateIn(sweepDir);
  if (!state) return false;
  for (const TrialRecord& t : state->trials) {
    if (t.state == TrialState::Pending || t.state == TrialState::Running) return false;
  }
  return true;
}

QString describe(const SweepState& state) {
  QString text;
  for (const TrialRecord& t : state.trials) {
    text += QString("trial %1 %2 (%3 epochs) %4; ")
                .arg(t.index)
                .arg(toString(t.state))
                .arg(t.metric.size())
                .arg(QString::fromStdString(t.detail));
  }
  return text;
}

}  // namespace

class TestSlurm : public QObject {
  Q_OBJECT

  /// `towerbench-cli ARGS` in `dir`; its exit status, its output in `output`.
  int cli(const QStringList& args, const QString& dir, QString* output = nullptr) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(TB_CLI_PATH, args);
    p.waitForFinished(120000);
    if (output) *output = QString::fromLocal8Bit(p.readAll());
    return p.exitCode();
  }

  /// The job's tasks that squeue still lists.
  /// The jobs in the queue, "ID STATE" a line; never empty when squeue failed (a busy
  /// controller times out), so that a failed look is not taken for an empty queue.
  QString squeue() {
    QProcess p;
    p.start("squeue", {"--noheader", "--format=%i %t"});
    if (!p.waitForFinished(10000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
      const QString why = "squeue failed: " + QString::fromLocal8Bit(p.readAllStandardError());
      qWarning("%s", qPrintable(why));
      return why;
    }
    return QString::fromLocal8Bit(p.readAllStandardOutput()).trimmed();
  }

 private slots:
  void initTestCase() {
    QVERIFY(slurmDir_.isValid());
    QProcess start;
    start.setProcessChannelMode(QProcess::MergedChannels);
    start.start(kCluster, {"start", slurmDir_.path()});
    QVERIFY(start.waitForFinished(60000));
    const QString said = QString::fromLocal8Bit(start.readAll()).trimmed();
    if (start.exitCode() == 77) {
      skipped_ = true;
      QSKIP(qPrintable(said));
    }
    QVERIFY2(start.exitCode() == 0, qPrintable(said));
    started_ = true;
    qputenv("SLURM_CONF", said.section('=', 1).toUtf8());
    qputenv("TB_QUIET", "1");  // sbatch passes the environment on to the tasks
  }

  void cleanupTestCase() {
    if (!started_) return;
    QProcess::execute(kCluster, {"stop", slurmDir_.path()});
  }

  void aSweepRunsAsAJobArrayTwoTasksAtOnce() {
    QTemporaryDir dir;
    writeSweep(dir, {{"optimizer.learning_rate", {{"values", {0.01, 0.02, 0.03, 0.04}}}}}, 2);
    QString out;
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit", "--slots", "2"}, dir.path(), &out),
             0);
    QVERIFY2(out.contains("4 array task(s) (0-3%2)") && out.contains("submitted job"),
             qPrintable(out));
    const QString sweepDir = dir.filePath("sweeps/sweep");
    // The script as written: the array, the output beside the state, each task one trial.
    QFile script(sweepDir + "/slurm-array.sh");
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(script.readAll());
    QVERIFY2(text.contains("#SBATCH --array=0-3%2\n"), qPrintable(text));
    QVERIFY(text.contains("--trial \"$SLURM_ARRAY_TASK_ID\""));
    QTRY_VERIFY_WITH_TIMEOUT(allEnded(sweepDir), 120000);
    const SweepState state = *stateIn(sweepDir);
    for (const TrialRecord& t : state.trials) {
      QVERIFY2(t.state == TrialState::Finished, qPrintable(describe(state)));
      QCOMPARE(t.metric.size(), size_t{2});
      // An ordinary run directory with the trial's value, written by the array task.
      std::ifstream in(t.runDir + "/project.json");
      QCOMPARE(json::parse(in)["optimizer"]["learning_rate"], t.values["optimizer.learning_rate"]);
      QVERIFY(QFile::exists(
          sweepDir +
          QString("/slurm-%1_%2.out")
              .arg(out.section("submitted job ", 1).section(';', 0, 0).section(' ', 0, 0))
              .arg(t.index)));
    }
    // Never more than 2 at once (%2): at every start, count the trials running then.
    for (const TrialRecord& a : state.trials) {
      int running = 0;
      for (const TrialRecord& b : state.trials) {
        if (b.started <= a.started && a.started < b.ended) ++running;
      }
      QVERIFY2(running <= 2, qPrintable(QString::number(running)));
    }
    // Nothing left to submit.
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit"}, dir.path(), &out), 0);
    QVERIFY2(out.contains("nothing to submit"), qPrintable(out));
  }

  void hyperbandPrunesAcrossTasks() {
    QTemporaryDir dir;
    // One task at a time: the good trial's task runs first; the task of the one that cannot
    // learn (lr 1e-7) reads its metric from the shared state and stops its own trial at a band.
    writeSweep(dir, {{"optimizer.learning_rate", {{"values", {0.05, 1e-7}}}}}, 40,
               {{"early_terminate", {{"type", "hyperband"}, {"min_iter", 1}, {"eta", 3}}}});
    QString out;
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit", "--slots", "1"}, dir.path(), &out),
             0);
    const QString sweepDir = dir.filePath("sweeps/sweep");
    QTRY_VERIFY_WITH_TIMEOUT(allEnded(sweepDir), 120000);
    const SweepState state = *stateIn(sweepDir);
    const TrialRecord& good = state.trials[0];
    const TrialRecord& bad = state.trials[1];
    QVERIFY2(good.state == TrialState::Finished, qPrintable(describe(state)));
    QCOMPARE(good.metric.size(), size_t{40});
    QVERIFY2(bad.state == TrialState::Pruned, qPrintable(describe(state)));
    QVERIFY(bad.prunedAt == 1 || bad.prunedAt == 3 || bad.prunedAt == 9 || bad.prunedAt == 27);
    QVERIFY(bad.metric.size() < 40);
    QVERIFY(bad.metric[static_cast<size_t>(bad.prunedAt - 1)] >
            good.metric[static_cast<size_t>(bad.prunedAt - 1)]);
  }

  void scancelCancelsAndTheSameCommandSubmitsWhatIsLeft() {
    QTemporaryDir dir;
    writeSweep(dir, {{"max_epoch", {{"values", {400, 1}}}}}, 1);
    QString out;
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit", "--slots", "1"}, dir.path(), &out),
             0);
    const QString job = out.section("submitted job ", 1).section(';', 0, 0).section(' ', 0, 0);
    QVERIFY2(!job.isEmpty(), qPrintable(out));
    const QString sweepDir = dir.filePath("sweeps/sweep");
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          const auto s = stateIn(sweepDir);
          return s && s->trials[0].state == TrialState::Running && !s->trials[0].metric.empty();
        }(),
        60000);
    // A second submission while the job lives would run its trials twice: refused.
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit"}, dir.path(), &out), 1);
    QVERIFY2(out.contains("is still queued or running"), qPrintable(out));
    QCOMPARE(QProcess::execute("scancel", {job}), 0);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          const auto s = stateIn(sweepDir);
          return s && s->trials[0].state != TrialState::Running;
        }(),
        60000);
    QTRY_VERIFY_WITH_TIMEOUT(squeue().isEmpty(), 30000);
    SweepState state = *stateIn(sweepDir);
    // Stopped at a step boundary, its checkpoint saved; the task that never started is pending.
    QVERIFY2(state.trials[0].state == TrialState::Cancelled, qPrintable(describe(state)));
    QVERIFY2(state.trials[1].state == TrialState::Pending, qPrintable(describe(state)));
    bool checkpoint = false;
    for (const auto& e : std::filesystem::directory_iterator(state.trials[0].runDir)) {
      checkpoint |= e.path().extension() == ".pt";
    }
    QVERIFY(checkpoint);
    // It stopped at a step and said so (a second SIGTERM from its task would have made it quit
    // without saving, its run.json still "running").
    QFile runJson(QString::fromStdString(state.trials[0].runDir) + "/run.json");
    QVERIFY(runJson.open(QIODevice::ReadOnly));
    const json run = json::parse(runJson.readAll().toStdString());
    QCOMPARE(run["state"].get<std::string>(), std::string("stopped"));
    // Again: the pending trial only (the cancelled one had started: it stays cancelled).
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit"}, dir.path(), &out), 0);
    QVERIFY2(out.contains("1 array task(s) (1)"), qPrintable(out));
    QTRY_VERIFY_WITH_TIMEOUT(allEnded(sweepDir), 60000);
    state = *stateIn(sweepDir);
    QVERIFY2(state.trials[0].state == TrialState::Cancelled, qPrintable(describe(state)));
    QVERIFY2(state.trials[1].state == TrialState::Finished, qPrintable(describe(state)));
  }

  // SLURM requeues a running task (preemption, a node lost, scontrol requeue): the task runs
  // again, finds its trial stopped and resumes it from its latest checkpoint to the end.
  void aRequeuedTaskResumesItsTrial() {
    QTemporaryDir dir;
    writeSweep(dir, {{"optimizer.learning_rate", {{"values", {0.01}}}}}, 60);
    QString out;
    QCOMPARE(cli({"sweep", "sweep.json", "--slurm", "--submit"}, dir.path(), &out), 0);
    const QString job = out.section("submitted job ", 1).section(';', 0, 0).section(' ', 0, 0);
    const QString sweepDir = dir.filePath("sweeps/sweep");
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          const auto s = stateIn(sweepDir);
          return s && s->trials[0].state == TrialState::Running && s->trials[0].metric.size() >= 2;
        }(),
        60000);
    QCOMPARE(QProcess::execute("scontrol", {"requeue", job + "_0"}), 0);
    // A requeued job waits for a begin time SLURM sets (minutes): now.
    QTRY_VERIFY_WITH_TIMEOUT(squeue().contains(" PD"), 30000);
    QCOMPARE(QProcess::execute("scontrol", {"update", "JobId=" + job + "_0", "StartTime=now"}), 0);
    QTRY_VERIFY_WITH_TIMEOUT(allEnded(sweepDir) && squeue().isEmpty(), 90000);
    const SweepState state = *stateIn(sweepDir);
    QFile log(sweepDir + "/slurm-" + job + "_0.out");
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QString said = QString::fromUtf8(log.readAll());
    // The task's output (SLURM opens it again for the requeued run): what it saw, when the
    // trial did not go on.
    QVERIFY2(state.trials[0].state == TrialState::Finished,
             qPrintable(describe(state) + "\n" + said.right(4000)));
    QCOMPARE(state.trials[0].metric.size(), size_t{60});
    QVERIFY2(said.contains("resumes from its latest checkpoint"), qPrintable(said));
  }

 public:
  bool skipped() const { return skipped_; }

 private:
  QTemporaryDir slurmDir_;
  bool started_ = false;
  bool skipped_ = false;
};

int main(int argc, char** argv) { return tbench::testing::runSkippable<TestSlurm>(argc, argv); }
#include "test_Slurm.moc"
