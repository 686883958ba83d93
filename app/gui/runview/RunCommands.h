#pragma once
// RunCommands: what Run ▸ Start and Stop, Run History's Resume and File ▸ Follow Run
// Directory… do. A project of one process trains in this process (RunSession::start); a
// project of a many-process strategy is saved and launched as ranks (towerbench-cli launch,
// as on a cluster); a resumed run continues as it ran, with its own project.json. The
// document's problems, an unreadable run directory or a missing CLI are said before anything
// of the last run's view is cleared. GUI thread.

#include <QMessageBox>
#include <QObject>

#include "app/gui/Asker.h"

#include "app/bridge/ProjectViews.h"

namespace tbench::gui {

class ProjectEditor;
class ProjectDocument;
class RunSession;
class RunView;

class RunCommands : public QObject {
  Q_OBJECT

 public:
  RunCommands(RunSession* session, RunView* view, ProjectEditor* editor, ProjectDocument* files,
              const bridge::ProjectServices* services, const Asker* ask, QWidget* window);

  /// Run ▸ Start: the document as edited (saved or not), unless it has problems.
  void start();
  /// Run ▸ Stop: at the next step (a final checkpoint if the run controls ask for one).
  void stop();
  /// Continues the run in `runDir` from its latest checkpoint, with the project it ran with.
  void resume(const QString& runDir);
  /// Follows the run in `runDir` (empty: asks for it).
  void follow(const QString& runDir);

 signals:
  void problem(QMessageBox::Icon icon, const QString& title, const QString& text);
  void note(const QString& text);

 private:
  void startLaunched();
  /// Launches `processes` ranks of `projectFile` into `runDir` (`resume`: from its checkpoint).
  void launch(const QString& projectFile, const QString& runDir, int processes, bool resume);

  RunSession* session_;
  RunView* view_;
  ProjectEditor* editor_;
  ProjectDocument* files_;
  const bridge::ProjectServices* services_;
  const Asker* ask_;
  QWidget* window_;
};

}  // namespace tbench::gui
