#pragma once
// MainWindow: the workbench (docs/ARCHITECTURE.md §3). Panels, each its own class, in docks
// around the live plots: the project editor and the devices & strategy panel (left), the log
// and the run history (bottom), the images a run puts (a left tab, raised when the first
// arrives), the run controls (top); the status bar shows the run's state, position, it/s and
// ETA. Menus: File (New from Template, Open, Open Recent, Save, Save As, Export Checkpoint…,
// Follow Run Directory…, Quit), Run (Start, Stop, Pause, Save Checkpoint Now, Set Learning Rate…,
// Try It…), View (the panels, fit plots, Compare Runs: Run History made large), Tools (Plugins…),
// Help (About). Plugins load before the window is built (main.cpp); the log lists what they
// registered and which failed to load.
//
// The live run is a RunSession (app/gui/run/RunSession.h, a model without widgets): in this
// process through bridge::RunController on the engine thread, or a project of a many-process
// strategy launched as local_processes child processes (towerbench-cli launch,
// MainWindowFollow.cpp) and followed through rank 0's run directory, like a run started
// elsewhere (Follow Run Directory…). The window only puts the session's signals on its panels.
//
// A run starts from the document as edited (saved or not); its project.json in the run
// directory keeps exactly what ran. Nothing here blocks on the engine. Window layout, recent
// projects and the export folder persist with QSettings. Closing during a run asks, then stops the
// run cleanly and closes when it has ended.
//
// Actions are named "action" + their name ("actionStart", "actionExportCheckpoint", ...) so
// that tests drive the window through them. GUI thread only.

#include <limits>

#include <QIcon>
#include <QMainWindow>
#include <QMessageBox>
#include <QSet>
#include <functional>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunController.h"

class QAction;
class QMenu;

namespace tbench::ui {
class ImagePanel;
class LivePlotWidget;
}  // namespace tbench::ui

namespace tbench::gui {

class DeviceStrategyPanel;
class LogView;
class ProjectEditor;
class RunControls;
class RunHistoryPanel;
class RunStatusBar;
class ConfusionPanel;
class ModelPanel;
class LaunchedRun;
class RunFollower;
class RunSession;
class SweepPanel;
class RunCurves;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// Asks the user a question; returns the button chosen. Replaceable for tests.
  using Asker = std::function<QMessageBox::StandardButton(const QString& title, const QString& text,
                                                          QMessageBox::StandardButtons buttons)>;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a project file. Returns false (after telling the user) when it cannot be read; an
  /// invalid project is opened all the same, with its problems shown next to their fields.
  bool openProject(const QString& path);
  /// Loads a template embedded in the program (":/templates/<file>.json") as a new,
  /// untitled project.
  bool newFromTemplate(const QString& resource);
  /// Writes the document to `path`; false (after telling the user) on failure.
  bool saveProjectAs(const QString& path);
  QString projectPath() const { return projectPath_; }

  void setAsker(Asker asker) { ask_ = std::move(asker); }

  ProjectEditor* editor() const { return editor_; }
  DeviceStrategyPanel* devicePanel() const { return devices_; }
  ui::LivePlotWidget* plots() const { return plots_; }
  ui::ImagePanel* images() const { return images_; }
  LogView* logView() const { return log_; }
  RunHistoryPanel* history() const { return history_; }
  RunStatusBar* runStatusBar() const { return status_; }
  /// The "Learned" tab: the confusion matrix of the live run or a run chosen in Run History.
  ConfusionPanel* confusionPanel() const { return confusion_; }
  /// The "Model" tab: the saved project's parameters, groups and what init loads.
  ModelPanel* modelPanel() const { return model_; }
  /// Run ▸ Find Learning Rate…: the range test of the saved project (LrFinderDialog); its
  /// Use This Rate sets optimizer.learning_rate. nullptr after telling the user to save first.
  QDialog* findLearningRate();
  /// Opens Run ▸ Try It… with the latest checkpoint of `runDir` (empty: the live run, else the
  /// newest run in Run History); returns the (non-modal) dialog.
  QDialog* tryIt(const QString& runDir = QString());
  /// The live run, however it runs (in this process, launched ranks, a followed directory).
  RunSession* session() const { return session_; }
  bridge::RunController* runs() const;
  /// Continues the run in `runDir` from its latest checkpoint, with the project it ran with
  /// (its project.json); its curves so far come back on the plots. Refused during a run.
  void resumeRun(const QString& runDir);
  /// Opens the project `runDir` ran with as a new, untitled project (its runs go beside the
  /// original's, so Run History compares them).
  void cloneRun(const QString& runDir);
  /// Follows the run in `runDir` (empty: asks for it): its charts grow with its scalars.jsonl
  /// (or stats.json) and the status bar follows its run.json (File ▸ Follow Run Directory…).
  void followRunDirectory(const QString& runDir = QString());
  /// The distributed run the window launched (towerbench-cli launch), if any.
  LaunchedRun* launchedRun() const;
  RunFollower* follower() const;
  /// An in-window run or a launched distributed run is going.
  bool anyRunActive() const;
  /// The run id (run directory name) of the current or last live run.
  QString liveRunId() const;
  /// The Sweeps tab: a sweep's trials, their table and parallel coordinates.
  SweepPanel* sweepPanel() const { return sweeps_; }
  /// Runs `sweepFile` (towerbench-cli sweep) into `sweepDir` (default: sweeps/<name> beside
  /// the file) and shows it in the Sweeps tab (Run ▸ Run Sweep…). False after telling the user.
  bool runSweepFile(const QString& sweepFile, const QString& sweepDir = QString());
  /// Run ▸ New Sweep…: a sweep of the saved project being edited (NewSweepDialog; its time
  /// estimate from the project's last finished run); its Save and Run goes to runSweepFile.
  /// Returns the (window-modal) dialog, or nullptr after telling the user to save first.
  QDialog* newSweep();

  /// Resources of the embedded project templates.
  static QStringList templates();
  /// Towerbench's icon (resources/icons) in every size it ships; the window and the About box
  /// show it.
  static QIcon applicationIcon();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  // MainWindow.cpp: panels, files, settings; MainWindowMenus.cpp: actions and menus.
  void createPanels();
  void createActions();
  void createMenus();
  void loadDocument(const QString& text, const QString& path, const QString& pathBase = {});
  bool maybeSave();
  bool save();
  bool saveAs();
  void open();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void updateTitle();
  void documentChanged();
  /// The editor analysed the document (ProjectEditor::analyzed): the panels take its values.
  void projectAnalyzed();
  void readSettings();
  void writeSettings();
  void about();
  void exportCheckpoint(const QString& preselectedRun = QString());
  void previewData();
  void showPlugins();
  void logPlugins();
  QString runRootPath() const;
  void raiseDock(const char* name);
  QString projectName() const;

  // MainWindowRun.cpp: the run (RunSession) on the panels.
  void connectRun();
  /// Empties the plots, images, status bar and learning-rate field of the last run.
  void clearRunView();
  void startRun();
  void stopRun();
  void askLearningRate();
  void onStateChanged(bridge::RunState state);
  void onRunStarted(const QString& runDir, qint64 stepsPerEpoch, qint64 samplesPerStep);
  void onMetrics(const bridge::MetricSamples& samples);
  void onRunEnded(bridge::RunState state, const QString& detail);
  /// Gives every run on the plots its Run History name and colour.
  void styleRuns();
  void onImagesRequested(const QString& runDir);

  // MainWindowFollow.cpp: runs followed through their run directory.
  void startLaunchedRun();
  /// Launches `processes` ranks of `projectFile` into `runDir` (`resume`: from its checkpoint).
  void launchRun(const QString& projectFile, const QString& runDir, int processes, bool resume);
  /// A new <run_root>/<name>/<time> that does not exist yet.
  QString newRunDirectory() const;
  void showMessage(QMessageBox::Icon icon, const QString& title, const QString& text);

  bridge::ProjectServices services_;
  RunSession* session_ = nullptr;
  Asker ask_;

  ProjectEditor* editor_ = nullptr;
  DeviceStrategyPanel* devices_ = nullptr;
  RunControls* controls_ = nullptr;
  ui::LivePlotWidget* plots_ = nullptr;
  ui::ImagePanel* images_ = nullptr;
  LogView* log_ = nullptr;
  RunHistoryPanel* history_ = nullptr;
  RunStatusBar* status_ = nullptr;
  ConfusionPanel* confusion_ = nullptr;
  ModelPanel* model_ = nullptr;
  SweepPanel* sweeps_ = nullptr;

  QAction* newAction_ = nullptr;
  QAction* openAction_ = nullptr;
  QAction* saveAction_ = nullptr;
  QAction* saveAsAction_ = nullptr;
  QAction* exportAction_ = nullptr;
  QAction* previewAction_ = nullptr;
  QAction* quitAction_ = nullptr;
  QAction* startAction_ = nullptr;
  QAction* stopAction_ = nullptr;
  QAction* pauseAction_ = nullptr;
  QAction* saveNowAction_ = nullptr;
  QAction* learningRateAction_ = nullptr;
  QAction* tryItAction_ = nullptr;
  QAction* aboutAction_ = nullptr;
  QAction* pluginsAction_ = nullptr;
  QMenu* templateMenu_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  QMenu* viewMenu_ = nullptr;

  QString projectPath_;
  QStringList recent_;
  RunCurves* curves_ = nullptr;  // past runs' curves: resumed, overlaid, a sweep's trials
  bool closeAfterRun_ = false;
};

}  // namespace tbench::gui
