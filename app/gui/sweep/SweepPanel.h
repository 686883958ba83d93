#pragma once
// SweepPanel: a sweep in the window (issue 27; docs/ARCHITECTURE.md §6f). Runs a sweep file as
// `towerbench-cli sweep FILE --sweep-dir DIR` (the same queue as on a server: the trials are
// processes of their own and keep running if the window closes; running the same file again
// adopts them), or opens a sweep directory started elsewhere, and follows its sweep-state.json
// (read by the engine through the bridge). It shows:
//   - the trials as a table: state (pruned with the band that stopped it), the metric's last
//     value, epochs, and one column per parameter; sortable by any column;
//   - a parallel-coordinates chart ("sweep.coordinates", QCustomPlot): one vertical axis per
//     parameter and one for the metric, each trial a line coloured by its metric (best green,
//     worst red; grey without one), pruned trials dashed;
//   - "Open Best as Project" (and a double-clicked row): the trial's project as a new project.
// Object names: "sweep.table", "sweep.coordinates", "sweep.summary", "sweep.openBest",
// "sweep.stop", "sweep.pause" (checkable: no trial starts while it is down; the running ones
// go on). GUI thread only.

#include <QProcess>
#include <QTimer>
#include <QWidget>

#include "app/bridge/RunDirectoryViews.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace tbench::gui {

class SweepPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kPollMs = 1000;

  /// `reader` reads a sweep directory's state; `pauser` pauses and resumes its queue.
  SweepPanel(bridge::SweepStateReader reader, bridge::SweepPauser pauser,
             QWidget* parent = nullptr);
  ~SweepPanel() override;

  /// Shows the sweep in `sweepDir` and follows it while its queue runs.
  void showSweep(const QString& sweepDir);
  /// Runs `sweepFile` with `cli` into `sweepDir`. False with `*error` when it cannot start.
  bool runSweep(const QString& cli, const QString& sweepFile, const QString& sweepDir,
                QString* error);
  /// Cancels the sweep this panel runs (SIGTERM: the queue stops its trials cleanly).
  void stop();
  bool isRunning() const { return process_.state() != QProcess::NotRunning; }

  QString sweepDir() const { return sweepDir_; }
  const bridge::SweepStateView& state() const { return state_; }
  /// The position in state().trials of the best trial (by its metric's last value), or -1.
  int bestTrial() const;
  /// Re-reads sweep-state.json now (the timer's work).
  void refresh();

 signals:
  /// The queue's output lines (what `towerbench-cli sweep` prints).
  void logLines(const QStringList& lines);
  /// Open the project trial `runDir` ran with (its project.json) as a new project.
  void openTrialAsProject(const QString& runDir);
  /// The sweep this panel ran ended with `exitCode`.
  void finished(int exitCode);

 private:
  void fillTable();
  void drawCoordinates();
  void readOutput();

  bridge::SweepStateReader reader_;
  bridge::SweepPauser pauser_;
  bridge::SweepStateView state_;
  QString sweepDir_;
  QProcess process_;
  QByteArray partial_;
  bool sortedOnce_ = false;
  QTimer timer_;
  QLabel* summary_;
  QTableWidget* table_;
  QCustomPlot* plot_;
  QPushButton* openBest_;
  QPushButton* stop_;
  QPushButton* pause_;
};

}  // namespace tbench::gui
