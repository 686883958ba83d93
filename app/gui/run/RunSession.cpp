#include "app/gui/run/RunSession.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "app/gui/run/LaunchedRun.h"
#include "app/gui/run/RunFollower.h"

namespace tbench::gui {

using bridge::RunController;
using bridge::RunState;

RunSession::RunSession(QObject* parent)
    : QObject(parent), launched_(new LaunchedRun(this)), follower_(new RunFollower(this)) {
  // In this process: the controller's signals, while the run is ours.
  connect(&controller_, &RunController::stateChanged, this, &RunSession::onControllerState);
  connect(&controller_, &RunController::runStarted, this,
          [this](const QString& dir, qint64 stepsPerEpoch, qint64, qint64 samplesPerStep) {
            begin(Kind::InProcess, dir);
            emit note(tr("run directory %1").arg(dir));
            emit started(dir, stepsPerEpoch, samplesPerStep);
          });
  connect(&controller_, &RunController::metrics, this, &RunSession::metrics);
  connect(&controller_, &RunController::progress, this, [this](const bridge::RunProgress& p) {
    learningRate_ = p.learningRate;
    emit progress(p);
  });
  connect(&controller_, &RunController::logLines, this, &RunSession::logLines);
  connect(&controller_, &RunController::checkpointSaved, this, &RunSession::checkpointSaved);
  connect(&controller_, &RunController::imageReceived, this, &RunSession::imageReceived);
  connect(&controller_, &RunController::runFinished, this, [this](bool stoppedEarly) {
    const qint64 step = controller_.globalStep();
    emit note(stoppedEarly ? tr("run stopped at step %1: %2").arg(step).arg(runDir_)
                           : tr("run finished at step %1: %2").arg(step).arg(runDir_));
    emit ended(stoppedEarly ? RunState::Stopped : RunState::Finished, QString());
  });
  connect(&controller_, &RunController::runFailed, this, [this](const QString& message) {
    emit note(tr("run failed: %1").arg(message));
    emit ended(RunState::Failed, message);
  });

  // Launched ranks and followed directories: rank 0's (or the run's) files.
  connect(launched_, &LaunchedRun::logLines, this, &RunSession::logLines);
  connect(launched_, &LaunchedRun::ranksChanged, this,
          [this] { emit message(launched_->rankSummary(), 0); });
  connect(launched_, &LaunchedRun::finished, this, &RunSession::onLaunchFinished);
  connect(follower_, &RunFollower::metricsRead, this, [this](const bridge::MetricSamples& s) {
    for (const auto& sample : s) followedStep_ = std::max(followedStep_, sample.step);
    emit metrics(s);
    emit progress(followedProgress());
  });
  connect(follower_, &RunFollower::statusChanged, this,
          [this] { emit progress(followedProgress()); });
  connect(follower_, &RunFollower::problem, this, &RunSession::note);
  connect(follower_, &RunFollower::ended, this, &RunSession::onFollowedEnded);
}

RunSession::~RunSession() {
  // The controller stops a run still going as it is destroyed; its last state changes must not
  // reach a window that is being destroyed too.
  QObject::disconnect(&controller_, nullptr, this, nullptr);
  blockSignals(true);
}

bool RunSession::isActive() const { return controller_.isActive() || launched_->isActive(); }

void RunSession::setState(RunState state) {
  if (state == state_) return;
  state_ = state;
  emit stateChanged(state);
}

void RunSession::begin(Kind kind, const QString& runDir) {
  kind_ = kind;
  runDir_ = runDir;
  runId_ = QFileInfo(runDir).fileName();
  followedStep_ = 0;
  learningRate_ = std::numeric_limits<double>::quiet_NaN();
}

bool RunSession::clear() {
  if (isActive()) return false;
  follower_->stop();
  kind_ = Kind::None;
  runDir_.clear();
  runId_.clear();
  followedStep_ = 0;
  learningRate_ = std::numeric_limits<double>::quiet_NaN();
  setState(RunState::Idle);
  return true;
}

bool RunSession::start(const bridge::StartOptions& options, QString* error) {
  if (isActive()) {
    if (error) *error = tr("A run is active.");
    return false;
  }
  follower_->stop();
  kind_ = Kind::InProcess;  // its directory arrives with RunController::runStarted
  learningRate_ = std::numeric_limits<double>::quiet_NaN();
  return controller_.start(options, error);
}

void RunSession::onControllerState(RunState state) {
  if (kind_ == Kind::InProcess) setState(state);
}

bool RunSession::launch(const QString& cli, const QString& projectFile, const QString& runDir,
                        int processes, bool resume, QString* error) {
  if (isActive()) {
    if (error) *error = tr("A run is active.");
    return false;
  }
  follower_->stop();
  if (!launched_->start(cli, projectFile, runDir, processes, error, resume)) return false;
  begin(Kind::Launched, runDir);
  setState(RunState::Running);
  emit started(runDir, 0, 0);
  emit note(tr("%1 %2 processes (distributed): rank 0's metrics are plotted as it writes them "
               "to %3")
                .arg(resume ? tr("resuming with") : tr("launching"))
                .arg(processes)
                .arg(QDir::toNativeSeparators(runDir)));
  follower_->follow(runDir);
  return true;
}

bool RunSession::follow(const QString& runDir) {
  if (isActive()) return false;
  follower_->stop();
  begin(Kind::Followed, QDir(runDir).absolutePath());
  setState(RunState::Running);
  emit started(runDir_, 0, 0);
  emit note(tr("following %1: the charts grow with its scalars.jsonl (or stats.json) and the "
               "status bar with its run.json")
                .arg(QDir::toNativeSeparators(runDir_)));
  follower_->follow(runDir_);
  return true;
}

void RunSession::stop(bool finalCheckpoint) {
  if (launched_->isActive()) {
    launched_->stop();
    setState(RunState::Stopping);
    return;
  }
  controller_.stop(finalCheckpoint);
}

bridge::RunProgress RunSession::followedProgress() const {
  const FollowedStatus& s = follower_->status();
  bridge::RunProgress progress;
  progress.maxEpoch = s.maxEpoch;
  progress.stepsPerEpoch = s.stepsPerEpoch;
  progress.globalStep = std::max(followedStep_, s.globalStep);
  if (s.stepsPerEpoch > 0) {
    // Running: the epoch the next step is in. Ended: the epoch of the last step (a run
    // stopped at global step 250 of 100 a epoch is in epoch 3 at its step 50, not "epoch 2,
    // step 150").
    const qint64 g = progress.globalStep, spe = s.stepsPerEpoch;
    const bool done = bridge::hasEnded(s.state) || s.state == RunState::Unknown;
    progress.epoch = std::clamp<qint64>(done ? (g + spe - 1) / spe : g / spe + 1, 1,
                                        std::max<qint64>(s.maxEpoch, 1));
    progress.stepInEpoch = std::clamp<qint64>(g - (progress.epoch - 1) * spe, 0, spe);
  }
  return progress;
}

void RunSession::onFollowedEnded(RunState state) {
  if (kind_ != Kind::Followed) return;  // a launched run ends with its processes
  const FollowedStatus& s = follower_->status();
  emit note(tr("the followed run is %1 at step %2%3")
                .arg(bridge::toString(state))
                .arg(s.globalStep)
                .arg(s.error.isEmpty() ? QString() : QStringLiteral(": ") + s.error));
  emit message(tr("Followed run %1 (%2)").arg(runId_, bridge::toString(state)), 0);
  follower_->stop();
  emit ended(state, s.error);
  setState(state);
}

void RunSession::onLaunchFinished(int exitCode) {
  follower_->poll();  // the last lines and the final run.json
  follower_->stop();
  const FollowedStatus& s = follower_->status();
  // A rank stopped by a signal exits 130 (the CLI's convention): after Stop, that is no failure.
  const bool stopped =
      s.state == RunState::Stopped ||
      (launched_->stopping() && (exitCode == 0 || exitCode == CliProcess::kExitStopped));
  const bool failed = exitCode != 0 && !stopped;
  const RunState state = failed    ? RunState::Failed
                         : stopped ? RunState::Stopped
                                   : RunState::Finished;
  emit note(tr("launch ended with status %1 (%2)").arg(exitCode).arg(launched_->rankSummary()));
  emit message(launched_->rankSummary(), 10000);
  const QString detail =
      failed ? tr("The distributed run ended with status %1: %2\n\nThe log has each rank's "
                  "output.")
                   .arg(exitCode)
                   .arg(s.error.isEmpty() ? launched_->rankSummary() : s.error)
             : QString();
  emit ended(state, detail);
  setState(state);
}

}  // namespace tbench::gui
