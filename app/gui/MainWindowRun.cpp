// MainWindow: starting, watching and stopping a run (the rest is in MainWindow.cpp).
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <cmath>

#include "app/bridge/ProjectViews.h"
#include "app/gui/DeviceStrategyPanel.h"
#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/learned/ConfusionPanel.h"
#include "app/gui/run/LaunchedRun.h"
#include "app/gui/run/RunFollower.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/rundir/RunDirectoryInfo.h"
#include "app/gui/rundir/RunStats.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunCurves.h"
#include "app/gui/runview/RunStatusBar.h"
#include "widgets/ImagePanel.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/Palette.h"
#include "widgets/RunSelector.h"

namespace tbench::gui {

using bridge::RunController;
using bridge::RunState;

bridge::RunController* MainWindow::runs() const { return session_->controller(); }
LaunchedRun* MainWindow::launchedRun() const { return session_->launched(); }
RunFollower* MainWindow::follower() const { return session_->follower(); }
QString MainWindow::liveRunId() const { return session_->runId(); }
bool MainWindow::anyRunActive() const { return session_->isActive(); }

void MainWindow::connectRun() {
  // The session says what the run does, whichever way it runs; the panels show it.
  connect(session_, &RunSession::stateChanged, this, &MainWindow::onStateChanged);
  connect(session_, &RunSession::started, this, &MainWindow::onRunStarted);
  connect(session_, &RunSession::metrics, this, &MainWindow::onMetrics);
  connect(session_, &RunSession::progress, status_, &RunStatusBar::setProgress);
  connect(session_, &RunSession::ended, this, &MainWindow::onRunEnded);
  connect(session_, &RunSession::logLines, log_, &LogView::appendLines);
  connect(session_, &RunSession::note, log_, &LogView::appendNote);
  connect(session_, &RunSession::message, status_, &RunStatusBar::showMessage);
  connect(session_, &RunSession::checkpointSaved, this, [this](const QString& path) {
    status_->showMessage(tr("Saved checkpoint %1").arg(path), 5000);
    history_->refresh();
  });
  connect(session_, &RunSession::imageReceived, this, [this](const bridge::ImageSample& s) {
    images_->addImage(s.name, s.epoch, s.step,
                      ui::imageFromPixels(s.pixels, s.width, s.height, s.channels));
  });
  // The first image of a run (or of a run loaded from the history) brings the Images tab up.
  // What the Learned tab shows (the confusion heat map, the misclassified grid) does not count.
  connect(images_, &ui::ImagePanel::streamAdded, this, [this] {
    QStringList own = images_->streamNames();
    own.removeAll(QStringLiteral("confusion_matrix"));
    own.removeAll(QStringLiteral("misclassified"));
    if (own.size() != 1 || own.first() != images_->streamNames().last()) return;
    auto* dock = findChild<QDockWidget*>("imagesDock");
    dock->show();
    dock->raise();
  });
}

void MainWindow::clearRunView() {
  session_->clear();
  plots_->clear();
  images_->clear();
  curves_->forget();  // overlays and the sweep's trials are drawn again, whole, when next shown
  status_->reset();
  controls_->clearLearningRate();
}

void MainWindow::startRun() {
  if (anyRunActive()) return;
  editor_->validateNow();
  const bridge::ProjectIssueViews typed = editor_->inputProblems();
  if (editor_->hasParseError() || !editor_->isValid() || !typed.isEmpty()) {
    QStringList lines;
    for (const auto& issue : typed) lines << issue.path + ": " + issue.message;
    for (const auto& issue : editor_->issues()) lines << issue.path + ": " + issue.message;
    if (lines.isEmpty()) lines << tr("the JSON text does not parse");
    showMessage(QMessageBox::Warning, tr("Cannot Start"),
                tr("The project has problems; fix them first:\n\n%1").arg(lines.join('\n')));
    return;
  }
  // A strategy of many processes runs one per rank, launched like on a cluster.
  if (editor_->summary().manyProcesses) {
    startLaunchedRun();
    return;
  }
  // The plots show this run, plus the runs checked for overlay in the history.
  clearRunView();
  controls_->beginRun(editor_->summary().startingLearningRate);
  bridge::StartOptions options;
  options.projectText = editor_->document();
  options.projectPath = projectPath_.isEmpty() ? projectName() + " (unsaved)" : projectPath_;
  QString error;
  if (!session_->start(options, &error)) {
    showMessage(QMessageBox::Warning, tr("Cannot Start"), error);
    return;
  }
  log_->appendNote(tr("starting %1").arg(options.projectPath));
  curves_->showOverlays(history_->selectedRuns());
}

void MainWindow::stopRun() { session_->stop(controls_->saveFinalCheckpoint()); }

void MainWindow::askLearningRate() {
  bool ok = false;
  // What is typed, else the rate the engine runs at now, else the project's starting rate.
  double current = controls_->typedLearningRate().value_or(session_->learningRate());
  if (!std::isfinite(current)) current = editor_->summary().startingLearningRate;
  if (!std::isfinite(current)) current = 0;
  const QString text = QInputDialog::getText(
      this, tr("Set Learning Rate"),
      tr("New learning rate (applied at the next step; a schedule sets it again at its next "
         "point):"),
      QLineEdit::Normal, QLocale::c().toString(current, 'g', 6), &ok);
  if (!ok) return;
  double value = 0;
  const QString problem = bridge::RunController::liveValueProblem("learning_rate", text, &value);
  if (!problem.isEmpty()) {
    showMessage(QMessageBox::Warning, tr("Set Learning Rate"), problem);
    return;
  }
  runs()->setLearningRate(value);
}

void MainWindow::onStateChanged(RunState state) {
  const bool active = session_->isActive();
  // Pausing, saving now and the live rate belong to a run in this process; launched ranks are
  // only stopped, a followed run is not the window's.
  const bool live = session_->kind() == RunSession::Kind::InProcess &&
                    (state == RunState::Running || state == RunState::Paused);
  startAction_->setEnabled(!active);
  stopAction_->setEnabled(active && state != RunState::Stopping);
  pauseAction_->setEnabled(live);
  pauseAction_->setChecked(state == RunState::Paused);
  saveNowAction_->setEnabled(live);
  learningRateAction_->setEnabled(live);
  controls_->setRunActive(live);
  status_->setState(state);
  if (!active && closeAfterRun_) {
    closeAfterRun_ = false;
    close();
  }
}

void MainWindow::onRunStarted(const QString& runDir, qint64 stepsPerEpoch, qint64 samplesPerStep) {
  const QString id = session_->runId();
  plots_->setLiveRun(id);
  if (stepsPerEpoch > 0) plots_->setStepsPerEpoch(id, stepsPerEpoch);
  status_->setSamplesPerStep(samplesPerStep);
  // Runs go to <run_root>/<project name>/<run id>: Run History lists the run's siblings.
  const QFileInfo dir(runDir);
  switch (session_->kind()) {
    case RunSession::Kind::InProcess:
      history_->setRunRoot(dir.absolutePath().section('/', 0, -2), projectName());
      history_->setLiveRun(dir.absoluteFilePath());
      confusion_->setRunDirectory(runDir);
      break;
    case RunSession::Kind::Launched:
      history_->setRunRoot(dir.absolutePath().section('/', 0, -2),
                           QFileInfo(dir.absolutePath()).fileName());
      history_->setLiveRun(runDir);
      break;
    case RunSession::Kind::Followed:
    case RunSession::Kind::None:
      break;
  }
}

void MainWindow::onMetrics(const bridge::MetricSamples& samples) {
  ui::MetricPoints points;
  points.reserve(samples.size());
  const QString id = session_->runId();
  for (const auto& s : samples) {
    points.append(ui::MetricPoint{id, s.name, s.step, s.epoch, s.wallTime, s.value});
    if (s.name == QLatin1String("learning_rate")) controls_->showLearningRate(s.value);
  }
  plots_->appendPoints(points);
}

void MainWindow::onRunEnded(RunState state, const QString& detail) {
  plots_->setLiveRun(QString());
  history_->setLiveRun(QString());
  history_->refresh();
  // A followed run's end is in the log and the status bar; a run of this window's that failed
  // also says so in a message.
  if (state == RunState::Failed && session_->kind() != RunSession::Kind::Followed) {
    showMessage(QMessageBox::Critical, tr("Run Failed"), detail);
  }
}

void MainWindow::resumeRun(const QString& runDir) {
  if (anyRunActive()) {
    showMessage(QMessageBox::Warning, tr("Resume"),
                tr("A run is in progress: stop it before resuming another."));
    return;
  }
  const QString projectFile = QDir(runDir).filePath("project.json");
  QFile file(projectFile);
  if (!file.open(QIODevice::ReadOnly)) {
    showMessage(QMessageBox::Warning, tr("Resume"),
                tr("%1 cannot be read (%2): the run cannot be resumed.")
                    .arg(QDir::toNativeSeparators(projectFile), file.errorString()));
    return;
  }
  const QByteArray projectText = file.readAll();
  const bridge::ProjectSummaryView ran = services_.analyze(QString::fromUtf8(projectText));
  if (ran.manyProcesses) {
    // As it ran: its processes, launched again, continue from rank 0's checkpoint.
    launchRun(projectFile, runDir, static_cast<int>(ran.processes), /*resume=*/true);
    return;
  }
  clearRunView();
  controls_->beginRun(std::nan(""));  // the run's own rate arrives with its first step
  curves_->plotSoFar(runDir);         // the live points continue its curves
  QString error;
  bridge::StartOptions options;
  options.projectText = QString::fromUtf8(projectText);
  options.projectPath = projectFile;
  options.runDir = runDir;
  options.resume = true;
  if (!session_->start(options, &error)) {
    showMessage(QMessageBox::Warning, tr("Cannot Resume"), error);
    return;
  }
  log_->appendNote(tr("resuming %1 from its latest checkpoint, with the project it ran with")
                       .arg(QDir::toNativeSeparators(runDir)));
  curves_->showOverlays(history_->selectedRuns());
}

void MainWindow::cloneRun(const QString& runDir) {
  const QString projectFile = QDir(runDir).filePath("project.json");
  QFile file(projectFile);
  if (!file.open(QIODevice::ReadOnly)) {
    showMessage(
        QMessageBox::Warning, tr("Clone"),
        tr("%1 cannot be read: %2").arg(QDir::toNativeSeparators(projectFile), file.errorString()));
    return;
  }
  const QString text = QString::fromUtf8(file.readAll());
  if (!maybeSave()) return;
  // Relative data paths meant the open project's folder: the clone keeps it.
  const QString base = projectPath_.isEmpty() ? QString() : QFileInfo(projectPath_).absolutePath();
  loadDocument(text, QString(), base);
  log_->appendNote(tr("cloned the project of run %1 into a new, untitled project: change it, "
                      "then Start; its runs are listed beside the original's")
                       .arg(history_->runName(runDir)));
  findChild<QDockWidget*>("projectDock")->raise();
}

void MainWindow::styleRuns() {
  QHash<QString, QPair<QString, QColor>> looks;
  for (const auto& run : history_->runs()) {
    looks.insert(run.runId, {history_->runName(run.dir), history_->runColour(run.dir)});
  }
  plots_->setRunAppearances(looks);
}

void MainWindow::onImagesRequested(const QString& runDir) {
  if (session_->isActive()) {
    status_->showMessage(tr("The Images panel shows the active run; stop it to look at another."),
                         6000);
    return;
  }
  const int count = images_->loadRunDirectory(runDir);
  status_->showMessage(tr("%1 images of %2").arg(count).arg(QFileInfo(runDir).fileName()), 5000);
}

void MainWindow::showMessage(QMessageBox::Icon icon, const QString& title, const QString& text) {
  // Window-modal but not blocking: a run keeps reporting while the message is shown.
  auto* box = new QMessageBox(icon, title, text, QMessageBox::Ok, this);
  box->setObjectName("messageBox");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace tbench::gui
