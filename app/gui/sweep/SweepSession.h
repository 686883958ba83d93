#pragma once
// SweepSession: the sweep the Sweeps tab follows (docs/ARCHITECTURE.md §6f), as a model without
// widgets. It runs a sweep file as `towerbench-cli sweep FILE --sweep-dir DIR` (the same queue
// as on a server: the trials are processes of their own and keep running if the window closes;
// running the same file again adopts them), or follows a sweep directory started elsewhere,
// and reads its sweep-state.json (through the engine's reader, bridge::SweepStateReader) every
// kPollMs while the queue runs or a trial is pending or running.
//
// Owns the queue's process (run(), a CliProcess that outlives the window when asked): its
// output lines go to logLines(); it is stopped with
// SIGTERM (stop(), stopAndWait(), and the destructor unless keepRunningAfterClose()). A queue
// outside this process (the CLI, or a window closed with "keep it running") is stopped through
// the pid its state records.
//
// No widget: QtCore only (app/gui/sweep/SweepPanel.h shows it; tested without a window in
// tests/app/gui/test_SweepSession.cpp). GUI thread.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "app/bridge/RunDirectoryViews.h"
#include "app/gui/run/CliProcess.h"

namespace tbench::gui {

class SweepSession : public QObject {
  Q_OBJECT

 public:
  static constexpr int kPollMs = 1000;

  /// `reader` reads a sweep directory's state.
  explicit SweepSession(bridge::SweepStateReader reader, QObject* parent = nullptr);
  /// Stops the queue it runs and waits for it (up to 10 s), unless keepRunningAfterClose().
  ~SweepSession() override;

  /// Follows the sweep in `sweepDir` (reads it now, then while its queue runs). Refused (false,
  /// said in logLines) while this session's queue runs another sweep.
  bool follow(const QString& sweepDir);
  /// Runs `sweepFile` with `cli` into `sweepDir`, then follows it. False with `*error` when it
  /// cannot start or a queue of this session's is running.
  bool run(const QString& cli, const QString& sweepFile, const QString& sweepDir, QString* error);
  /// Runs `sweepFile` with towerbench-cli (CliProcess::defaultCli) into `sweepDir`, or when
  /// that is empty the engine's default (sweeps/<name> beside the file, as the CLI chooses).
  bool runFile(const QString& sweepFile, const QString& sweepDir, QString* error);
  /// Cancels the sweep: SIGTERM to this session's queue (it stops its trials cleanly), or to
  /// the queue outside this process that the state names.
  void stop();
  /// Whether this session's queue process runs.
  bool isRunning() const;
  /// The window closes: the queue goes on without it (its output is no longer read; the CLI
  /// ignores the broken pipe); the destructor leaves it running.
  void keepRunningAfterClose();
  /// Stops the queue (its trials stop at a step, keeping their checkpoints) and waits up to
  /// `ms` for it to record that; false when it is still running.
  bool stopAndWait(int ms);

  /// The followed directory (absolute); empty before one.
  QString sweepDir() const { return sweepDir_; }
  const bridge::SweepStateView& state() const { return state_; }
  /// Whether a trial of the state is pending or running (polling goes on while one is).
  bool busy() const;
  /// The queue runs: this session's, or one outside it that the state names.
  bool queueRuns() const { return isRunning() || state_.queuePid > 0; }
  /// The position in state().trials of the best trial (the engine's ranking), or -1.
  int bestTrial() const;
  /// Re-reads sweep-state.json now (the timer's work) and emits stateChanged.
  void refresh();

 signals:
  /// The state was read (also when absent or unreadable: `state.present`, `state.error`).
  void stateChanged(const bridge::SweepStateView& state);
  /// Before stateChanged, when the state was read whole: what the sweep is doing ("Sweep: 3 of
  /// 8 trials ended, 2 running") and the share of its trials ended; -1 when its queue does not
  /// run.
  void progress(const QString& text, int percent);
  /// The queue's output lines (what `towerbench-cli sweep` prints), and the session's notes.
  void logLines(const QStringList& lines);
  /// Another sweep directory is followed from now on (its state not read yet).
  void sweepDirChanged(const QString& sweepDir);
  /// The queue process started (true; before the state is first read) or ended (false; before
  /// the last read of the state and finished()).
  void runningChanged(bool running);
  /// The queue this session ran ended with `exitCode` (CliProcess::exitStatus: 128 + the
  /// signal's number when one ended it).
  void finished(int exitCode);

 private:
  void setSweepDir(const QString& sweepDir);

  bridge::SweepStateReader reader_;
  bridge::SweepStateView state_;
  QString sweepDir_;
  CliProcess* process_;  // the queue (a child QObject; it outlives the window when kept)
  bool keepRunning_ = false;
  QTimer timer_;
};

}  // namespace tbench::gui
