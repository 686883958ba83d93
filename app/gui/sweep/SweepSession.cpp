#include "app/gui/sweep/SweepSession.h"

#include <signal.h>

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <utility>

#include "app/bridge/SweepServices.h"

namespace tbench::gui {

SweepSession::SweepSession(bridge::SweepStateReader reader, QObject* parent)
    : QObject(parent),
      reader_(std::move(reader)),
      process_(new CliProcess(CliProcess::Lifetime::Outlives, this)) {
  timer_.setInterval(kPollMs);
  connect(&timer_, &QTimer::timeout, this, &SweepSession::refresh);
  connect(process_, &CliProcess::lines, this, &SweepSession::logLines);
  connect(process_, &CliProcess::finished, this, [this](int exitStatus) {
    emit runningChanged(false);
    refresh();
    timer_.stop();
    emit finished(exitStatus);
  });
}

SweepSession::~SweepSession() {
  process_->blockSignals(true);
  // Kept running (the window asked): the queue goes on alone (CliProcess leaves it). Otherwise
  // it is stopped as Stop Sweep does, so that no trial is left recorded running with nobody to
  // record its end.
  if (!keepRunning_) stopAndWait(10000);
}

bool SweepSession::isRunning() const { return process_->isRunning(); }

void SweepSession::keepRunningAfterClose() {
  keepRunning_ = true;
  process_->leaveRunning();
}

bool SweepSession::stopAndWait(int ms) {
  if (!isRunning()) return true;
  process_->terminate();
  return process_->waitForFinished(ms);
}

void SweepSession::setSweepDir(const QString& sweepDir) {
  const QString absolute = QDir(sweepDir).absolutePath();
  if (absolute == sweepDir_) return;
  sweepDir_ = absolute;
  emit sweepDirChanged(sweepDir_);
}

bool SweepSession::follow(const QString& sweepDir) {
  if (isRunning() && QDir(sweepDir).absolutePath() != sweepDir_) {
    emit logLines({tr("a sweep is running in the Sweeps tab: stop it before showing another")});
    return false;
  }
  setSweepDir(sweepDir);
  refresh();
  timer_.start();
  return true;
}

bool SweepSession::run(const QString& cli, const QString& sweepFile, const QString& sweepDir,
                       QString* error) {
  if (isRunning()) {
    if (error) *error = tr("a sweep is running in this panel");
    return false;
  }
  const QStringList args = {"sweep", sweepFile, "--sweep-dir", sweepDir};
  emit logLines({QStringLiteral("$ %1 %2").arg(cli, args.join(' '))});
  setSweepDir(sweepDir);  // the one this session follows from now on
  if (!process_->start(cli, args, error)) return false;
  emit runningChanged(true);
  follow(sweepDir);
  return true;
}

bool SweepSession::runFile(const QString& sweepFile, const QString& sweepDir, QString* error) {
  const QString cli = CliProcess::defaultCli();
  if (const QString problem = CliProcess::cliProblem(cli); !problem.isEmpty()) {
    if (error) *error = problem;
    return false;
  }
  return run(cli, QFileInfo(sweepFile).absoluteFilePath(),
             sweepDir.isEmpty() ? bridge::defaultSweepDir(sweepFile) : sweepDir, error);
}

void SweepSession::stop() {
  if (isRunning()) {
    process_->terminate();  // the queue cancels its trials, each at a step
  } else if (state_.queuePid > 0) {
    // A queue outside this window (the CLI, or a window closed with "keep it running"): the
    // same signal as Ctrl-C.
    ::kill(static_cast<pid_t>(state_.queuePid), SIGTERM);
    emit logLines({tr("asked the sweep's queue (pid %1) to stop").arg(state_.queuePid)});
  }
}

void SweepSession::refresh() {
  if (sweepDir_.isEmpty() || !reader_) return;
  state_ = reader_(sweepDir_);
  if (state_.present && state_.error.isEmpty()) {
    // Nothing left to happen: no more polling until the sweep is shown or run again.
    if (!busy() && !isRunning()) timer_.stop();
    int ended = 0, running = 0;
    for (const auto& t : state_.trials) {
      running += t.state == bridge::TrialPhase::Running ? 1 : 0;
      ended += isActive(t.state) ? 0 : 1;
    }
    const int total = static_cast<int>(state_.trials.size());
    emit progress(tr("Sweep: %1 of %2 trials ended, %3 running").arg(ended).arg(total).arg(running),
                  queueRuns() && total > 0 ? 100 * ended / total : -1);
  }
  emit stateChanged(state_);
}

int SweepSession::bestTrial() const {
  // The engine's ranking (rankTrials): a trial that ran to its end outranks a pruned one.
  return state_.bestTrial >= 0 && state_.bestTrial < state_.trials.size()
             ? static_cast<int>(state_.bestTrial)
             : -1;
}

bool SweepSession::busy() const {
  return std::any_of(state_.trials.begin(), state_.trials.end(),
                     [](const auto& t) { return isActive(t.state); });
}

}  // namespace tbench::gui
