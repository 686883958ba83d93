#include "app/gui/MainWindow.h"

#include <QAction>

#include <QCloseEvent>
#include <QDir>
#include <QDirIterator>
#include <QDockWidget>
#include <QFileInfo>
#include <QJsonObject>
#include <QScreen>
#include <QSettings>
#include <QToolBar>
#include <tuple>
#include "app/gui/project/DataPreviewDialog.h"

#include "app/bridge/EngineServices.h"
#include "app/bridge/Plugins.h"
#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryServices.h"
#include "app/bridge/SweepServices.h"
#include "app/bridge/TryIt.h"
#include "app/gui/PluginsDialog.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/ExportCheckpointDialog.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/learned/ConfusionPanel.h"
#include "app/gui/learned/TryItDialog.h"
#include "app/gui/model/LrFinderDialog.h"
#include "app/gui/model/ModelPanel.h"
#include "app/gui/project/DeviceStrategyPanel.h"
#include "app/gui/project/ProjectDocument.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/rundir/RunCheckpoints.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunCommands.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunCurves.h"
#include "app/gui/runview/RunStatusBar.h"
#include "app/gui/runview/RunView.h"
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
  createPanels(createRunActions());
  createMenus();
  readSettings();
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

void MainWindow::createPanels(const RunActions& runActions) {
  // The live run: plots in the middle, run controls on top, the status bar, the log below.
  view_ = new RunView(session_, runActions, this);
  connect(view_, &RunView::failed, this, [this](const QString& detail) {
    showMessage(QMessageBox::Critical, tr("Run Failed"), detail);
  });
  connect(view_, &RunView::problem, this, [this](const QString& title, const QString& text) {
    showMessage(QMessageBox::Warning, title, text);
  });
  connect(view_, &RunView::firstImage, this, [this] { raiseDock("imagesDock"); });
  connect(session_, &RunSession::stateChanged, this, [this] {
    if (!session_->isActive() && closeAfterRun_) {
      closeAfterRun_ = false;
      close();
    }
  });
  setCentralWidget(view_->plots());
  auto* bar = new QToolBar(tr("Run Controls"), this);
  bar->setObjectName("runToolBar");
  bar->addWidget(view_->controls());
  addToolBar(Qt::TopToolBarArea, bar);
  setStatusBar(view_->statusBar());
  // The left docks take the whole height; the bottom docks sit under the plots only.
  setCorner(Qt::TopLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);

  // The project: its editor, its file, the devices and strategy it runs on.
  editor_ = new ProjectEditor(services_, this);
  files_ = new ProjectDocument(editor_, this, &ask_);
  connect(editor_, &ProjectEditor::documentChanged, this, &MainWindow::updateTitle);
  connect(editor_, &ProjectEditor::modifiedChanged, this, &MainWindow::updateTitle);
  connect(files_, &ProjectDocument::titleChanged, this, &MainWindow::updateTitle);
  connect(files_, &ProjectDocument::problem, this, &MainWindow::showMessage);
  connect(files_, &ProjectDocument::note, view_->log(), &LogView::appendNote);
  connect(files_, &ProjectDocument::saved, this, [this](const QString& path) {
    view_->statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
  });
  // Another project: nothing of the last one's run stays on the plots, images or status bar
  // (a run still going keeps its own until it ends).
  connect(files_, &ProjectDocument::loaded, this, [this] {
    if (!anyRunActive()) view_->clear();
  });
  commands_ = new RunCommands(session_, view_, editor_, files_, &services_, &ask_, this);
  connect(commands_, &RunCommands::problem, this, &MainWindow::showMessage);
  connect(commands_, &RunCommands::note, view_->log(), &LogView::appendNote);
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

  // Under the plots: the log, Run History, the Sweeps tab.
  addDockWidget(Qt::BottomDockWidgetArea, dock(tr("Log"), "logDock", view_->log(), this));
  installRunDirectoryReaders(bridge::runDirectoryReaders());  // the engine reads the run directory
  history_ = new RunHistoryPanel(this);
  connect(history_, &RunHistoryPanel::exportRequested, this,
          [this](const QString& runDir) { exportCheckpoint(runDir); });
  connect(history_, &RunHistoryPanel::resumeRequested, this, &MainWindow::resumeRun);
  connect(history_, &RunHistoryPanel::cloneRequested, this, &MainWindow::cloneRun);
  auto* historyDock = dock(tr("Run History"), "historyDock", history_, this);
  addDockWidget(Qt::BottomDockWidgetArea, historyDock);
  tabifyDockWidget(findChild<QDockWidget*>("logDock"), historyDock);
  sweeps_ = new SweepPanel(bridge::readSweepStateView, bridge::setSweepPaused, this);
  sweeps_->setTrialRequests(bridge::runSweepTrialNext, bridge::cancelSweepTrial);
  connect(sweeps_, &SweepPanel::logLines, view_->log(), &LogView::appendLines);
  connect(sweeps_, &SweepPanel::openTrialAsProject, this, &MainWindow::cloneRun);
  connect(sweeps_, &SweepPanel::sweepProgress, view_->statusBar(), &RunStatusBar::setSweep);
  connect(sweeps_, &SweepPanel::continueSweep, this,
          [this](const QString& file, const QString& dir) { runSweepFile(file, dir); });
  connect(sweeps_, &SweepPanel::trialCurves, view_->curves(), &RunCurves::showTrials);
  connect(sweeps_, &SweepPanel::finished, this, [this](int code) {
    view_->log()->appendNote(
        tr("sweep ended with status %1: %2").arg(code).arg(sweeps_->sweepDir()));
    history_->refresh();
  });
  auto* sweepDock = dock(tr("Sweeps"), "sweepDock", sweeps_, this);
  addDockWidget(Qt::BottomDockWidgetArea, sweepDock);
  tabifyDockWidget(historyDock, sweepDock);
  findChild<QDockWidget*>("logDock")->raise();

  // Tabs beside the project: the images a run puts (raised when a run's first image arrives;
  // at 1280x800 a dock of its own would squeeze the plots), what the model learned, the model.
  confusion_ = new ConfusionPanel(this);
  confusion_->setObjectName("confusionPanel");
  model_ = new ModelPanel(this);
  model_->setObjectName("modelPanel");
  view_->setHistory(history_, confusion_);
  QDockWidget* beside = devicesDock;
  for (auto [title, name, content] :
       {std::tuple<QString, const char*, QWidget*>{tr("Images"), "imagesDock", images()},
        std::tuple<QString, const char*, QWidget*>{tr("Learned"), "learnedDock", confusion_},
        std::tuple<QString, const char*, QWidget*>{tr("Model"), "modelDock", model_}}) {
    auto* d = dock(title, name, content, this);
    addDockWidget(Qt::LeftDockWidgetArea, d);
    tabifyDockWidget(beside, d);
    beside = d;
  }
  findChild<QDockWidget*>("projectDock")->raise();
  connect(history_, &RunHistoryPanel::confusionRequested, this, [this](const QString& runDir) {
    confusion_->setRunDirectory(runDir);
    raiseDock("learnedDock");
  });
  connect(history_, &RunHistoryPanel::tryItRequested, this,
          [this](const QString& runDir) { tryIt(runDir); });
  connect(confusion_, &ConfusionPanel::tryItRequested, this,
          [this](const QString& runDir, qint64 index) {
            auto* dialog = static_cast<TryItDialog*>(tryIt(runDir));
            dialog->setDatasetSample("validation", index);
            dialog->classify();
          });

  connect(editor_, &ProjectEditor::analyzed, this, &MainWindow::projectAnalyzed);

  // What plugins registered, and which failed to load.
  const bridge::PluginStatus plugins = bridge::pluginStatus();
  for (const bridge::PluginView& plugin : plugins.loaded) {
    view_->log()->appendNote(tr("plugin %1: %2").arg(plugin.path, plugin.types.join(", ")));
  }
  for (const bridge::PluginFailureView& failure : plugins.failures) {
    view_->log()->appendNote(tr("%1 (Tools ▸ Plugins…)").arg(failure.message));
  }
}

bool MainWindow::openProject(const QString& path) { return files_->open(path); }
bool MainWindow::newFromTemplate(const QString& resource) { return files_->openTemplate(resource); }
bool MainWindow::saveProjectAs(const QString& path) { return files_->saveAs(path); }
QString MainWindow::projectPath() const { return files_->path(); }
ui::LivePlotWidget* MainWindow::plots() const { return view_->plots(); }
ui::ImagePanel* MainWindow::images() const { return view_->images(); }
LogView* MainWindow::logView() const { return view_->log(); }
RunStatusBar* MainWindow::runStatusBar() const { return view_->statusBar(); }
bridge::RunController* MainWindow::runs() const { return session_->controller(); }
LaunchedRun* MainWindow::launchedRun() const { return session_->launched(); }
RunFollower* MainWindow::follower() const { return session_->follower(); }
QString MainWindow::liveRunId() const { return session_->runId(); }
bool MainWindow::anyRunActive() const { return session_->isActive(); }
void MainWindow::resumeRun(const QString& runDir) { commands_->resume(runDir); }
void MainWindow::followRunDirectory(const QString& runDir) { commands_->follow(runDir); }

void MainWindow::cloneRun(const QString& runDir) {
  if (files_->openClone(runDir, history_->runName(runDir))) raiseDock("projectDock");
}

void MainWindow::updateTitle() {
  const QString path = files_->path();
  const QString where = path.isEmpty() ? tr("untitled") : QFileInfo(path).fileName();
  setWindowTitle(QString("%1 — %2[*] — Towerbench").arg(files_->name(), where));
  setWindowModified(editor_->isModified());
  if (model_ != nullptr) model_->setProject(path, editor_->isModified());
}

void MainWindow::projectAnalyzed() {
  // The engine's analysis of the edited document (one per edit): the devices panel shows its
  // samples per step, Run History lists the runs under its run_root.
  const QJsonObject trainer = editor_->trainerSection();
  if (trainer != devices_->trainer()) devices_->setTrainer(trainer);
  devices_->setSummary(editor_->summary());
  if (history_->runRoot() != files_->runRoot() || history_->projectName() != files_->name()) {
    history_->setRunRoot(files_->runRoot(), files_->name());
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
  if (files_->path().isEmpty() || editor_->isModified()) {
    showMessage(QMessageBox::Information, tr("Find Learning Rate"),
                tr("The range test runs the project's file: save the project first (File ▸ "
                   "Save)."));
    return nullptr;
  }
  auto* dialog = new LrFinderDialog(files_->path(), QString(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &LrFinderDialog::rateChosen, this, [this](double rate) {
    editor_->applyEdits({{"optimizer.learning_rate", rate}});
  });
  dialog->show();
  return dialog;
}

QDialog* MainWindow::newSweep() {
  if (files_->path().isEmpty() || editor_->isModified()) {
    showMessage(QMessageBox::Information, tr("New Sweep"),
                tr("A sweep's trials run the project's file: save the project first (File ▸ "
                   "Save)."));
    return nullptr;
  }
  auto* dialog =
      NewSweepDialog::forProject(editor_->object(), files_->path(), services_.canonicalize,
                                 files_->runRoot(), files_->name(), this);
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
    dialog->setSource([this] { return std::make_pair(editor_->document(), files_->path()); });
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
    connect(dialog, &PluginsDialog::pluginsChanged, view_->log(), &LogView::appendNote);
  }
  dialog->refresh();
  dialog->show();
  dialog->raise();
}

void MainWindow::exportCheckpoint(const QString& preselectedRun) {
  history_->refresh();
  QStringList runs;
  for (const auto& info : history_->runs()) runs << info.dir;
  const QString selected = preselectedRun.isEmpty() ? session_->runDir() : preselectedRun;
  auto* dialog = new ExportCheckpointDialog(bridge::makeCheckpointExporter(), this);
  dialog->setObjectName("exportCheckpointDialog");
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setRuns(runs, selected);
  connect(dialog, &ExportCheckpointDialog::exported, this, [this](const QString& path) {
    view_->log()->appendNote(tr("exported %1").arg(path));
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

void MainWindow::showMessage(QMessageBox::Icon icon, const QString& title, const QString& text) {
  // Window-modal but not blocking: a run keeps reporting while the message is shown.
  auto* box = new QMessageBox(icon, title, text, QMessageBox::Ok, this);
  box->setObjectName("messageBox");
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::readSettings() {
  QSettings settings;
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
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (anyRunActive()) {
    const auto answer = ask_(tr("A Run Is Active"),
                             tr("A run is active. Stop it (at the next step, saving its state) "
                                "and close the window?"),
                             QMessageBox::Yes | QMessageBox::Cancel);
    if (answer == QMessageBox::Yes) {
      closeAfterRun_ = true;
      commands_->stop();
      runStatusBar()->showMessage(tr("Stopping the run; the window closes when it has ended…"));
    }
    event->ignore();
    return;
  }
  if (sweeps_->isRunning()) {
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
      runStatusBar()->showMessage(tr("Stopping the sweep…"));
      sweeps_->stopAndWait(30000);
    }
  }
  if (!files_->maybeSave()) {
    event->ignore();
    return;
  }
  writeSettings();
  event->accept();
}

}  // namespace tbench::gui
