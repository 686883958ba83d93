#pragma once
// RunController: runs one project at a time on the engine thread and reports to the GUI
// thread with signals (docs/ARCHITECTURE.md §2, "threads and events").
//
//   bridge::RunController runs;
//   connect(&runs, &RunController::metrics, plots, ...);
//   runs.start({projectText, projectPath});
//   ...  runs.setLearningRate(3e-4);  runs.stop(/*saveFinalCheckpoint=*/true);
//
// start() returns at once; the engine thread parses the project, prepares the run directory
// (log.log, project.json), builds data, model and towers and trains, exactly as
// `towerbench-cli train` does. Commands (stop, pause, save now, learning rate) go through the
// trainer's command queue and take effect at the next step boundary. Everything the engine
// reports is batched in a RunMailbox and emitted here, in the order it happened, at most every
// kDrainMs; failures of setup or training become runFailed and never take the window down.
//
// Signals, in order for one run: stateChanged(Starting), runStarted, stateChanged(Running),
// any number of metrics / progress / logLines / imageReceived / checkpointSaved, then
// runFinished or runFailed, then stateChanged(Finished or Failed). GUI thread only (except
// globalStep()).

#include <QEvent>
#include <QObject>
#include <QTimer>
#include <memory>

#include "app/bridge/BridgeTypes.h"

class QThread;

namespace tbench::bridge {

struct StartOptions {
  QString projectText;  ///< the project document (JSON), as edited
  QString projectPath;  ///< names the document in messages and in log.log; may be empty
  QString runDir;       ///< empty: a new <run_root>/<name>/<run id>
  /// Continue `runDir` (empty: the project's newest run) from its latest checkpoint.
  bool resume = false;
};

class RunMailbox;
struct EngineRun;  // what the GUI and engine threads share (RunController.cpp)

class RunController : public QObject {
  Q_OBJECT

 public:
  /// Longest time between an engine event and its signal; also the shortest between drains.
  static constexpr int kDrainMs = 40;

  explicit RunController(QObject* parent = nullptr);
  /// Stops a run that is still going and waits for the engine thread.
  ~RunController() override;

  /// Starts a run. Returns false (with `*error`) when a run is already active.
  bool start(const StartOptions& options, QString* error = nullptr);
  /// Ends the run at the next step boundary; afterTrain runs on every callback. With
  /// `saveFinalCheckpoint` the state at that step is saved first (the project's model_saver
  /// saves it anyway when it has one).
  void stop(bool saveFinalCheckpoint = false);
  void setPaused(bool paused);
  /// Saves a checkpoint at the next step boundary (through the project's model_saver, so
  /// retention and the index stay right; as model-<step>.pt in the run directory otherwise).
  void saveCheckpointNow();
  /// Sets the optimizer's learning rate at the next step boundary (logged, and put as the
  /// "learning_rate" scalar). A schedule in the project sets it again at its next point.
  void setLearningRate(double value);
  /// Note [Live commands]: why `text` is no value for hyper-parameter `name` during a run
  /// (empty when it is): the engine's rule (live::valueProblem), for every field and dialog of
  /// the window. `value` receives the number when there is no problem.
  static QString liveValueProblem(const QString& name, const QString& text,
                                  double* value = nullptr);

  RunState state() const { return state_; }
  /// Starting, Running, Paused or Stopping.
  bool isActive() const;
  /// The run directory of the current or last run (empty before runStarted).
  QString runDir() const { return runDir_; }
  /// The engine's global step after its last finished step. Any thread.
  qint64 globalStep() const;
  /// Blocks until the engine thread has ended (or `timeoutMs` passed), then delivers what it
  /// reported. Returns whether it ended. For tests and for closing the window.
  bool waitForEnd(int timeoutMs);

 signals:
  void stateChanged(tbench::bridge::RunState state);
  void runStarted(const QString& runDir, qint64 stepsPerEpoch, qint64 maxEpoch,
                  qint64 samplesPerStep);
  void metrics(const tbench::bridge::MetricSamples& samples);
  void progress(const tbench::bridge::RunProgress& progress);
  void logLines(const QStringList& lines);
  /// One image put by the run (MonitorSink::putImage), in the order put; every one is
  /// delivered.
  void imageReceived(const tbench::bridge::ImageSample& image);
  void checkpointSaved(const QString& path);
  void runFinished(bool stoppedEarly);
  void runFailed(const QString& message);

 protected:
  bool event(QEvent* event) override;

 private:
  /// The event the mailbox posts for its first append after a drain.
  static QEvent::Type wakeEventType();
  void scheduleDrain();
  void drain();
  void setState(RunState state);

  std::shared_ptr<EngineRun> engine_;  // shared with the engine thread's function
  QThread* thread_ = nullptr;
  QTimer drainTimer_;
  RunState state_ = RunState::Idle;
  bool pauseRequested_ = false;
  QString runDir_;
};

}  // namespace tbench::bridge
