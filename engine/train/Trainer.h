#pragma once
// Trainer: the training loop (tensorpack's Trainer / TrainLoop).
//
//   train() = setupCallbacks (setupGraph of every callback and monitor)
//             + initialize() (derived trainers restore state here)
//             + the main loop:
//       beforeTrain
//       for epochNum in startingEpoch..maxEpoch:
//         beforeEpoch
//         for localStep in 0..stepsPerEpoch-1:   (a resumed run's first epoch starts at
//                                                 LoopOptions::startingLocalStep)
//           [commands from other threads run here; a stop request ends the loop here]
//           beforeRun, runStep(), ++globalStep, afterRun, triggerStep
//         onEpochStepsDone(), afterEpoch, triggerEpoch, onEpochTriggered(), the deferred
//         afterTriggers actions
//       afterTrain                         (always, see below)
//
// The counters follow TrainerContext.h. StopTraining thrown by a callback or a step ends the
// loop cleanly and train() returns normally (thrown in triggerEpoch: after the epoch's other
// callbacks and its deferred saves; in triggerStep: after the step's other callbacks, and its
// deferred saves except on an epoch's last step, whose saves wait for the epoch's triggers a
// stop skips: Note [A stop lets the hook finish]); any other
// exception propagates after afterTrain ran on every callback. train() runs once per trainer.
//
// Threads: train() and every hook run on the calling (engine) thread. requestStop(),
// setPaused() and post() may be called from any thread.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/callbacks/Callbacks.h"
#include "engine/callbacks/TrainerContext.h"
#include "engine/monitors/Monitors.h"

namespace tbench {

struct LoopOptions {
  int64_t stepsPerEpoch = 0;  ///< > 0
  int64_t startingEpoch = 1;
  int64_t maxEpoch = 1;
  /// The global step to start from; default (startingEpoch - 1) * stepsPerEpoch. A resumed
  /// run passes its checkpoint's (and is then resumed(), see TrainerContext).
  std::optional<int64_t> startingGlobalStep;
  /// Steps of startingEpoch already run: a run resumed from a mid-epoch checkpoint continues
  /// that epoch at this local step. In [0, stepsPerEpoch).
  int64_t startingLocalStep = 0;
};

class Trainer : public TrainerContext {
 public:
  Trainer();
  ~Trainer() override;
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Adds a callback; before train() only. Callbacks run in registration order, and the
  /// monitors after all of them.
  void registerCallback(CallbackPtr callback);
  /// Sets the monitors (default: none but the latest-value cache). Before train() only.
  void setMonitors(std::shared_ptr<Monitors> monitors);
  /// Makes a hyper-parameter visible to callbacks by its name.
  void registerHyperParam(std::shared_ptr<HyperParam> param);
  void setRunDir(std::string dir) { runDir_ = std::move(dir); }

  /// Runs the whole training. See the class comment.
  void train(const LoopOptions& options);

  // Commands, from any thread.
  void requestStop() override;
  bool stopRequested() const { return stopRequested_.load(); }
  /// While paused the loop waits at the next step boundary (commands still run). The loop logs
  /// "paused at global step N" when it starts waiting and "resumed at global step N" when it
  /// goes on; the wait counts in secondsPaused(), not in any rate.
  void setPaused(bool paused);
  /// Runs `command` on the engine thread at the next step boundary.
  void post(std::function<void()> command);
  /// Whether the loop ended before maxEpoch because of StopTraining or requestStop().
  bool stoppedEarly() const { return stoppedEarly_; }
  /// Whether the stop came from another rank's callback at an epoch's end (the stop vote,
  /// DistributedTrainer::onEpochTriggered): this rank's own callbacks did not ask for it.
  bool stoppedByAnotherRank() const { return stoppedByAnotherRank_; }

  /// The current value of every hyper-parameter, by name (what checkpoints keep).
  std::map<std::string, double> hyperParamValues() const;
  /// Sets hyper-parameters by name (a resumed run); names this trainer lacks are logged.
  void restoreHyperParamValues(const std::map<std::string, double>& values);
  /// Every callback's checkpointState() that is not empty, keyed by the callback's name
  /// (with "#2", "#3", ... for later callbacks of the same name).
  std::map<std::string, std::string> callbackStates() const;
  /// Gives each callback its state from `states` (keys as callbackStates()). Before train().
  void restoreCallbackStates(const std::map<std::string, std::string>& states);

  // TrainerContext
  int64_t epochNum() const override { return epochNum_; }
  int64_t globalStep() const override { return globalStep_; }
  int64_t localStep() const override { return localStep_; }
  int64_t stepsPerEpoch() const override { return options_.stepsPerEpoch; }
  int64_t startingEpoch() const override { return options_.startingEpoch; }
  int64_t maxEpoch() const override { return options_.maxEpoch; }
  int64_t samplesPerStep() const override { return 0; }
  bool resumed() const override { return options_.startingGlobalStep.has_value(); }
  int64_t stepsDoneInEpoch() const override { return globalStep_ - epochStartStep_; }
  double secondsInCallbacks() const override;
  /// Engine thread (callbacks); the wait in progress is not counted until it ends.
  double secondsPaused() const override { return secondsPaused_; }
  MonitorSink& monitors() override { return *monitors_; }
  HyperParam* hyperParam(const std::string& name) override;
  const std::string& runDir() const override { return runDir_; }
  /// A trainer without a model has nothing to save or run: both throw CheckError.
  void saveCheckpoint(const std::string& path) override;
  void afterTriggers(std::function<void()> action) override;
  std::map<std::string, torch::Tensor> runInference(const Datapoint& datapoint) override;
  std::vector<std::pair<std::string, torch::Tensor>> parameters() override { return {}; }
  bool trainingFailed() const override { return failed_; }

 protected:
  /// One iteration. Derived trainers decide what it is.
  virtual void runStep() = 0;
  /// After callbacks are set up, before beforeTrain: restore state, set the global step.
  virtual void initialize() {}
  /// Right after globalStep() counted the step just run, before afterRun: where a trainer puts
  /// the scalars of that step, so that they carry its global step (1 for the first step), as
  /// tensorpack's summaries do.
  virtual void onStepCounted() {}
  /// Puts the scalars of the steps run that onStepCounted kept unread (Note [Step scalars read
  /// in batches]). Called before the loop waits paused, when it ends (before afterTrain), and
  /// whenever a callback asks the monitors for a value.
  virtual void readStepScalars() {}
  /// After an epoch's last step, before afterEpoch and triggerEpoch (DistributedTrainer checks
  /// and aligns its ranks there, before validation and the savers see the state).
  virtual void onEpochStepsDone() {}
  /// After an epoch's triggerEpoch, before what afterTriggers deferred (the savers' writes):
  /// where DistributedTrainer gives every rank rank 0's hyper-parameters. `stopping`: a callback
  /// of this process ended training at this epoch (StopTraining); returns whether the run
  /// stops after it (DistributedTrainer: whether any rank does, so that all stop together).
  virtual bool onEpochTriggered(bool stopping) { return stopping; }
  const std::vector<CallbackPtr>& registeredCallbacks() const { return callbacks_; }
  /// Runs `hook`; a StopTraining it throws is returned, not thrown.
  static std::exception_ptr stopAfter(const std::function<void()>& hook);

 private:
  void mainLoop();
  void betweenSteps();

  LoopOptions options_;
  std::vector<CallbackPtr> callbacks_;
  std::shared_ptr<Monitors> monitors_;
  std::unique_ptr<Callbacks> group_;
  /// Note [Checkpoint after the triggers]: what afterTriggers was given, not yet run.
  std::vector<std::function<void()>> afterTriggers_;
  void runAfterTriggers();
  std::map<std::string, std::shared_ptr<HyperParam>> hyperParams_;
  std::string runDir_;
  bool trained_ = false;
  bool stoppedEarly_ = false;
  bool stoppedByAnotherRank_ = false;
  bool failed_ = false;

  int64_t epochNum_ = 0;
  int64_t globalStep_ = 0;
  int64_t localStep_ = 0;
  int64_t epochStartStep_ = 0;  // globalStep_ when the current epoch's first step began
  double secondsPaused_ = 0.0;  // engine thread: total of the finished pause waits

  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> paused_{false};
  std::atomic<bool> hasCommands_{false};
  std::mutex commandMutex_;  // guards commands_; paired with commandCv_ for pause
  std::condition_variable commandCv_;
  std::deque<std::function<void()>> commands_;
};

}  // namespace tbench
