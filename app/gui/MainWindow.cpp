#include "app/gui/MainWindow.h"

#include <qcustomplot.h>
#include <QAction>

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDirIterator>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenuBar>
#include <QSaveFile>
#include <QScreen>
#include <QSettings>
#include <QToolBar>
#include "app/gui/DataPreviewDialog.h"

#include "app/bridge/Plugins.h"
#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/TryIt.h"
#include "app/gui/DeviceStrategyPanel.h"
#include "app/gui/PluginsDialog.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/ExportCheckpointDialog.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/learned/ConfusionPanel.h"
#include "app/gui/learned/TryItDialog.h"
#include "app/gui/model/LrFinderDialog.h"
#include "app/gui/model/ModelPanel.h"
#include "app/gui/run/LaunchedRun.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/rundir/RunCheckpoints.h"
#include "app/gui/rundir/RunDirectoryInfo.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunCurves.h"
#include "app/gui/runview/RunStatusBar.h"
#include "app/gui/sweep/NewSweepDialog.h"
#include "app/gui/sweep/SweepPanel.h"
#include "widgets/ImagePanel.h"
#include "widgets/LivePlotWidget.h"

// resources/towerbench.qrc is compiled into the static tb_gui: registered explicitly, since
// nothing else would keep its initialiser in the executable. Outside any namespace, as
// Q_INIT_RESOURCE requires.
static void initTowerbenchResources() {
  static const bool done = [] {
    Q_INIT_RESOURCE(towerbench);
    return true;
  }();
  (void)done;
}

namespace tbench::gui {
namespace {

constexpr int kMaxRecent = 8;

QDockWidget* dock(const QString& title, const QString& name, QWidget* content, QWidget* parent) {
  auto* d = new QDockWidget(title, parent);
  d->setObjectName(name);
  d->setWidget(content);
  return d;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), services_(bridge::makeProjectServices()) {
  setObjectName("mainWindow");
  setWindowIcon(applicationIcon());  // also the About box's
  ask_ = [this](const QString& title, const QString& text, QMessageBox::StandardButtons buttons) {
    return QMessageBox::question(this, title, text, buttons);
  };
  session_ = new RunSession(this);
  createActions();
  createPanels();
  connect(editor_, &ProjectEditor::analyzed, this, &MainWindow::projectAnalyzed);
  createMenus();
  connectRun();
  readSettings();
  logPlugins();
  onStateChanged(bridge::RunState::Idle);
  updateTitle();
}

MainWindow::~MainWindow() = default;

QIcon MainWindow::applicationIcon() {
  initTowerbenchResources();
  QIcon icon;
  for (int size : {16, 24, 32, 48, 64, 128, 256}) {
    icon.addFile(QStringLiteral(":/icons/towerbench-%1.png").arg(size), QSize(size, size));
  }
  return icon;
}

QStringList MainWindow::templates() {
  initTowerbenchResources();
  QStringList out;
  QDirIterator it(":/templates", {"*.json"}, QDir::Files);
  while (it.hasNext()) out << it.next();
  out.sort();
  return out;
}

void MainWindow::createPanels() {
  plots_ = new ui::LivePlotWidget(this);
  plots_->setObjectName("livePlots");
  plots_->setEmptyText(
      tr("No curves yet.\n\nRun ▸ Start (F5) trains the project and plots every "
         "scalar here as it arrives;\ncheck runs in Run History to overlay "
         "the curves of earlier runs."));
  setCentralWidget(plots_);
  curves_ = new RunCurves(
      plots_, [this] { return session_->runId(); }, this);
  connect(curves_, &RunCurves::note, this, [this](const QString& text) { log_->appendNote(text); });
  // The left docks take the whole height; the bottom docks sit under the plots only.
  setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);

  editor_ = new ProjectEditor(services_, this);
  connect(editor_, &ProjectEditor::documentChanged, this, &MainWindow::documentChanged);
  connect(editor_, &ProjectEditor::modifiedChanged, this, &MainWindow::updateTitle);
  addDockWidget(Qt::LeftDockWidgetArea, dock(tr("Project"), "projectDock", editor_, this));

  QString note;
  const bridge::DeviceEntries devices = bridge::discoverDevices(&note);
  const bridge::ComponentKindView* strategies = services_.catalog.kind("strategy");
  devices_ = new DeviceStrategyPanel(
      devices, note, strategies != nullptr ? *strategies : bridge::ComponentKindView(), this);
  connect(devices_, &DeviceStrategyPanel::trainerChanged, this,
          [this](const QJsonObject& trainer) { editor_->setTrainerSection(trainer); });
  auto* devicesDock = dock(tr("Devices and Strategy"), "devicesDock", devices_, this);
  addDockWidget(Qt::LeftDockWidgetArea, devicesDock);
  tabifyDockWidget(findChild<QDockWidget*>("projectDock"), devicesDock);
  findChild<QDockWidget*>("projectDock")->raise();

  log_ = new LogView(this);
  addDockWidget(Qt::BottomDockWidgetArea, dock(tr("Log"), "logDock", log_, this));
  installRunDirectoryReaders(bridge::runDirectoryReaders());  // the engine reads the run directory
  history_ = new RunHistoryPanel(this);
  connect(history_, &RunHistoryPanel::overlayChanged, curves_, &RunCurves::showOverlays);
  connect(history_, &RunHistoryPanel::exportRequested, this,
          [this](const QString& runDir) { exportCheckpoint(runDir); });
  connect(history_, &RunHistoryPanel::resumeRequested, this, &MainWindow::resumeRun);
  connect(history_, &RunHistoryPanel::cloneRequested, this, &MainWindow::cloneRun);
  connect(history_, &RunHistoryPanel::runAppearanceChanged, this, &MainWindow::styleRuns);
  auto* historyDock = dock(tr("Run History"), "historyDock", history_, this);
  addDockWidget(Qt::BottomDockWidgetArea, historyDock);
  tabifyDockWidget(findChild<QDockWidget*>("logDock"), historyDock);
  // Sweeps: a sweep's trials, run by towerbench-cli sweep, beside Run History.
  sweeps_ = new SweepPanel(bridge::readSweepStateView, bridge::setSweepPaused, this);
  connect(sweeps_, &SweepPanel::logLines, log_, &LogView::appendLines);
  sweeps_->setTrialRequests(bridge::runSweepTrialNext, bridge::cancelSweepTrial);
  connect(sweeps_, &SweepPanel::openTrialAsProject, this, &MainWindow::cloneRun);
  connect(sweeps_, &SweepPanel::sweepProgress, this, [this](const QString& text, int percent) {
    if (status_ != nullptr) status_->setSweep(text, percent);
  });
  connect(sweeps_, &SweepPanel::continueSweep, this,
          [this](const QString& file, const QString& dir) { runSweepFile(file, dir); });
  connect(sweeps_, &SweepPanel::trialCurves, curves_, &RunCurves::showTrials);
  connect(sweeps_, &SweepPanel::finished, this, [this](int code) {
    log_->appendNote(tr("sweep ended with status %1: %2").arg(code).arg(sweeps_->sweepDir()));
    history_->refresh();
  });
  auto* sweepDock = dock(tr("Sweeps"), "sweepDock", sweeps_, this);
  addDockWidget(Qt::BottomDockWidgetArea, sweepDock);
  tabifyDockWidget(historyDock, sweepDock);
  findChild<QDockWidget*>("logDock")->raise();

  // The images a run puts: a tab beside the project, raised when a run's first image arrives
  // (the plots keep the middle; at 1280x800 a dock of its own would squeeze them).
  images_ = new ui::ImagePanel(this);
  images_->setObjectName("imagePanel");
  auto* imagesDock = dock(tr("Images"), "imagesDock", images_, this);
  addDockWidget(Qt::LeftDockWidgetArea, imagesDock);
  tabifyDockWidget(devicesDock, imagesDock);
  findChild<QDockWidget*>("projectDock")->raise();
  connect(history_, &RunHistoryPanel::imagesRequested, this, &MainWindow::onImagesRequested);

  // What the model learned: a tab beside the images (issue 14, item 5).
  confusion_ = new ConfusionPanel(this);
  confusion_->setObjectName("confusionPanel");
  auto* learnedDock = dock(tr("Learned"), "learnedDock", confusion_, this);
  addDockWidget(Qt::LeftDockWidgetArea, learnedDock);
  tabifyDockWidget(imagesDock, learnedDock);
  findChild<QDockWidget*>("projectDock")->raise();
  connect(history_, &RunHistoryPanel::confusionRequested, this, [this](const QString& runDir) {
    confusion_->setRunDirectory(runDir);
    findChild<QDockWidget*>("learnedDock")->raise();
  });
  // The model's parameters (issue 37): a tab beside Learned, filled when first shown.
  model_ = new ModelPanel(this);
  model_->setObjectName("modelPanel");
  auto* modelDock = dock(tr("Model"), "modelDock", model_, this);
  addDockWidget(Qt::LeftDockWidgetArea, modelDock);
  tabifyDockWidget(learnedDock, modelDock);
  findChild<QDockWidget*>("projectDock")->raise();
  connect(history_, &RunHistoryPanel::tryItRequested, this,
          [this](const QString& runDir) { tryIt(runDir); });
  connect(confusion_, &ConfusionPanel::tryItRequested, this,
          [this](const QString& runDir, qint64 index) {
            auto* dialog = static_cast<TryItDialog*>(tryIt(runDir));
            dialog->setDatasetSample("validation", index);
            dialog->classify();
          });

  controls_ = new RunControls(startAction_, stopAction_, pauseAction_, saveNowAction_, this);
  connect(controls_, &RunControls::learningRateRequested, runs(),
          &bridge::RunController::setLearningRate);
  auto* bar = new QToolBar(tr("Run Controls"), this);
  bar->setObjectName("runToolBar");
  bar->addWidget(controls_);
  addToolBar(Qt::TopToolBarArea, bar);

  status_ = new RunStatusBar(this);
  setStatusBar(status_);
}

bool MainWindow::openProject(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    showMessage(QMessageBox::Warning, tr("Open Project"),
                tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    return false;
  }
  loadDocument(QString::fromUtf8(file.readAll()), QFileInfo(path).absoluteFilePath());
  addRecent(projectPath_);
  return true;
}

bool MainWindow::newFromTemplate(const QString& resource) {
  if (!maybeSave()) return false;
  QFile file(resource);
  if (!file.open(QIODevice::ReadOnly)) return false;
  loadDocument(QString::fromUtf8(file.readAll()), QString());
  return true;
}

void MainWindow::loadDocument(const QString& text, const QString& path, const QString& pathBase) {
  projectPath_ = path;
  // Relative paths are the project file's (an untitled project's: the current directory's,
  // unless it was cloned from a run of a saved project).
  editor_->setPathBase(!pathBase.isEmpty() ? pathBase
                       : path.isEmpty()    ? QString()
                                           : QFileInfo(path).absolutePath());
  // Another project: nothing of the last one's run stays on the plots, images or status bar
  // (a run still going keeps its own until it ends).
  if (!anyRunActive()) clearRunView();
  QString problems;
  if (!editor_->setDocument(text, &problems)) {
    log_->appendNote(tr("%1 has problems (shown in the editor):\n%2")
                         .arg(path.isEmpty() ? tr("the template") : path, problems));
  }
  updateTitle();
}

void MainWindow::open() {
  if (!maybeSave()) return;
  const QString start =
      projectPath_.isEmpty() ? QDir::currentPath() : QFileInfo(projectPath_).path();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), start,
                                                    tr("Towerbench projects (*.json)"));
  if (!path.isEmpty()) openProject(path);
}

bool MainWindow::save() {
  if (projectPath_.isEmpty()) return saveAs();
  return saveProjectAs(projectPath_);
}

bool MainWindow::saveAs() {
  const QString start =
      projectPath_.isEmpty() ? QDir::current().filePath(projectName() + ".json") : projectPath_;
  const QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"), start,
                                                    tr("Towerbench projects (*.json)"));
  return !path.isEmpty() && saveProjectAs(path);
}

bool MainWindow::saveProjectAs(const QString& path) {
  QSaveFile file(path);
  const QByteArray bytes = editor_->document().toUtf8();
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    showMessage(QMessageBox::Warning, tr("Save Project"),
                tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    return false;
  }
  projectPath_ = QFileInfo(path).absoluteFilePath();
  editor_->setPathBase(QFileInfo(projectPath_).absolutePath());
  editor_->setUnmodified();
  addRecent(projectPath_);
  updateTitle();
  status_->showMessage(tr("Saved %1").arg(projectPath_), 4000);
  return true;
}

bool MainWindow::maybeSave() {
  if (!editor_->isModified()) return true;
  const auto answer =
      ask_(tr("Unsaved Changes"),
           tr("The project \"%1\" has unsaved changes. Save them?").arg(projectName()),
           QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  rebuildRecentMenu();
  QSettings().setValue("recentProjects", recent_);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  for (const QString& path : recent_) {
    QAction* a = recentMenu_->addAction(QDir::toNativeSeparators(path));
    connect(a, &QAction::triggered, this, [this, path] {
      if (maybeSave()) openProject(path);
    });
  }
  recentMenu_->setEnabled(!recent_.isEmpty());
}

void MainWindow::updateTitle() {
  const QString where =
      projectPath_.isEmpty() ? tr("untitled") : QFileInfo(projectPath_).fileName();
  setWindowTitle(QString("%1 — %2[*] — Towerbench").arg(projectName(), where));
  setWindowModified(editor_ && editor_->isModified());
  if (model_) model_->setProject(projectPath_, editor_ && editor_->isModified());
}

QString MainWindow::projectName() const {
  return editor_ ? editor_->summary().name : QString("untitled");
}

QString MainWindow::runRootPath() const {
  return QDir::current().absoluteFilePath(editor_->summary().runRoot);
}

void MainWindow::documentChanged() { updateTitle(); }

void MainWindow::projectAnalyzed() {
  // The engine's analysis of the edited document (one per edit): the devices panel shows its
  // samples per step, Run History lists the runs under its run_root.
  const bridge::ProjectSummaryView& summary = editor_->summary();
  const QJsonObject trainer = editor_->trainerSection();
  if (trainer != devices_->trainer()) devices_->setTrainer(trainer);
  devices_->setSummary(summary);
  if (history_->runRoot() != runRootPath() || history_->projectName() != projectName()) {
    history_->setRunRoot(runRootPath(), projectName());
  }
}

void MainWindow::raiseDock(const char* name) {
  if (auto* d = findChild<QDockWidget*>(name)) {
    d->show();
    d->raise();
    // A table and a chart side by side need more than the log's height.
    if (QLatin1String(name) == QLatin1String("sweepDock")) {
      resizeDocks({d}, {int(height() * 0.45)}, Qt::Vertical);
    }
  }
}

QDialog* MainWindow::findLearningRate() {
  if (projectPath_.isEmpty() || editor_->isModified()) {
    showMessage(QMessageBox::Information, tr("Find Learning Rate"),
                tr("The range test runs the project's file: save the project first (File ▸ "
                   "Save)."));
    return nullptr;
  }
  auto* dialog = new LrFinderDialog(projectPath_, QString(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &LrFinderDialog::rateChosen, this, [this](double rate) {
    editor_->applyEdits({{"optimizer.learning_rate", rate}});
  });
  dialog->show();
  return dialog;
}

QDialog* MainWindow::newSweep() {
  if (projectPath_.isEmpty() || editor_->isModified()) {
    showMessage(QMessageBox::Information, tr("New Sweep"),
                tr("A sweep's trials run the project's file: save the project first (File ▸ "
                   "Save)."));
    return nullptr;
  }
  const EpochTime epochTime = newestEpochTime(runRootPath(), editor_->summary().name);
  // The keys a sweep may vary are the registry's, not only the file's (issue 35): the document
  // with every default written out, so that a key left at its default can be swept.
  QJsonObject keys = editor_->object();
  if (services_.canonicalize) {
    QString why;
    const QString canonical =
        services_.canonicalize(QString::fromUtf8(QJsonDocument(keys).toJson()), &why);
    const QJsonDocument doc = QJsonDocument::fromJson(canonical.toUtf8());
    if (doc.isObject()) keys = doc.object();
  }
  auto* dialog = new NewSweepDialog(keys, projectPath_, bridge::checkSweep, epochTime.seconds,
                                    epochTime.runId, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &NewSweepDialog::runRequested, this,
          [this](const QString& sweepFile) { runSweepFile(sweepFile); });
  dialog->open();
  return dialog;
}

bool MainWindow::runSweepFile(const QString& sweepFile, const QString& sweepDir) {
  QString error;
  if (sweeps_->runSweep(sweepFile, sweepDir, &error)) {
    raiseDock("sweepDock");
    return true;
  }
  showMessage(QMessageBox::Warning, tr("Run Sweep"), error);
  return false;
}

void MainWindow::previewData() {
  // One preview window, refreshed from the editor's document each time it is asked for.
  auto* dialog = findChild<DataPreviewDialog*>("dataPreviewDialog");
  if (dialog == nullptr) {
    dialog = new DataPreviewDialog(&bridge::previewData, this);
    dialog->setObjectName("dataPreviewDialog");
    dialog->setSource([this] { return std::make_pair(editor_->document(), projectPath_); });
  }
  dialog->show();
  dialog->raise();
  dialog->refresh();
}

void MainWindow::showPlugins() {
  auto* dialog = findChild<PluginsDialog*>("pluginsDialog");
  if (dialog == nullptr) {
    dialog = new PluginsDialog(this);
    dialog->setObjectName("pluginsDialog");
    connect(dialog, &PluginsDialog::pluginsChanged, log_, &LogView::appendNote);
  }
  dialog->refresh();
  dialog->show();
  dialog->raise();
}

void MainWindow::logPlugins() {
  const bridge::PluginStatus status = bridge::pluginStatus();
  for (const bridge::PluginView& plugin : status.loaded) {
    log_->appendNote(tr("plugin %1: %2").arg(plugin.path, plugin.types.join(", ")));
  }
  for (const bridge::PluginFailureView& failure : status.failures) {
    log_->appendNote(tr("%1 (Tools ▸ Plugins…)").arg(failure.message));
  }
}

void MainWindow::exportCheckpoint(const QString& preselectedRun) {
  history_->refresh();
  QStringList runs;
  for (const auto& info : history_->runs()) runs << info.dir;
  QString selected = preselectedRun;
  if (selected.isEmpty()) selected = session_->runDir();
  auto* dialog = new ExportCheckpointDialog(bridge::makeCheckpointExporter(), this);
  dialog->setObjectName("exportCheckpointDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setRuns(runs, selected);
  connect(dialog, &ExportCheckpointDialog::exported, this, [this](const QString& path) {
    log_->appendNote(tr("exported %1").arg(path));
    QSettings().setValue("exportDirectory", QFileInfo(path).path());
  });
  dialog->open();
}

QDialog* MainWindow::tryIt(const QString& runDir) {
  QString dir = runDir.isEmpty() ? session_->runDir() : runDir;
  if (dir.isEmpty() && !history_->runs().isEmpty()) dir = history_->runs().first().dir;
  const QString checkpoint = dir.isEmpty() ? QString() : readRunCheckpoints(dir).latest.path;
  auto* dialog = new TryItDialog(bridge::tryIt, checkpoint, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
  return dialog;
}

void MainWindow::about() {
  QMessageBox::about(
      this, tr("About Towerbench"),
      tr("<h3>Towerbench %1</h3><p>A desktop training workbench: tensorpack's trainer design "
         "on LibTorch.</p><p>Qt %2 (built with %3)<br>%4<br>QCustomPlot %5</p>")
          .arg(QApplication::applicationVersion(), qVersion(), QT_VERSION_STR,
               bridge::engineVersionText(), QCUSTOMPLOT_VERSION_STR));
}

void MainWindow::readSettings() {
  QSettings settings;
  recent_ = settings.value("recentProjects").toStringList();
  rebuildRecentMenu();
  const QString exportDir = settings.value("exportDirectory").toString();
  if (!exportDir.isEmpty()) ExportCheckpointDialog::setLastDirectory(exportDir);
  if (!restoreGeometry(settings.value("geometry").toByteArray())) {
    // First start: 1440x900, or maximised when the usable screen is not larger than that with
    // room for the window manager's frame (a 1280x800 laptop: a client area of the screen's
    // size put the frame's bottom, the status bar, off the screen under openbox).
    const QSize preferred(1440, 900);
    const QSize frameAllowance(16, 64);
    const QSize available =
        screen() != nullptr ? screen()->availableGeometry().size() : preferred + frameAllowance;
    resize(preferred.boundedTo(available));
    if (available.width() < preferred.width() + frameAllowance.width() ||
        available.height() < preferred.height() + frameAllowance.height()) {
      setWindowState(windowState() | Qt::WindowMaximized);
    }
  }
  if (!restoreState(settings.value("windowState").toByteArray())) {
    // First start: the editor wide enough for its form, the log a strip under the plots.
    resizeDocks({findChild<QDockWidget*>("projectDock")}, {560}, Qt::Horizontal);
    resizeDocks({findChild<QDockWidget*>("logDock")}, {170}, Qt::Vertical);
  }
}

void MainWindow::writeSettings() {
  QSettings settings;
  settings.setValue("geometry", saveGeometry());
  settings.setValue("windowState", saveState());
  settings.setValue("recentProjects", recent_);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (anyRunActive()) {
    const auto answer = ask_(tr("A Run Is Active"),
                             tr("A run is active. Stop it (at the next step, saving its state) "
                                "and close the window?"),
                             QMessageBox::Yes | QMessageBox::Cancel);
    if (answer == QMessageBox::Yes) {
      closeAfterRun_ = true;
      stopRun();
      status_->showMessage(tr("Stopping the run; the window closes when it has ended…"));
    }
    event->ignore();
    return;
  }
  if (sweeps_ != nullptr && sweeps_->isRunning()) {
    // Issue 35: closing the window had killed the sweep's queue, leaving a trial recorded
    // running and the pending ones never started.
    const auto answer =
        ask_(tr("A Sweep Is Running"),
             tr("A sweep is running. Keep it running after the window closes? Its trials go on "
                "and File ▸ Open Sweep… shows it again.\n\nYes: keep it running. No: stop it "
                "(its trials stop at their next step and keep their checkpoints; running the "
                "sweep again continues it)."),
             QMessageBox::Yes | QMessageBox::No | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel) {
      event->ignore();
      return;
    }
    if (answer == QMessageBox::Yes) sweeps_->keepRunningAfterClose();
    if (answer == QMessageBox::No) {
      status_->showMessage(tr("Stopping the sweep…"));
      sweeps_->stopAndWait(30000);
    }
  }
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  writeSettings();
  event->accept();
}

}  // namespace tbench::gui
