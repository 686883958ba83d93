// MainWindow: runs the window follows through their run directory rather than the engine
// thread: a distributed run it launches as child processes (towerbench-cli launch), and a run
// started elsewhere (File ▸ Follow Run Directory…). The rest is in MainWindow.cpp and
// MainWindowRun.cpp.
#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <cmath>

#include "app/bridge/ProjectServices.h"
#include "app/gui/LogView.h"
#include "app/gui/MainWindow.h"
#include "app/gui/RunControls.h"
#include "app/gui/RunStatusBar.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/run/LaunchedRun.h"
#include "app/gui/run/RunFollower.h"
#include "widgets/LivePlotWidget.h"

namespace tbench::gui {

using bridge::RunState;

bool MainWindow::anyRunActive() const {
  return runs_.isActive() || (launched_ != nullptr && launched_->isActive());
}

void MainWindow::connectFollow() {
  launched_ = new LaunchedRun(this);
  follower_ = new RunFollower(this);
  connect(launched_, &LaunchedRun::logLines, log_, &LogView::appendLines);
  connect(launched_, &LaunchedRun::ranksChanged, this,
          [this] { status_->showMessage(launched_->rankSummary()); });
  connect(launched_, &LaunchedRun::finished, this, &MainWindow::onLaunchFinished);
  connect(follower_, &RunFollower::metricsRead, this, [this](const bridge::MetricSamples& s) {
    onMetrics(s);
    for (const auto& sample : s) followedStep_ = std::max(followedStep_, sample.step);
    updateFollowedProgress();
  });
  connect(follower_, &RunFollower::statusChanged, this, [this] { updateFollowedProgress(); });
  connect(follower_, &RunFollower::problem, log_, &LogView::appendNote);
  connect(follower_, &RunFollower::ended, this, [this](RunState state) {
    if (launchedFollow_) return;  // a launched run ends with its processes (onLaunchFinished)
    const FollowedStatus& s = follower_->status();
    log_->appendNote(tr("the followed run is %1 at step %2%3")
                         .arg(bridge::toString(state))
                         .arg(s.globalStep)
                         .arg(s.error.isEmpty() ? QString() : QStringLiteral(": ") + s.error));
    status_->setState(state);
    status_->showMessage(tr("Followed run %1 (%2)").arg(liveRunId_, bridge::toString(state)));
    follower_->stop();
    plots_->setLiveRun(QString());
  });
}

void MainWindow::updateFollowedProgress() {
  const FollowedStatus& s = follower_->status();
  bridge::RunProgress progress;
  progress.maxEpoch = s.maxEpoch;
  progress.stepsPerEpoch = s.stepsPerEpoch;
  progress.globalStep = std::max(followedStep_, s.globalStep);
  if (s.stepsPerEpoch > 0) {
    const bool done = bridge::hasEnded(s.state);
    progress.epoch = std::min<qint64>(progress.globalStep / s.stepsPerEpoch + (done ? 0 : 1),
                                      std::max<qint64>(s.maxEpoch, 1));
    progress.stepInEpoch = progress.globalStep - (progress.epoch - 1) * s.stepsPerEpoch;
  }
  status_->setProgress(progress);
}

QString MainWindow::newRunDirectory() const {
  return bridge::newRunDirectoryPath(runRootPath(), projectName());  // the engine's run ids
}

void MainWindow::startLaunchedRun() {
  // The processes read the project from its file, as on a cluster.
  if (projectPath_.isEmpty() || editor_->isModified()) {
    const auto answer = ask_(tr("Save the Project"),
                             tr("A distributed run's processes read the project from its file. "
                                "Save \"%1\" and start?")
                                 .arg(projectName()),
                             QMessageBox::Save | QMessageBox::Cancel);
    if (answer != QMessageBox::Save || !save()) return;
  }
  launchRun(projectPath_, newRunDirectory(), static_cast<int>(editor_->summary().processes),
            /*resume=*/false);
}

void MainWindow::launchRun(const QString& projectFile, const QString& runDir, int processes,
                           bool resume) {
  const QString cli = LaunchedRun::defaultCli();
  const QString problem = LaunchedRun::cliProblem(cli);
  if (!problem.isEmpty()) {  // before anything of the last run's view is cleared
    showMessage(QMessageBox::Warning, tr("Cannot Start"), problem);
    return;
  }
  clearRunView();
  controls_->beginRun(resume ? std::nan("") : editor_->summary().startingLearningRate);
  if (resume) plotRunSoFar(runDir);  // rank 0's new points continue its curves
  QString error;
  if (!launched_->start(cli, projectFile, runDir, processes, &error, resume)) {
    showMessage(QMessageBox::Warning, tr("Cannot Start"), error);
    return;
  }
  liveRunDir_ = runDir;
  liveRunId_ = QFileInfo(runDir).fileName();
  followedStep_ = 0;
  launchedFollow_ = true;
  plots_->setLiveRun(liveRunId_);
  follower_->follow(runDir);
  history_->setRunRoot(QFileInfo(runDir).absolutePath().section('/', 0, -2),
                       QFileInfo(QFileInfo(runDir).absolutePath()).fileName());
  history_->setLiveRun(runDir);
  setLaunchedUi(true);
  log_->appendNote(tr("%1 %2 processes (distributed): rank 0's metrics are plotted as it "
                      "writes them to %3")
                       .arg(resume ? tr("resuming with") : tr("launching"))
                       .arg(processes)
                       .arg(QDir::toNativeSeparators(runDir)));
  onOverlayChanged(history_->selectedRuns());
}

void MainWindow::setLaunchedUi(bool active) {
  startAction_->setEnabled(!active);
  stopAction_->setEnabled(active);
  // One process per rank: pausing, saving now and the live rate belong to in-window runs.
  for (QAction* a : {pauseAction_, saveNowAction_, learningRateAction_}) a->setEnabled(false);
  controls_->setRunActive(false);
  if (active) status_->setState(RunState::Running);
}

void MainWindow::onLaunchFinished(int exitCode) {
  follower_->poll();  // the last lines and the final run.json
  follower_->stop();
  const FollowedStatus& s = follower_->status();
  // A rank stopped by a signal exits 130 (the CLI's convention): after Stop, that is no failure.
  const bool stopped =
      s.state == RunState::Stopped || (launched_->stopping() && (exitCode == 0 || exitCode == 130));
  const bool failed = exitCode != 0 && !stopped;
  setLaunchedUi(false);
  status_->setState(failed ? RunState::Failed : stopped ? RunState::Stopped : RunState::Finished);
  log_->appendNote(
      tr("launch ended with status %1 (%2)").arg(exitCode).arg(launched_->rankSummary()));
  status_->showMessage(launched_->rankSummary(), 10000);
  plots_->setLiveRun(QString());
  history_->setLiveRun(QString());
  history_->refresh();
  if (failed) {
    showMessage(QMessageBox::Critical, tr("Run Failed"),
                tr("The distributed run ended with status %1: %2\n\nThe log has each rank's "
                   "output.")
                    .arg(exitCode)
                    .arg(s.error.isEmpty() ? launched_->rankSummary() : s.error));
  }
  if (closeAfterRun_) {
    closeAfterRun_ = false;
    close();
  }
}

void MainWindow::followRunDirectory(const QString& chosen) {
  if (anyRunActive()) {
    showMessage(QMessageBox::Warning, tr("Follow Run Directory"),
                tr("A run is active: stop it before following another."));
    return;
  }
  const QString dir = !chosen.isEmpty() ? chosen
                                        : QFileDialog::getExistingDirectory(
                                              this, tr("Follow Run Directory"), runRootPath());
  if (dir.isEmpty()) return;
  const QDir runDir(dir);
  if (!runDir.exists("run.json") && !runDir.exists("stats.json") &&
      !runDir.exists("scalars.jsonl")) {
    showMessage(QMessageBox::Warning, tr("Follow Run Directory"),
                tr("%1 is not a run directory: it has no run.json, stats.json or scalars.jsonl.")
                    .arg(QDir::toNativeSeparators(dir)));
    return;
  }
  clearRunView();
  liveRunDir_ = runDir.absolutePath();
  liveRunId_ = QFileInfo(liveRunDir_).fileName();
  followedStep_ = 0;
  launchedFollow_ = false;
  plots_->setLiveRun(liveRunId_);
  status_->setState(RunState::Running);
  follower_->follow(liveRunDir_);
  log_->appendNote(tr("following %1: the charts grow with its scalars.jsonl (or stats.json) "
                      "and the status bar with its run.json")
                       .arg(QDir::toNativeSeparators(liveRunDir_)));
}

}  // namespace tbench::gui
