#pragma once
// RunSession: the window's live run, whichever way it runs (docs/ARCHITECTURE.md §2), as one
// model the window composes around:
//   - in this process: bridge::RunController trains on the engine thread (start());
//   - as ranks: `towerbench-cli launch` child processes (LaunchedRun), rank 0's run directory
//     followed for its metrics and run.json (launch());
//   - a run directory written elsewhere, followed (follow()).
// Whatever the kind, the window sees one state (bridge::RunState), one run directory and id,
// and the same signals: started, metrics, progress, ended, plus the log's lines and notes.
// Pausing, saving now and the live learning rate belong to an in-process run
// (controller()); stop() stops an in-process or launched run.
//
// No widget: tested without a window (tests/app/gui/run/test_RunSession.cpp). Qt only; GUI
// thread.

#include <QObject>
#include <QString>
#include <limits>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/RunController.h"

namespace tbench::gui {

class LaunchedRun;
class RunFollower;

class RunSession : public QObject {
  Q_OBJECT

 public:
  enum class Kind {
    None,       ///< nothing started or followed yet (or cleared)
    InProcess,  ///< trained by this process's engine thread
    Launched,   ///< ranks this window launched, followed through rank 0's directory
    Followed,   ///< a run directory written elsewhere
  };

  explicit RunSession(QObject* parent = nullptr);
  ~RunSession() override;

  /// Trains `options` on the engine thread. False with `*error` when it cannot start.
  bool start(const bridge::StartOptions& options, QString* error);
  /// Launches `processes` ranks of `projectFile` into `runDir` with `cli` (`resume`: from its
  /// latest checkpoint). False with `*error` when launch cannot start.
  bool launch(const QString& cli, const QString& projectFile, const QString& runDir, int processes,
              bool resume, QString* error);
  /// Follows `runDir`, a run directory written by another process; refused (false) while a
  /// run of this window's is active.
  bool follow(const QString& runDir);
  /// Stops an in-process run at its next step (`finalCheckpoint`: saving one when the project
  /// has no saver) or the launched ranks (each stops at the same step and saves). A followed run
  /// is not this window's to stop.
  void stop(bool finalCheckpoint);
  /// Forgets the last run (stops following one); refused (false) while a run is active.
  bool clear();

  Kind kind() const { return kind_; }
  bridge::RunState state() const { return state_; }
  /// An in-process or launched run is going (a followed one is not the window's).
  bool isActive() const;
  /// The run's directory and id (its directory name); empty before one started.
  QString runDir() const { return runDir_; }
  QString runId() const { return runId_; }
  /// The learning rate the engine last reported for an in-process run (NaN otherwise).
  double learningRate() const { return learningRate_; }

  bridge::RunController* controller() { return &controller_; }
  LaunchedRun* launched() const { return launched_; }
  RunFollower* follower() const { return follower_; }

 signals:
  void stateChanged(bridge::RunState state);
  /// A run began (started, launched or followed): its directory is known. `stepsPerEpoch` and
  /// `samplesPerStep` are the engine's (0 when unknown, as for a followed run).
  void started(const QString& runDir, qint64 stepsPerEpoch, qint64 samplesPerStep);
  void metrics(const bridge::MetricSamples& samples);
  void progress(const bridge::RunProgress& progress);
  /// The run ended: Finished, Stopped or Failed; `detail` is a failure's message (empty
  /// otherwise). stateChanged(state) follows.
  void ended(bridge::RunState state, const QString& detail);
  /// The engine's log lines or the ranks' output.
  void logLines(const QStringList& lines);
  /// What the session did or saw, for the log ("run directory ...", "launch ended ...").
  void note(const QString& text);
  /// A status-bar message (the ranks' states) for `timeoutMs` (0: until the next).
  void message(const QString& text, int timeoutMs);
  void checkpointSaved(const QString& path);
  void imageReceived(const bridge::ImageSample& image);

 private:
  void setState(bridge::RunState state);
  void begin(Kind kind, const QString& runDir);
  void onControllerState(bridge::RunState state);
  void onFollowedRead();
  void onFollowedEnded(bridge::RunState state);
  void onLaunchFinished(int exitCode);
  /// The progress of a followed or launched run from run.json and the newest step read.
  bridge::RunProgress followedProgress() const;

  bridge::RunController controller_;
  LaunchedRun* launched_ = nullptr;
  RunFollower* follower_ = nullptr;
  Kind kind_ = Kind::None;
  bridge::RunState state_ = bridge::RunState::Idle;
  QString runDir_;
  QString runId_;
  qint64 followedStep_ = 0;  // the newest step read from a followed or launched run
  double learningRate_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace tbench::gui
