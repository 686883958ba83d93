// MainWindow: its actions and menus (the panels are in MainWindow.cpp).
#include <qcustomplot.h>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QStyle>
#include <QToolBar>
#include <tuple>

#include "app/bridge/EngineServices.h"
#include "app/bridge/ProjectServices.h"
#include "app/gui/HelpBrowser.h"
#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/project/ProjectDocument.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunCommands.h"
#include "app/gui/runview/RunView.h"
#include "app/gui/sweep/SweepPanel.h"
#include "widgets/LivePlotWidget.h"

namespace tbench::gui {

RunActions MainWindow::createRunActions() {
  // The Run menu's actions that the run's state enables (RunView) and the run controls show.
  auto make = [this](const QString& text, const QString& name, const QKeySequence& key,
                     QStyle::StandardPixmap icon) {
    auto* action = new QAction(style()->standardIcon(icon), text, this);
    action->setObjectName(name);
    action->setShortcut(key);
    return action;
  };
  RunActions a;
  a.start = make(tr("&Start"), "actionStart", QKeySequence(Qt::Key_F5), QStyle::SP_MediaPlay);
  connect(a.start, &QAction::triggered, this, [this] { commands_->start(); });
  a.stop =
      make(tr("S&top"), "actionStop", QKeySequence(Qt::SHIFT | Qt::Key_F5), QStyle::SP_MediaStop);
  connect(a.stop, &QAction::triggered, this, [this] { commands_->stop(); });
  a.pause = make(tr("&Pause"), "actionPause", QKeySequence(Qt::Key_F6), QStyle::SP_MediaPause);
  a.pause->setCheckable(true);
  connect(a.pause, &QAction::triggered, runs(), &bridge::RunController::setPaused);
  // Issue 37: the button stayed "Pause" while paused. Checked, it resumes.
  connect(a.pause, &QAction::toggled, this, [this, pause = a.pause](bool paused) {
    pause->setText(paused ? tr("&Resume") : tr("&Pause"));
    pause->setIcon(style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
  });
  a.saveNow = make(tr("Save &Checkpoint Now"), "actionSaveCheckpointNow", QKeySequence(Qt::Key_F7),
                   QStyle::SP_DialogSaveButton);
  connect(a.saveNow, &QAction::triggered, runs(), &bridge::RunController::saveCheckpointNow);
  a.learningRate = new QAction(tr("Set &Learning Rate…"), this);
  a.learningRate->setObjectName("actionSetLearningRate");
  a.learningRate->setShortcut(QKeySequence(Qt::Key_F8));
  connect(a.learningRate, &QAction::triggered, this,
          [this] { view_->askLearningRate(editor_->summary().startingLearningRate); });
  return a;
}

void MainWindow::createMenus() {
  // `add(menu, text, name, key, slot)`: an action named `name` ("actionSave", what tests use).
  auto add = [this](QMenu* menu, const QString& text, const char* name, const QKeySequence& key,
                    auto slot) {
    QAction* action = menu->addAction(text, this, slot);
    action->setObjectName(QString::fromLatin1(name));
    if (!key.isEmpty()) action->setShortcut(key);
    return action;
  };
  QMenu* file = menuBar()->addMenu(tr("&File"));
  add(file, tr("&New"), "actionNew", QKeySequence::New, [this] {
    const QStringList all = templates();
    if (!all.isEmpty()) files_->openTemplate(all.front());
  });
  QMenu* templateMenu = file->addMenu(tr("New from &Template"));
  templateMenu->setObjectName("templateMenu");
  for (const QString& resource : templates()) {
    QAction* a = templateMenu->addAction(QFileInfo(resource).completeBaseName(), this,
                                         [this, resource] { files_->openTemplate(resource); });
    a->setObjectName("template:" + QFileInfo(resource).fileName());
  }
  add(file, tr("&Open…"), "actionOpen", QKeySequence::Open, [this] { files_->openChosen(); });
  QMenu* recentMenu = file->addMenu(tr("Open &Recent"));
  recentMenu->setObjectName("recentMenu");
  files_->setRecentMenu(recentMenu);
  file->addSeparator();
  add(file, tr("&Save"), "actionSave", QKeySequence::Save, [this] { files_->save(); });
  add(file, tr("Save &As…"), "actionSaveAs", QKeySequence::SaveAs,
      [this] { files_->saveChosen(); });
  file->addSeparator();
  add(file, tr("&Export Checkpoint…"), "actionExportCheckpoint", QKeySequence(tr("Ctrl+E")),
      [this] { exportCheckpoint(); });
  add(file, tr("&Follow Run Directory…"), "actionFollowRunDirectory", {}, [this] {
    commands_->follow(QString());
  })->setToolTip(tr("Plot a run started elsewhere (torchrun, SLURM, the CLI) as it trains"));
  add(file, tr("Open S&weep…"), "actionOpenSweep", {}, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Open Sweep"), files_->runRoot());
    if (dir.isEmpty()) return;
    sweeps_->showSweep(dir);
    raiseDock("sweepDock");
  });
  file->addSeparator();
  add(file, tr("&Quit"), "actionQuit", QKeySequence::Quit, [this] { close(); });

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  add(run, tr("Preview &Data…"), "actionPreviewData", QKeySequence(tr("Ctrl+D")),
      [this] { previewData(); });
  run->addSeparator();
  for (const char* name : {"actionStart", "actionStop", "actionPause", "actionSaveCheckpointNow",
                           "actionSetLearningRate"}) {
    run->addAction(findChild<QAction*>(QString::fromLatin1(name)));
  }
  run->addSeparator();
  add(run, tr("&Try It…"), "actionTryIt", {}, [this] { tryIt(); });
  add(run, tr("Find &Learning Rate…"), "actionFindLearningRate", {}, [this] { findLearningRate(); })
      ->setToolTip(tr("The range test: train a few hundred steps at growing rates and pick "
                      "the rate where the cost falls fastest"));
  add(run, tr("&New Sweep…"), "actionNewSweep", {}, [this] { newSweep(); })
      ->setToolTip(tr("Sweep keys of this project: values or ranges, the number of trials and the "
                      "time"));
  add(run, tr("Run S&weep…"), "actionRunSweep", {}, [this] {
    // Sweep files are JSON or YAML (issue 35); the dialog starts in the project's folder.
    const QString path = files_->path();
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Run Sweep"), path.isEmpty() ? QString() : QFileInfo(path).absolutePath(),
        tr("Sweeps (*.json *.yaml *.yml);;All files (*)"));
    if (!file.isEmpty()) runSweepFile(file);
  })->setToolTip(tr("Run a sweep file's trials (towerbench-cli sweep) and compare them"));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  for (QToolBar* t : findChildren<QToolBar*>()) view->addAction(t->toggleViewAction());
  view->addSeparator();
  add(view, tr("&Fit Plots"), "actionFitPlots", QKeySequence(tr("Ctrl+0")),
      [this] { plots()->fitAll(); });
  // Comparing runs wants the table and the charts at once: Run History gets 40% of the height
  // and the side panels give up width (the user's sizes come back with the layout they saved).
  add(view, tr("&Compare Runs"), "actionCompareRuns", QKeySequence(tr("Ctrl+Shift+H")), [this] {
    auto* historyDock = findChild<QDockWidget*>("historyDock");
    historyDock->show();
    historyDock->raise();
    resizeDocks({historyDock}, {int(height() * 0.4)}, Qt::Vertical);
    resizeDocks({findChild<QDockWidget*>("projectDock")}, {int(width() * 0.22)}, Qt::Horizontal);
  });

  QMenu* tools = menuBar()->addMenu(tr("&Tools"));
  add(tools, tr("&Plugins…"), "actionPlugins", {}, [this] { showPlugins(); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  // Issue 37: Help had no documentation. The documents are compiled into the window.
  for (const auto& [text, resource, name] :
       {std::tuple{tr("Towerbench &Guide"), ":/docs/README.md", "actionHelpGuide"},
        std::tuple{tr("&Project Format"), ":/docs/PROJECT-FORMAT.md", "actionHelpProjectFormat"},
        std::tuple{tr("&Writing a Trainer"), ":/docs/WRITE-A-TRAINER.md",
                   "actionHelpWriteATrainer"}}) {
    add(help, text, name, {}, [this, text = text, resource = resource] {
      HelpBrowser::show(QString::fromLatin1(resource), QString(text).remove('&'), this);
    });
  }
  help->actions().first()->setShortcut(QKeySequence::HelpContents);
  help->addSeparator();
  add(help, tr("&About Towerbench"), "actionAbout", {}, [this] {
    QMessageBox::about(
        this, tr("About Towerbench"),
        tr("<h3>Towerbench %1</h3><p>A desktop training workbench: tensorpack's trainer design "
           "on LibTorch.</p><p>Qt %2 (built with %3)<br>%4<br>QCustomPlot %5</p>")
            .arg(QApplication::applicationVersion(), qVersion(), QT_VERSION_STR,
                 bridge::engineVersionText(), QCUSTOMPLOT_VERSION_STR));
  });
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

}  // namespace tbench::gui
