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
//   - brushing: dragging along an axis of the chart keeps the trials whose value lies in the
//     dragged range (the others' lines fade and their rows hide); a brush on every axis one
//     wants, all must hold; a click on an axis clears its brush, a double click all of them;
//   - "Open Best as Project" (and a double-clicked row): the trial's project as a new project;
//   - "Run Next" and "Cancel Trial" on the selected trial: the queue starts it before the other
//     pending ones, or cancels it (stopped at a step when running) (control.json, Note [The
//     sweep queue]);
//   - "Curves on Plots" (checkable): every trial that has started on the window's live plots,
//     one colour and one chip in the run selector each, growing as their stats.json grows
//     (trialCurves, which the main window draws).
// Object names: "sweep.table", "sweep.coordinates", "sweep.summary", "sweep.openBest",
// "sweep.stop", "sweep.pause" (checkable: no trial starts while it is down; the running ones
// go on), "sweep.runNext", "sweep.cancelTrial", "sweep.curves". GUI thread only.

#include <QMap>
#include <QPair>
#include <QProcess>
#include <QTimer>
#include <QWidget>
#include <vector>

#include "app/bridge/RunDirectoryViews.h"

class QCustomPlot;
class QLabel;
class QMouseEvent;
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
  bool isRunning() const { return process_->state() != QProcess::NotRunning; }
  /// Closing the window: the queue goes on without it (its output is no longer read; the CLI
  /// ignores the broken pipe), and File ▸ Open Sweep… shows it again.
  void keepRunningAfterClose() { keepRunning_ = true; }
  /// Stops the queue (its trials stop at a step, keeping their checkpoints) and waits up to
  /// `ms` for it to record that; false when it is still running.
  bool stopAndWait(int ms);

  QString sweepDir() const { return sweepDir_; }
  const bridge::SweepStateView& state() const { return state_; }
  /// The position in state().trials of the best trial (by its metric's last value), or -1.
  int bestTrial() const;
  /// Re-reads sweep-state.json now (the timer's work).
  void refresh();
  /// How Run Next and Cancel Trial reach the queue.
  void setTrialRequests(bridge::SweepTrialRequest runNext, bridge::SweepTrialRequest cancel);

  /// Keeps the trials whose position on chart axis `axis` (0 .. parameters, the metric last;
  /// positions in [0, 1], as drawn) lies in [low, high]; what a drag along the axis does.
  void setBrush(int axis, double low, double high);
  /// Removes the brush of `axis` (-1: every brush).
  void clearBrush(int axis = -1);
  /// The brushes, axis -> [low, high].
  const QMap<int, QPair<double, double>>& brushes() const { return brushes_; }
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
  void fillTable();
  void fillImportance();
  void applyBrushes();
  void drawCoordinates();
  void readOutput();
  void updateTrialButtons();
  void emitCurves();
  /// The position in state().trials of the table's selected trial, or -1.
  int selectedTrial() const;
  /// Chart events: a drag along an axis brushes it.
  void onPlotPress(QMouseEvent* event);
  void onPlotMove(QMouseEvent* event);
  void onPlotRelease(QMouseEvent* event);

  bridge::SweepStateReader reader_;
  bridge::SweepPauser pauser_;
  bridge::SweepTrialRequest runNext_, cancelTrial_;
  QMap<int, QPair<double, double>> brushes_;
  std::vector<std::vector<double>> positions_;  // per trial, per axis: [0, 1] or NaN
  int brushAxis_ = -1;                          // the axis being dragged along
  double brushFrom_ = 0;
  bridge::SweepStateView state_;
  QString sweepDir_;
  /// Not a member object: its destructor would SIGKILL the queue, which keepRunningAfterClose
  /// must not (the panel then leaves it running).
  QProcess* process_ = new QProcess;
  bool keepRunning_ = false;
  QByteArray partial_;
  bool sortedOnce_ = false;
  QTimer timer_;
  QLabel* summary_;
  QTableWidget* table_;
  QCustomPlot* plot_;
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
