#include "app/gui/runview/RunView.h"

#include "app/bridge/BridgeTypes.h"

#include <QAction>
#include <QFileInfo>
#include <QInputDialog>
#include <QLocale>
#include <cmath>

#include "app/bridge/RunController.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/learned/ConfusionPanel.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunCurves.h"
#include "app/gui/runview/RunStatusBar.h"
#include "widgets/ImagePanel.h"
#include "widgets/LivePlotWidget.h"

namespace tbench::gui {

using bridge::RunState;

RunView::RunView(RunSession* session, const RunActions& actions, QWidget* window)
    : QObject(window), session_(session), actions_(actions), window_(window) {
  plots_ = new ui::LivePlotWidget(window);
  plots_->setObjectName("livePlots");
  plots_->setEmptyText(
      tr("No curves yet.\n\nRun ▸ Start (F5) trains the project and plots every "
         "scalar here as it arrives;\ncheck runs in Run History to overlay "
         "the curves of earlier runs."));
  curves_ = new RunCurves(
      plots_, [this] { return session_->runId(); }, this);
  images_ = new ui::ImagePanel(window);
  images_->setObjectName("imagePanel");
  log_ = new LogView(window);
  connect(curves_, &RunCurves::note, log_, &LogView::appendNote);
  controls_ = new RunControls(actions.start, actions.stop, actions.pause, actions.saveNow, window);
  connect(controls_, &RunControls::learningRateRequested, session_->controller(),
          &bridge::RunController::setLearningRate);
  status_ = new RunStatusBar(window);

  // The session says what the run does, whichever way it runs; the panels show it.
  connect(session_, &RunSession::stateChanged, this, &RunView::onStateChanged);
  connect(session_, &RunSession::started, this, &RunView::onStarted);
  connect(session_, &RunSession::metrics, this, &RunView::onMetrics);
  connect(session_, &RunSession::progress, status_, &RunStatusBar::setProgress);
  connect(session_, &RunSession::ended, this, &RunView::onEnded);
  connect(session_, &RunSession::logLines, log_, &LogView::appendLines);
  connect(session_, &RunSession::note, log_, &LogView::appendNote);
  connect(session_, &RunSession::message, status_, &RunStatusBar::showMessage);
  connect(session_, &RunSession::checkpointSaved, this, [this](const QString& path) {
    status_->showMessage(tr("Saved checkpoint %1").arg(path), 5000);
    if (history_ != nullptr) history_->refresh();
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
    if (own.size() == 1 && own.first() == images_->streamNames().last()) emit firstImage();
  });
  onStateChanged(session_->state());
}

void RunView::setHistory(RunHistoryPanel* history, ConfusionPanel* confusion) {
  history_ = history;
  confusion_ = confusion;
  connect(history_, &RunHistoryPanel::overlayChanged, curves_, &RunCurves::showOverlays);
  connect(history_, &RunHistoryPanel::runAppearanceChanged, this, &RunView::styleRuns);
  connect(history_, &RunHistoryPanel::imagesRequested, this, &RunView::showImagesOf);
}

void RunView::clear() {
  session_->clear();
  plots_->clear();
  images_->clear();
  curves_->forget();  // overlays and the sweep's trials are drawn again, whole, when next shown
  status_->reset();
  controls_->clearLearningRate();
}

void RunView::beginRun(double learningRate, const QString& resumedRunDir) {
  clear();
  controls_->beginRun(learningRate);
  if (!resumedRunDir.isEmpty()) curves_->plotSoFar(resumedRunDir);
}

void RunView::showOverlays() {
  if (history_ != nullptr) curves_->showOverlays(history_->selectedRuns());
}

void RunView::styleRuns() {
  QHash<QString, QPair<QString, QColor>> looks;
  for (const auto& run : history_->runs()) {
    looks.insert(run.runId, {history_->runName(run.dir), history_->runColour(run.dir)});
  }
  plots_->setRunAppearances(looks);
}

void RunView::showImagesOf(const QString& runDir) {
  if (session_->isActive()) {
    status_->showMessage(tr("The Images panel shows the active run; stop it to look at another."),
                         6000);
    return;
  }
  const int count = images_->loadRunDirectory(runDir);
  status_->showMessage(tr("%1 images of %2").arg(count).arg(QFileInfo(runDir).fileName()), 5000);
}

void RunView::askLearningRate(double projectRate) {
  bool ok = false;
  // What is typed, else the rate the engine runs at now, else the project's starting rate.
  double current = controls_->typedLearningRate().value_or(session_->learningRate());
  if (!std::isfinite(current)) current = projectRate;
  if (!std::isfinite(current)) current = 0;
  const QString text = QInputDialog::getText(
      window_, tr("Set Learning Rate"),
      tr("New learning rate (applied at the next step; a schedule sets it again at its next "
         "point):"),
      QLineEdit::Normal, QLocale::c().toString(current, 'g', 6), &ok);
  if (!ok) return;
  double value = 0;
  const QString problem =
      bridge::RunController::liveValueProblem(bridge::kLearningRate, text, &value);
  if (!problem.isEmpty()) {
    emit this->problem(tr("Set Learning Rate"), problem);
    return;
  }
  session_->controller()->setLearningRate(value);
}

void RunView::onStateChanged(RunState state) {
  const bool active = session_->isActive();
  // Pausing, saving now and the live rate belong to a run in this process; launched ranks are
  // only stopped, a followed run is not the window's.
  const bool live = session_->kind() == RunSession::Kind::InProcess &&
                    (state == RunState::Running || state == RunState::Paused);
  actions_.start->setEnabled(!active);
  actions_.stop->setEnabled(active && state != RunState::Stopping);
  actions_.pause->setEnabled(live);
  actions_.pause->setChecked(state == RunState::Paused);
  actions_.saveNow->setEnabled(live);
  actions_.learningRate->setEnabled(live);
  controls_->setRunActive(live);
  status_->setState(state);
}

void RunView::onStarted(const QString& runDir, qint64 stepsPerEpoch, qint64 samplesPerStep) {
  const QString id = session_->runId();
  plots_->setLiveRun(id);
  if (stepsPerEpoch > 0) plots_->setStepsPerEpoch(id, stepsPerEpoch);
  status_->setSamplesPerStep(samplesPerStep);
  if (history_ == nullptr) return;
  // Runs go to <run_root>/<project name>/<run id>: Run History lists the run's siblings.
  const QFileInfo dir(runDir);
  const QString runRoot = dir.absolutePath().section('/', 0, -2);
  const QString projectDir = QFileInfo(dir.absolutePath()).fileName();
  switch (session_->kind()) {
    case RunSession::Kind::InProcess:
      history_->setRunRoot(runRoot, projectDir);
      history_->setLiveRun(dir.absoluteFilePath());
      if (confusion_ != nullptr) confusion_->setRunDirectory(runDir);
      break;
    case RunSession::Kind::Launched:
      history_->setRunRoot(runRoot, projectDir);
      history_->setLiveRun(runDir);
      break;
    case RunSession::Kind::Followed:
    case RunSession::Kind::None:
      break;
  }
}

void RunView::onMetrics(const bridge::MetricSamples& samples) {
  ui::MetricPoints points;
  points.reserve(samples.size());
  const QString id = session_->runId();
  for (const auto& s : samples) {
    points.append(ui::MetricPoint{id, s.name, s.step, s.epoch, s.wallTime, s.value});
    if (s.name == QLatin1String(bridge::kLearningRate)) controls_->showLearningRate(s.value);
  }
  plots_->appendPoints(points);
}

void RunView::onEnded(RunState state, const QString& detail) {
  plots_->setLiveRun(QString());
  if (history_ != nullptr) {
    history_->setLiveRun(QString());
    history_->refresh();
  }
  // A followed run's end is in the log and the status bar; a run of this window's that failed
  // also says so in a message.
  if (state == RunState::Failed && session_->kind() != RunSession::Kind::Followed) {
    emit failed(detail);
  }
}

}  // namespace tbench::gui
