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
#include "app/bridge/ProjectViews.h"
#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/run/LaunchedRun.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunCurves.h"
#include "app/gui/runview/RunStatusBar.h"
#include "widgets/LivePlotWidget.h"

namespace tbench::gui {

using bridge::RunState;

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
  const QString cli = CliProcess::defaultCli();
  const QString problem = CliProcess::cliProblem(cli);
  if (!problem.isEmpty()) {  // before anything of the last run's view is cleared
    showMessage(QMessageBox::Warning, tr("Cannot Start"), problem);
    return;
  }
  clearRunView();
  controls_->beginRun(resume ? std::nan("") : editor_->summary().startingLearningRate);
  if (resume) curves_->plotSoFar(runDir);  // rank 0's new points continue its curves
  QString error;
  if (!session_->launch(cli, projectFile, runDir, processes, resume, &error)) {
    showMessage(QMessageBox::Warning, tr("Cannot Start"), error);
    return;
  }
  curves_->showOverlays(history_->selectedRuns());
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
  session_->follow(runDir.absolutePath());
}

}  // namespace tbench::gui
