#include "app/gui/sweep/SweepSession.h"

#include <signal.h>

#include <QDir>
#include <algorithm>
#include <utility>

namespace tbench::gui {

SweepSession::SweepSession(bridge::SweepStateReader reader, QObject* parent)
    : QObject(parent), reader_(std::move(reader)) {
  timer_.setInterval(kPollMs);
  connect(&timer_, &QTimer::timeout, this, &SweepSession::refresh);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyReadStandardOutput, this, &SweepSession::readOutput);
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    readOutput();
    emit runningChanged(false);
    refresh();
    timer_.stop();
    emit finished(status == QProcess::NormalExit ? code : 128 + 9);
  });
}

SweepSession::~SweepSession() {
  process_->blockSignals(true);
  // Kept running (the window asked): the queue goes on alone; its QProcess is left undeleted
  // so that nothing kills it. Otherwise it is stopped as Stop Sweep does, so that no trial is
  // left recorded running with nobody to record its end.
  if (keepRunning_ && isRunning()) return;
  stopAndWait(10000);
  delete process_;
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
  partial_.clear();
  setSweepDir(sweepDir);  // the one this session follows from now on
  process_->start(cli, args);
  if (!process_->waitForStarted(10000)) {
    if (error) *error = tr("cannot start %1: %2").arg(cli, process_->errorString());
    return false;
  }
  emit runningChanged(true);
  follow(sweepDir);
  return true;
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

void SweepSession::readOutput() {
  partial_ += process_->readAllStandardOutput();
  const qsizetype end = partial_.lastIndexOf('\n');
  if (end < 0) return;
  const QStringList lines = QString::fromUtf8(partial_.left(end)).split('\n');
  partial_ = partial_.mid(end + 1);
  emit logLines(lines);
}

void SweepSession::refresh() {
  if (sweepDir_.isEmpty() || !reader_) return;
  state_ = reader_(sweepDir_);
  if (state_.present && state_.error.isEmpty()) {
    // Nothing left to happen: no more polling until the sweep is shown or run again.
    if (!busy() && !isRunning()) timer_.stop();
    int ended = 0, running = 0;
    for (const auto& t : state_.trials) {
      running += t.state == QLatin1String("running") ? 1 : 0;
      ended += t.state != QLatin1String("running") && t.state != QLatin1String("pending") ? 1 : 0;
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
  return std::any_of(state_.trials.begin(), state_.trials.end(), [](const auto& t) {
    return t.state == QLatin1String("pending") || t.state == QLatin1String("running");
  });
}

}  // namespace tbench::gui
