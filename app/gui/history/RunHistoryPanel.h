#pragma once
// RunHistoryPanel: the runs of the current project (<runRoot>/<project>/*), a table to tell
// them apart and compare them (RunComparison.h). One row per run, newest first until a header
// is clicked (then sorted by that column, numbers as numbers; again to reverse):
//
//   Overlay (with the run's colour) | Run (its label, else its id; editable) | Notes (editable,
//   #tags) | Status | Epoch | Step | the hyper-parameters that differ between the listed runs |
//   Best <watched metric> | Duration | Strategy (strategy × towers) | Checkpoints | Started
//
// Label and notes are saved in the run directory (RunAnnotations.h). The filter field keeps
// the rows that contain every word typed (in any cell, tags and the run id included). The
// watched metric is chosen above the table (default: defaultWatchedMetric).
//
// Each run has a colour of its own: Palette::categorical of its position among the project's
// runs, oldest first, so a run keeps its colour as runs are added, whichever are overlaid
// (runColour). Checking a run's "overlay" box asks the main window to draw its stats.json
// series over the live charts (overlayChanged); runAppearanceChanged says that names or
// colours may have changed. The context menu opens the run's folder, resumes it from its
// latest checkpoint (resumeRequested), clones its project.json into a new project
// (cloneRequested), asks for a checkpoint export (exportRequested), for the images the run
// wrote (imagesRequested), its confusion matrix or Try it.
//
// The panel follows the disk by itself: a QFileSystemWatcher on the project's run folder and
// on every run directory triggers a refresh, coalesced to at most one per kRefreshDelayMs, and
// a run that looks live is re-read every kLiveRefreshMs so that a run that died turns
// "unknown" (Note [Run status] in RunDirectoryInfo.h). A refresh re-reads only the runs whose
// files changed. GUI thread only; reading is synchronous (a run's files are small).
//
// Object names: "runTable", "refreshButton", "runRootLabel", "runFilter", "watchedMetric";
// context-menu actions "openFolderAction", "resumeAction", "cloneAction",
// "exportCheckpointAction", "showImagesAction", "showConfusionAction", "tryItAction",
// "overlayAction".

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "app/gui/rundir/RunDirectoryInfo.h"

class QComboBox;
class QFileSystemWatcher;
class QLabel;
class QLineEdit;
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
  /// The run directory of table row `row` (as shown, after sorting), or empty.
  QString runDirAt(int row) const;
  /// The table row showing `runDir`, or -1.
  int rowOf(const QString& runDir) const;
  /// The run's colour (see above); the first categorical colour for a run not listed.
  QColor runColour(const QString& runDir) const;
  /// The run's label, else its id; the directory's name for a run not listed.
  QString runName(const QString& runDir) const;

  /// Keeps the rows containing every word of `text` (case-insensitive); empty shows all.
  void setFilterText(const QString& text);
  /// The rows not hidden by the filter.
  int visibleRunCount() const;
  /// Compares runs by `metric` (an empty name: the default). The Best column follows.
  void setWatchedMetric(const QString& metric);
  QString watchedMetric() const { return watched_; }
  /// Sorts by the column titled `header` (as clicking it does); an unknown title unsorts.
  void sortByColumn(const QString& header, Qt::SortOrder order);
  /// The column titles, as shown.
  QStringList columnHeaders() const;
  /// Saves a run's label and notes (as editing the cells does); false with a message on error.
  bool annotate(const QString& runDir, const QString& label, const QString& notes,
                QString* error = nullptr);

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
  /// "Resume" was chosen for `runDir`.
  void resumeRequested(const QString& runDir);
  /// "Clone into a new project" was chosen for `runDir`.
  void cloneRequested(const QString& runDir);
  /// Run names (labels) or colours may have changed: the plots restyle their runs.
  void runAppearanceChanged();

 private:
  void scheduleRefresh();
  void rebuildTable();
  void updateWatchedPaths();
  void onItemChanged(QTableWidgetItem* item);
  void onHeaderClicked(int column);
  void applySort();
  void applyFilter();
  void updateRootLabel();
  void updateMetricChoices();
  void showContextMenu(const QPoint& pos);
  QString fileSignature(const QString& runDir) const;
  const RunDirectoryInfo* runOf(const QString& runDir) const;

  QString runRoot_;
  QString projectName_;
  QString liveRun_;
  QVector<RunDirectoryInfo> runs_;
  QStringList overlay_;                 // checked run dirs, as last emitted
  QHash<QString, QString> signatures_;  // run dir -> files' sizes and times when last read
  QString watched_;                     // the metric chosen by the user; empty: the default
  QString sortHeader_;                  // the column sorted by; empty: newest first
  Qt::SortOrder sortOrder_ = Qt::AscendingOrder;
  QString appearance_;  // names and colours when runAppearanceChanged was last emitted
  QTableWidget* table_ = nullptr;
  QLabel* rootLabel_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QComboBox* metricBox_ = nullptr;
  QFileSystemWatcher* watcher_ = nullptr;
  QTimer* refreshTimer_ = nullptr;  // coalesces watcher bursts
  QTimer* liveTimer_ = nullptr;     // re-reads while a run looks live
  bool rebuilding_ = false;         // itemChanged during a rebuild is not the user
};

}  // namespace tbench::gui
