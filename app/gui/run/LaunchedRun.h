#pragma once
// LaunchedRun: a distributed run the window starts as child processes, the way a user would
// from a shell: `towerbench-cli launch --nproc-per-node N PROJECT --run-dir DIR` (which starts
// the N ranks with the torchrun variables and merges their output, "[rank R] ..."). The window
// follows rank 0's metrics through the run directory (RunFollower); this class owns the
// process, turns its output into log lines and each rank's state, and stops it: Stop sends
// SIGTERM, which launch forwards to every rank, and each rank stops at the same step boundary
// (the distributed strategy votes on it) and saves; a launch still there after kStopGraceMs is
// killed. A window that is killed or crashes stops them the same way: launch gets SIGHUP
// (PR_SET_PDEATHSIG) and forwards a stop. The process and its lines are a CliProcess (one
// exit-status mapping for the window). Qt only; GUI thread.

#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QVector>

#include "app/bridge/BridgeTypes.h"
#include "app/gui/run/CliProcess.h"

namespace tbench::gui {

struct RankState {
  int rank = 0;
  /// Starting until its first line; Running; then Finished (status 0), Stopped (130, the CLI's
  /// status for a stop) or Failed (any other status, or the launch ended before it said).
  bridge::RunState state = bridge::RunState::Starting;
  int exitStatus = -1;  ///< its exit status as launch reported it; -1 when it did not
  QString lastLine;     ///< its latest output line
  /// "running", "failed (status 3)", "failed (ended with launch)", ...
  QString stateText() const;
};

class LaunchedRun : public QObject {
  Q_OBJECT
 public:
  static constexpr int kStopGraceMs = 60 * 1000;

  explicit LaunchedRun(QObject* parent = nullptr);
  ~LaunchedRun() override;

  /// Starts `cli launch --nproc-per-node processes projectPath --run-dir runDir [--resume]`.
  /// False with `*error` when it cannot start (no such program, already running).
  bool start(const QString& cli, const QString& projectPath, const QString& runDir, int processes,
             QString* error = nullptr, bool resume = false);
  /// Asks every rank to stop (SIGTERM to launch, forwarded); kills after kStopGraceMs.
  void stop();
  bool isActive() const;
  bool stopping() const { return stopping_; }
  const QVector<RankState>& ranks() const { return ranks_; }
  /// "rank 0 running · rank 1 running".
  QString rankSummary() const;
  /// launch's exit status (the worst of the ranks'), -1 before it ended.
  int exitCode() const { return exitCode_; }

 signals:
  /// Output lines, as launch printed them.
  void logLines(const QStringList& lines);
  void ranksChanged();
  /// launch ended with `exitCode` (a crash or a kill gives a non-zero code).
  void finished(int exitCode);

 private:
  void handleLine(const QString& line);
  RankState& rankAt(int rank);

  CliProcess* process_;  // a child: stops the ranks when this run is destroyed
  QTimer graceTimer_;    // Stop's kStopGraceMs, of this run only
  QVector<RankState> ranks_;
  bool stopping_ = false;
  int exitCode_ = -1;
};

}  // namespace tbench::gui
