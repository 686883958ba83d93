#pragma once
// RunHistoryPanel: the runs of the current project (<runRoot>/<project>/*), newest first, with
// their status, progress, key metrics and checkpoints. Checking a run's "overlay" box asks the
// main window to draw its stats.json series over the live charts (overlayChanged); the context
// menu opens the run's folder, asks for a checkpoint export (exportRequested) or for the images
// the run wrote (imagesRequested; enabled when it has an images/ folder).
//
// The panel follows the disk by itself: a QFileSystemWatcher on the project's run folder and
// on every run directory triggers a refresh, coalesced to at most one per kRefreshDelayMs, and
// a run that looks live is re-read every kLiveRefreshMs so that a run that died turns
// "unknown" (Note [Run status] in RunDirectoryInfo.h). A refresh re-reads only the runs whose
// files changed. GUI thread only; reading is synchronous (a run's files are small).
//
// Object names: "runTable", "refreshButton", "runRootLabel"; context-menu actions
// "openFolderAction", "exportCheckpointAction", "showImagesAction", "overlayAction".

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "app/gui/history/RunDirectoryInfo.h"

class QFileSystemWatcher;
class QLabel;
class QMenu;
class QTableWidget;
class QTableWidgetItem;
class QTimer;

namespace tbench::gui {

class RunHistoryPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kRefreshDelayMs = 300;
  static constexpr int kLiveRefreshMs = 30 * 1000;

  explicit RunHistoryPanel(QWidget* parent = nullptr);

  /// Shows the runs under <runRoot>/<projectName> (refreshes at once). The overlay selection is
  /// kept for runs that are still listed; overlayChanged is emitted if it shrinks.
  void setRunRoot(const QString& runRoot, const QString& projectName);
  QString runRoot() const { return runRoot_; }
  QString projectName() const { return projectName_; }

  /// The run the window is training right now (shown as running whatever its files say); empty
  /// for none.
  void setLiveRun(const QString& runDir);

  /// The run directories whose overlay box is checked, in table order.
  QStringList selectedRuns() const;
  /// Checks exactly these runs' overlay boxes (those listed); emits overlayChanged on a change.
  void setSelectedRuns(const QStringList& runDirs);

  /// Re-reads the run folder now.
  void refresh();
  int runCount() const { return runs_.size(); }
  /// The runs as shown, newest first.
  const QVector<RunDirectoryInfo>& runs() const { return runs_; }
  /// The run directory of table row `row`, or empty.
  QString runDirAt(int row) const;

  /// The context menu of table row `row` (owned by the caller). Public for tests.
  QMenu* createContextMenu(int row, QWidget* parent);

 signals:
  /// The overlay selection changed; `runDirs` is selectedRuns().
  void overlayChanged(const QStringList& runDirs);
  /// "Export checkpoint…" was chosen for `runDir`.
  void exportRequested(const QString& runDir);
  /// "Show images" was chosen for `runDir`.
  void imagesRequested(const QString& runDir);
  /// "Show confusion matrix" was chosen for `runDir`.
  void confusionRequested(const QString& runDir);
  /// "Try it…" was chosen for `runDir`.
  void tryItRequested(const QString& runDir);

 private:
  void scheduleRefresh();
  void rebuildTable();
  void updateWatchedPaths();
  void onItemChanged(QTableWidgetItem* item);
  void showContextMenu(const QPoint& pos);
  QStringList metricColumns() const;
  QString fileSignature(const QString& runDir) const;

  QString runRoot_;
  QString projectName_;
  QString liveRun_;
  QVector<RunDirectoryInfo> runs_;
  QStringList overlay_;                 // checked run dirs, as last emitted
  QHash<QString, QString> signatures_;  // run dir -> files' sizes and times when last read
  QTableWidget* table_ = nullptr;
  QLabel* rootLabel_ = nullptr;
  QFileSystemWatcher* watcher_ = nullptr;
  QTimer* refreshTimer_ = nullptr;  // coalesces watcher bursts
  QTimer* liveTimer_ = nullptr;     // re-reads while a run looks live
  bool rebuilding_ = false;         // itemChanged during a rebuild is not the user
};

}  // namespace tbench::gui
