#pragma once
// SweepPanel: a sweep in the window (issue 27; docs/ARCHITECTURE.md §6f), the Sweeps tab. Its
// SweepSession (SweepSession.h) runs a sweep file as `towerbench-cli sweep FILE --sweep-dir
// DIR`, or follows a sweep directory started elsewhere, and reads its sweep-state.json; the
// panel shows it:
//   - the summary (trials by state, the best one, whether its queue runs and where);
//   - the trials as a table (SweepTrialTable.h: state, metric, epochs, one column per
//     parameter; sortable by any column);
//   - a parallel-coordinates chart ("sweep.coordinates", widgets/ParallelCoordinates.h, drawn
//     from the state by SweepCoordinates.h): one vertical axis per parameter and one for the
//     metric, each trial a line coloured by its metric (best green, worst red; grey without
//     one), pruned trials dashed;
//   - brushing: dragging along an axis of the chart keeps the trials whose value lies in the
//     dragged range (the others' lines fade and their rows hide); a brush on every axis one
//     wants, all must hold; a click on an axis clears its brush, a double click all of them;
//   - the parameters' importance and correlation with the metric (the engine's), under the
//     chart;
//   - "Open Best as Project" (and a double-clicked row): the trial's project as a new project;
//   - "Run Next" and "Cancel Trial" on the selected trial: the queue starts it before the other
//     pending ones, or cancels it (stopped at a step when running) (control.json, Note [The
//     sweep queue]);
//   - "Curves on Plots" (checkable): every trial that has started on the window's live plots,
//     one colour and one chip in the run selector each, growing as their stats.json grows
//     (trialCurves, which the main window draws).
// Object names: "sweep.table", "sweep.coordinates", "sweep.summary", "sweep.openBest",
// "sweep.stop", "sweep.pause" (checkable: no trial starts while it is down; the running ones
// go on), "sweep.continue", "sweep.runNext", "sweep.cancelTrial", "sweep.curves",
// "sweep.importance", "sweep.importanceNote". GUI thread only.

#include <QMap>
#include <QPair>
#include <QWidget>

#include "app/bridge/RunDirectoryViews.h"
#include "app/gui/sweep/SweepSession.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace tbench::ui {
class ParallelCoordinates;
}

namespace tbench::gui {

class SweepTrialTable;

class SweepPanel : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kPollMs = SweepSession::kPollMs;

  /// `reader` reads a sweep directory's state; `pauser` pauses and resumes its queue.
  SweepPanel(bridge::SweepStateReader reader, bridge::SweepPauser pauser,
             QWidget* parent = nullptr);

  /// Shows the sweep in `sweepDir` and follows it while its queue runs.
  void showSweep(const QString& sweepDir) { session_.follow(sweepDir); }
  /// Runs `sweepFile` with towerbench-cli (CliProcess::defaultCli) into `sweepDir` (empty: the
  /// engine's default, sweeps/<name> beside the file, as `towerbench-cli sweep` chooses: running
  /// the same file again, here or with the CLI, goes on with it). False with `*error` when it
  /// cannot start.
  bool runSweep(const QString& sweepFile, const QString& sweepDir, QString* error) {
    return session_.runFile(sweepFile, sweepDir, error);
  }
  /// Cancels the sweep this panel runs (SIGTERM: the queue stops its trials cleanly), or the
  /// queue outside the window that its state names.
  void stop() { session_.stop(); }
  bool isRunning() const { return session_.isRunning(); }
  /// Closing the window: the queue goes on without it (its output is no longer read; the CLI
  /// ignores the broken pipe), and File ▸ Open Sweep… shows it again.
  void keepRunningAfterClose() { session_.keepRunningAfterClose(); }
  /// Stops the queue (its trials stop at a step, keeping their checkpoints) and waits up to
  /// `ms` for it to record that; false when it is still running.
  bool stopAndWait(int ms) { return session_.stopAndWait(ms); }

  QString sweepDir() const { return session_.sweepDir(); }
  const bridge::SweepStateView& state() const { return session_.state(); }
  /// The position in state().trials of the best trial (by its metric's last value), or -1.
  int bestTrial() const { return session_.bestTrial(); }
  /// Re-reads sweep-state.json now (the timer's work).
  void refresh() { session_.refresh(); }
  /// How Run Next and Cancel Trial reach the queue.
  void setTrialRequests(bridge::SweepTrialRequest runNext, bridge::SweepTrialRequest cancel);

  /// Keeps the trials whose position on chart axis `axis` (0 .. parameters, the metric last;
  /// positions in [0, 1], as drawn) lies in [low, high]; what a drag along the axis does.
  void setBrush(int axis, double low, double high);
  /// Removes the brush of `axis` (-1: every brush).
  void clearBrush(int axis = -1);
  /// The brushes, axis -> [low, high].
  const QMap<int, QPair<double, double>>& brushes() const;
  /// Whether the trial at `position` in state().trials passes every brush.
  bool passesBrushes(int position) const;

 signals:
  /// The queue's output lines (what `towerbench-cli sweep` prints).
  void logLines(const QStringList& lines);
  /// Open the project trial `runDir` ran with (its project.json) as a new project.
  void openTrialAsProject(const QString& runDir);
  /// At every refresh: what the sweep is doing, for the status bar ("Sweep: 3 of 8 trials
  /// ended, 2 running") and the share of its trials ended; -1 when its queue is not running.
  void sweepProgress(const QString& text, int percent);
  /// Continue Sweep: run `sweepFile` again in `sweepDir` (its queue is not running).
  void continueSweep(const QString& sweepFile, const QString& sweepDir);
  /// The sweep this panel ran ended with `exitCode`.
  void finished(int exitCode);
  /// The trials to draw on the live plots (run directories and names; empty: none), at every
  /// refresh while Curves on Plots is down.
  void trialCurves(const QStringList& runDirs, const QStringList& names);

 private:
  /// The session read `state`: the summary, buttons, table, importance and chart follow it.
  void showState(const bridge::SweepStateView& state);
  void fillImportance();
  void applyBrushes();
  void updateTrialButtons();
  void emitCurves();
  /// The position in state().trials of the trial with index `trial`, or -1.
  int positionOf(qint64 trial) const;
  /// The position in state().trials of the table's selected trial, or -1.
  int selectedTrial() const;

  bridge::SweepPauser pauser_;
  bridge::SweepTrialRequest runNext_, cancelTrial_;
  /// A member: destroyed (stopping the queue unless kept running) before the widgets are.
  SweepSession session_;
  QLabel* summary_;
  SweepTrialTable* table_;
  ui::ParallelCoordinates* coordinates_;
  QPushButton* continue_;
  QTableWidget* importance_;  ///< parameter, importance, correlation (the engine's)
  QLabel* importanceNote_;
  QPushButton* openBest_;
  QPushButton* stop_;
  QPushButton* pause_;
  QPushButton* runNextButton_;
  QPushButton* cancelTrialButton_;
  QPushButton* curves_;
};

}  // namespace tbench::gui
