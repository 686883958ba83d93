#pragma once
// MainWindow: the workbench (docs/ARCHITECTURE.md §3). It assembles panels, each its own class,
// in docks around the live plots, and wires the menus to them; it holds no run, sweep or file
// logic of its own:
//   - ProjectDocument: the document's file (open, save, recent); ProjectEditor edits it, beside
//     the Devices and Strategy panel and Preview Data;
//   - RunView: the live run on the plots, images, log, run controls and status bar; RunCommands:
//     Start, Stop, Resume, Follow; RunSession: the run itself (in this process, launched ranks or
//     a followed directory);
//   - Run History, the Sweeps tab, the Learned and Model tabs, and the dialogs (Export
//     Checkpoint, Try It, Find Learning Rate, New Sweep, Plugins, Help).
// Actions are named "action" + their name ("actionStart", "actionExportCheckpoint", ...) so
// that tests drive the window through them; MainWindowMenus.cpp makes them. Nothing here blocks
// on the engine. The layout and the export folder persist with QSettings. Closing during a run
// asks, then stops it cleanly and closes when it has ended. GUI thread only.

#include <QIcon>
#include <QMainWindow>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunController.h"
#include "app/gui/Asker.h"
#include "app/gui/runview/RunView.h"  // RunActions and the run panels' classes

class QDialog;

namespace tbench::gui {

class DeviceStrategyPanel;
class LaunchedRun;
class ModelPanel;
class ProjectEditor;
class ProjectDocument;
class RunCommands;
class RunFollower;
class SweepPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  using Asker = gui::Asker;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a project file (ProjectDocument::open); false after telling the user.
  bool openProject(const QString& path);
  /// Loads a template embedded in the program (":/templates/<file>.json") as a new project.
  bool newFromTemplate(const QString& resource);
  /// Writes the document to `path`; false (after telling the user) on failure.
  bool saveProjectAs(const QString& path);
  QString projectPath() const;
  void setAsker(Asker asker) { ask_ = std::move(asker); }

  ProjectEditor* editor() const { return editor_; }
  DeviceStrategyPanel* devicePanel() const { return devices_; }
  ui::LivePlotWidget* plots() const;
  ui::ImagePanel* images() const;
  LogView* logView() const;
  RunHistoryPanel* history() const { return history_; }
  RunStatusBar* runStatusBar() const;
  ConfusionPanel* confusionPanel() const { return confusion_; }
  ModelPanel* modelPanel() const { return model_; }
  SweepPanel* sweepPanel() const { return sweeps_; }
  RunSession* session() const { return session_; }
  bridge::RunController* runs() const;
  LaunchedRun* launchedRun() const;
  RunFollower* follower() const;
  /// An in-window run or a launched distributed run is going.
  bool anyRunActive() const;
  /// The run id (run directory name) of the current or last live run.
  QString liveRunId() const;

  /// Run ▸ Find Learning Rate… (LrFinderDialog on the saved project; Use This Rate sets
  /// optimizer.learning_rate). nullptr after telling the user to save first.
  QDialog* findLearningRate();
  /// Run ▸ Try It… with the latest checkpoint of `runDir` (empty: the live run, else the newest
  /// in Run History); the (non-modal) dialog.
  QDialog* tryIt(const QString& runDir = QString());
  /// Continues the run in `runDir` from its latest checkpoint with the project it ran with.
  void resumeRun(const QString& runDir);
  /// Opens the project `runDir` ran with as a new, untitled project.
  void cloneRun(const QString& runDir);
  /// File ▸ Follow Run Directory…: plots `runDir` (empty: asks) as it grows.
  void followRunDirectory(const QString& runDir = QString());
  /// Run ▸ Run Sweep…: runs `sweepFile` (towerbench-cli sweep) into `sweepDir` (default:
  /// sweeps/<name> beside the file) in the Sweeps tab. False after telling the user.
  bool runSweepFile(const QString& sweepFile, const QString& sweepDir = QString());
  /// Run ▸ New Sweep… of the saved project (NewSweepDialog); nullptr after telling the user
  /// to save first.
  QDialog* newSweep();

  /// Resources of the embedded project templates.
  static QStringList templates();
  /// Towerbench's icon (resources/icons) in every size it ships.
  static QIcon applicationIcon();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createPanels(const RunActions& runActions);
  RunActions createRunActions();  // MainWindowMenus.cpp
  void createMenus();             // MainWindowMenus.cpp
  void updateTitle();
  void projectAnalyzed();
  void readSettings();
  void writeSettings();
  void exportCheckpoint(const QString& preselectedRun = QString());
  void previewData();
  void showPlugins();
  void raiseDock(const char* name);
  void showMessage(QMessageBox::Icon icon, const QString& title, const QString& text);

  bridge::ProjectServices services_;
  Asker ask_;
  RunSession* session_ = nullptr;
  RunView* view_ = nullptr;
  RunCommands* commands_ = nullptr;
  ProjectDocument* files_ = nullptr;
  ProjectEditor* editor_ = nullptr;
  DeviceStrategyPanel* devices_ = nullptr;
  RunHistoryPanel* history_ = nullptr;
  ConfusionPanel* confusion_ = nullptr;
  ModelPanel* model_ = nullptr;
  SweepPanel* sweeps_ = nullptr;
  bool closeAfterRun_ = false;
};

}  // namespace tbench::gui
