#include "app/gui/runview/RunCommands.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <cmath>

#include "app/bridge/RunDirectoryServices.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/project/ProjectDocument.h"
#include "app/gui/run/CliProcess.h"
#include "app/gui/run/RunSession.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunView.h"

namespace tbench::gui {

RunCommands::RunCommands(RunSession* session, RunView* view, ProjectEditor* editor,
                         ProjectDocument* files, const bridge::ProjectServices* services,
                         const Asker* ask, QWidget* window)
    : QObject(window),
      session_(session),
      view_(view),
      editor_(editor),
      files_(files),
      services_(services),
      ask_(ask),
      window_(window) {}

void RunCommands::start() {
  if (session_->isActive()) return;
  editor_->validateNow();
  const bridge::ProjectIssueViews typed = editor_->inputProblems();
  if (editor_->hasParseError() || !editor_->isValid() || !typed.isEmpty()) {
    QStringList lines;
    for (const auto& issue : typed) lines << issue.path + ": " + issue.message;
    for (const auto& issue : editor_->issues()) lines << issue.path + ": " + issue.message;
    if (lines.isEmpty()) lines << tr("the JSON text does not parse");
    emit problem(QMessageBox::Warning, tr("Cannot Start"),
                 tr("The project has problems; fix them first:\n\n%1").arg(lines.join('\n')));
    return;
  }
  // A strategy of many processes runs one per rank, launched like on a cluster.
  if (editor_->summary().manyProcesses) {
    startLaunched();
    return;
  }
  // The plots show this run, plus the runs checked for overlay in the history.
  view_->beginRun(editor_->summary().startingLearningRate);
  bridge::StartOptions options;
  options.projectText = editor_->document();
  options.projectPath = files_->path().isEmpty() ? files_->name() + " (unsaved)" : files_->path();
  QString error;
  if (!session_->start(options, &error)) {
    emit problem(QMessageBox::Warning, tr("Cannot Start"), error);
    return;
  }
  emit note(tr("starting %1").arg(options.projectPath));
  view_->showOverlays();
}

void RunCommands::stop() { session_->stop(view_->controls()->saveFinalCheckpoint()); }

void RunCommands::startLaunched() {
  // The processes read the project from its file, as on a cluster.
  if (files_->path().isEmpty() || editor_->isModified()) {
    const auto answer = (*ask_)(tr("Save the Project"),
                                tr("A distributed run's processes read the project from its "
                                   "file. Save \"%1\" and start?")
                                    .arg(files_->name()),
                                QMessageBox::Save | QMessageBox::Cancel);
    if (answer != QMessageBox::Save || !files_->save()) return;
  }
  const QString runDir = bridge::newRunDirectoryPath(files_->runRoot(), files_->name());
  launch(files_->path(), runDir, static_cast<int>(editor_->summary().processes),
         /*resume=*/false);
}

void RunCommands::launch(const QString& projectFile, const QString& runDir, int processes,
                         bool resume) {
  const QString cli = CliProcess::defaultCli();
  const QString problemText = CliProcess::cliProblem(cli);
  if (!problemText.isEmpty()) {  // before anything of the last run's view is cleared
    emit problem(QMessageBox::Warning, tr("Cannot Start"), problemText);
    return;
  }
  // A resumed run's rank 0 continues its curves; its rate arrives with its first step.
  view_->beginRun(resume ? std::nan("") : editor_->summary().startingLearningRate,
                  resume ? runDir : QString());
  QString error;
  if (!session_->launch(cli, projectFile, runDir, processes, resume, &error)) {
    emit problem(QMessageBox::Warning, tr("Cannot Start"), error);
    return;
  }
  view_->showOverlays();
}

void RunCommands::resume(const QString& runDir) {
  if (session_->isActive()) {
    emit problem(QMessageBox::Warning, tr("Resume"),
                 tr("A run is in progress: stop it before resuming another."));
    return;
  }
  const QString projectFile = QDir(runDir).filePath("project.json");
  QFile file(projectFile);
  if (!file.open(QIODevice::ReadOnly)) {
    emit problem(QMessageBox::Warning, tr("Resume"),
                 tr("%1 cannot be read (%2): the run cannot be resumed.")
                     .arg(QDir::toNativeSeparators(projectFile), file.errorString()));
    return;
  }
  const QString projectText = QString::fromUtf8(file.readAll());
  const bridge::ProjectSummaryView ran = services_->analyze(projectText);
  if (ran.manyProcesses) {
    // As it ran: its processes, launched again, continue from rank 0's checkpoint.
    launch(projectFile, runDir, static_cast<int>(ran.processes), /*resume=*/true);
    return;
  }
  view_->beginRun(std::nan(""), runDir);  // the live points continue its curves
  QString error;
  bridge::StartOptions options;
  options.projectText = projectText;
  options.projectPath = projectFile;
  options.runDir = runDir;
  options.resume = true;
  if (!session_->start(options, &error)) {
    emit problem(QMessageBox::Warning, tr("Cannot Resume"), error);
    return;
  }
  emit note(tr("resuming %1 from its latest checkpoint, with the project it ran with")
                .arg(QDir::toNativeSeparators(runDir)));
  view_->showOverlays();
}

void RunCommands::follow(const QString& chosen) {
  if (session_->isActive()) {
    emit problem(QMessageBox::Warning, tr("Follow Run Directory"),
                 tr("A run is active: stop it before following another."));
    return;
  }
  const QString dir = !chosen.isEmpty()
                          ? chosen
                          : QFileDialog::getExistingDirectory(window_, tr("Follow Run Directory"),
                                                              files_->runRoot());
  if (dir.isEmpty()) return;
  const QDir runDir(dir);
  if (!runDir.exists("run.json") && !runDir.exists("stats.json") &&
      !runDir.exists("scalars.jsonl")) {
    emit problem(QMessageBox::Warning, tr("Follow Run Directory"),
                 tr("%1 is not a run directory: it has no run.json, stats.json or scalars.jsonl.")
                     .arg(QDir::toNativeSeparators(dir)));
    return;
  }
  view_->clear();
  session_->follow(runDir.absolutePath());
}

}  // namespace tbench::gui
