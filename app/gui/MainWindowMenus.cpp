// MainWindow: its actions and menus (the rest is in MainWindow.cpp, MainWindowRun.cpp and
// MainWindowFollow.cpp).
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QStyle>
#include <QToolBar>
#include <tuple>

#include "app/gui/HelpBrowser.h"
#include "app/gui/MainWindow.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/sweep/SweepPanel.h"
#include "widgets/LivePlotWidget.h"

namespace tbench::gui {

void MainWindow::createActions() {
  auto make = [this](const QString& text, const QString& name, const QKeySequence& key, auto slot) {
    auto* action = new QAction(text, this);
    action->setObjectName(name);
    if (!key.isEmpty()) action->setShortcut(key);
    connect(action, &QAction::triggered, this, slot);
    return action;
  };
  newAction_ = make(tr("&New"), "actionNew", QKeySequence::New, [this] {
    const QStringList all = templates();
    if (!all.isEmpty()) newFromTemplate(all.front());
  });
  openAction_ = make(tr("&Open…"), "actionOpen", QKeySequence::Open, [this] { open(); });
  saveAction_ = make(tr("&Save"), "actionSave", QKeySequence::Save, [this] { save(); });
  saveAsAction_ = make(tr("Save &As…"), "actionSaveAs", QKeySequence::SaveAs, [this] { saveAs(); });
  exportAction_ = make(tr("&Export Checkpoint…"), "actionExportCheckpoint",
                       QKeySequence(tr("Ctrl+E")), [this] { exportCheckpoint(); });
  quitAction_ = make(tr("&Quit"), "actionQuit", QKeySequence::Quit, [this] { close(); });
  previewAction_ = make(tr("Preview &Data…"), "actionPreviewData", QKeySequence(tr("Ctrl+D")),
                        [this] { previewData(); });
  startAction_ =
      make(tr("&Start"), "actionStart", QKeySequence(Qt::Key_F5), [this] { startRun(); });
  startAction_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  stopAction_ =
      make(tr("S&top"), "actionStop", QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] { stopRun(); });
  stopAction_->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
  pauseAction_ = new QAction(tr("&Pause"), this);
  pauseAction_->setObjectName("actionPause");
  pauseAction_->setCheckable(true);
  pauseAction_->setShortcut(QKeySequence(Qt::Key_F6));
  pauseAction_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
  connect(pauseAction_, &QAction::triggered, runs(), &bridge::RunController::setPaused);
  // Issue 37: the button stayed "Pause" while paused. Checked, it resumes.
  connect(pauseAction_, &QAction::toggled, this, [this](bool paused) {
    pauseAction_->setText(paused ? tr("&Resume") : tr("&Pause"));
    pauseAction_->setIcon(
        style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
  });
  saveNowAction_ = make(tr("Save &Checkpoint Now"), "actionSaveCheckpointNow",
                        QKeySequence(Qt::Key_F7), [this] { runs()->saveCheckpointNow(); });
  saveNowAction_->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
  learningRateAction_ = make(tr("Set &Learning Rate…"), "actionSetLearningRate",
                             QKeySequence(Qt::Key_F8), [this] { askLearningRate(); });
  pluginsAction_ =
      make(tr("&Plugins…"), "actionPlugins", QKeySequence(), [this] { showPlugins(); });
  aboutAction_ = make(tr("&About Towerbench"), "actionAbout", QKeySequence(), [this] { about(); });
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(newAction_);
  templateMenu_ = file->addMenu(tr("New from &Template"));
  templateMenu_->setObjectName("templateMenu");
  for (const QString& resource : templates()) {
    QAction* a = templateMenu_->addAction(QFileInfo(resource).completeBaseName());
    a->setObjectName("template:" + QFileInfo(resource).fileName());
    connect(a, &QAction::triggered, this, [this, resource] { newFromTemplate(resource); });
  }
  file->addAction(openAction_);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName("recentMenu");
  file->addSeparator();
  file->addAction(saveAction_);
  file->addAction(saveAsAction_);
  file->addSeparator();
  file->addAction(exportAction_);
  QAction* follow =
      file->addAction(tr("&Follow Run Directory…"), this, [this] { followRunDirectory(); });
  follow->setObjectName("actionFollowRunDirectory");
  follow->setToolTip(tr("Plot a run started elsewhere (torchrun, SLURM, the CLI) as it trains"));
  QAction* openSweep = file->addAction(tr("Open S&weep…"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Sweep"), runRootPath());
    if (dir.isEmpty()) return;
    sweeps_->showSweep(dir);
    raiseDock("sweepDock");
  });
  openSweep->setObjectName("actionOpenSweep");
  file->addSeparator();
  file->addAction(quitAction_);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(previewAction_);
  run->addSeparator();
  for (QAction* a : {startAction_, stopAction_, pauseAction_, saveNowAction_, learningRateAction_})
    run->addAction(a);
  run->addSeparator();
  tryItAction_ = run->addAction(tr("&Try It…"), this, [this] { tryIt(); });
  tryItAction_->setObjectName("actionTryIt");
  QAction* findLr =
      run->addAction(tr("Find &Learning Rate…"), this, [this] { findLearningRate(); });
  findLr->setObjectName("actionFindLearningRate");
  findLr->setToolTip(
      tr("The range test: train a few hundred steps at growing rates and pick "
         "the rate where the cost falls fastest"));
  QAction* newSweepAction = run->addAction(tr("&New Sweep…"), this, [this] { newSweep(); });
  newSweepAction->setObjectName("actionNewSweep");
  newSweepAction->setToolTip(
      tr("Sweep keys of this project: values or ranges, the number of trials and the time"));
  QAction* runSweep = run->addAction(tr("Run S&weep…"), this, [this] {
    // Sweep files are JSON or YAML (issue 35); the dialog starts in the project's folder.
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Run Sweep"),
        projectPath_.isEmpty() ? QString() : QFileInfo(projectPath_).absolutePath(),
        tr("Sweeps (*.json *.yaml *.yml);;All files (*)"));
    if (!file.isEmpty()) runSweepFile(file);
  });
  runSweep->setObjectName("actionRunSweep");
  runSweep->setToolTip(tr("Run a sweep file's trials (towerbench-cli sweep) and compare them"));

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) viewMenu_->addAction(d->toggleViewAction());
  for (QToolBar* t : findChildren<QToolBar*>()) viewMenu_->addAction(t->toggleViewAction());
  viewMenu_->addSeparator();
  QAction* fit = viewMenu_->addAction(tr("&Fit Plots"), plots_, &ui::LivePlotWidget::fitAll);
  fit->setObjectName("actionFitPlots");
  fit->setShortcut(QKeySequence(tr("Ctrl+0")));
  // Comparing runs wants the table and the charts at once: Run History gets 40% of the height
  // and the side panels give up width (the user's sizes come back with the layout they saved).
  QAction* compare = viewMenu_->addAction(tr("&Compare Runs"), this, [this] {
    auto* historyDock = findChild<QDockWidget*>("historyDock");
    historyDock->show();
    historyDock->raise();
    resizeDocks({historyDock}, {int(height() * 0.4)}, Qt::Vertical);
    resizeDocks({findChild<QDockWidget*>("projectDock")}, {int(width() * 0.22)}, Qt::Horizontal);
  });
  compare->setObjectName("actionCompareRuns");
  compare->setShortcut(QKeySequence(tr("Ctrl+Shift+H")));

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  tools->addAction(pluginsAction_);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  // Issue 37: Help had no documentation. The documents are compiled into the window.
  for (const auto& [text, resource, name] :
       {std::tuple{tr("Towerbench &Guide"), ":/docs/README.md", "actionHelpGuide"},
        std::tuple{tr("&Project Format"), ":/docs/PROJECT-FORMAT.md", "actionHelpProjectFormat"},
        std::tuple{tr("&Writing a Trainer"), ":/docs/WRITE-A-TRAINER.md",
                   "actionHelpWriteATrainer"}}) {
    QAction* action = help->addAction(text, this, [this, text = text, resource = resource] {
      HelpBrowser::show(QString::fromLatin1(resource), QString(text).remove('&'), this);
    });
    action->setObjectName(QString::fromLatin1(name));
  }
  help->actions().first()->setShortcut(QKeySequence::HelpContents);
  help->addSeparator();
  help->addAction(aboutAction_);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

}  // namespace tbench::gui
