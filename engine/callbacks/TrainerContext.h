#pragma once
// TrainerContext: the narrow view of a trainer that callbacks get. Callbacks never see the
// trainer itself, which keeps callbacks, input sources and trainers free of cycles.
//
// Counters (tensorpack's meaning, in camelCase):
//  - epochNum(): the current epoch, 1-based. In beforeEpoch/afterEpoch/triggerEpoch of
//    epoch 3 it is 3. Before the first epoch (beforeTrain) it is startingEpoch() - 1, or
//    startingEpoch() in a run resumed inside that epoch.
//  - localStep(): the index of the current step within its epoch, 0-based; valid in
//    beforeRun, afterRun and triggerStep. In beforeEpoch it is the step the epoch starts at:
//    0, or, in a run resumed from a mid-epoch checkpoint, the first step still to run.
//  - stepsDoneInEpoch(): steps of epoch epochNum() run so far (globalStep() minus the global
//    step at which the epoch began); stepsPerEpoch() once the epoch is complete. Checkpoints
//    keep it, so that a resumed run continues the interrupted epoch at the next step.
//  - globalStep(): the number of steps run so far. It is incremented right after runStep(),
//    so it is 0 in beforeRun of the very first step and 1 in its afterRun and triggerStep.
//    A run that starts at epoch E > 1 without a checkpoint starts at (E-1) * stepsPerEpoch.
// All methods are called on the engine thread.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/callbacks/HyperParam.h"
#include "engine/callbacks/MonitorSink.h"
#include "engine/data/DataFlow.h"

namespace tbench {

class TrainerContext {
 public:
  virtual ~TrainerContext() = default;

  virtual int64_t epochNum() const = 0;
  virtual int64_t globalStep() const = 0;
  virtual int64_t localStep() const = 0;
  virtual int64_t stepsPerEpoch() const = 0;
  virtual int64_t startingEpoch() const = 0;
  virtual int64_t maxEpoch() const = 0;
  virtual int64_t stepsDoneInEpoch() const = 0;
  /// Whether this run continues another from a checkpoint (its counters, optimizer and
  /// hyper-parameters restored), rather than starting afresh.
  virtual bool resumed() const = 0;
  /// Samples consumed by one step over all towers (batch × towers).
  virtual int64_t samplesPerStep() const = 0;
  /// Seconds spent inside callbacks since training started (for throughput that excludes them).
  virtual double secondsInCallbacks() const = 0;
  /// Seconds the loop has waited paused since training started (rates and ETAs exclude them).
  /// 0 for contexts that cannot pause.
  virtual double secondsPaused() const { return 0.0; }

  virtual MonitorSink& monitors() = 0;
  /// The hyper-parameter called `name`, or nullptr.
  virtual HyperParam* hyperParam(const std::string& name) = 0;
  /// The run directory, or empty when the run writes no files.
  virtual const std::string& runDir() const = 0;

  /// Ends training at the next step boundary. Thread-safe.
  virtual void requestStop() = 0;

  /// Writes the trainer's state (model, optimizer, counters, RNG state) to `path` as a
  /// checkpoint (engine/checkpoint/Checkpoint.h), atomically. Throws std::runtime_error naming the
  /// path on failure; CheckError for a trainer without a model.
  virtual void saveCheckpoint(const std::string& path) = 0;
  /// Note [Checkpoint after the triggers]: runs `action` once every callback's trigger of this
  /// point has run: after beforeTrain (for a trigger there), after the step's triggerStep, or,
  /// on an epoch's last step and at an epoch's end, after the epoch's triggerEpoch. The savers
  /// write there, so that a checkpoint holds what the callbacks after them changed (a
  /// plateau's rate, its state) whatever their order, and an epoch's checkpoint is one a resume
  /// can treat as complete. Actions run in the order given; they are dropped when training
  /// fails or stops before that point (the savers' afterTrain save covers a stop). The default
  /// runs it at once.
  virtual void afterTriggers(std::function<void()> action) { action(); }

  /// Runs the model's inference tower on one datapoint of validation data (components matched
  /// to the model's inputs), in eval mode without gradients, with the current weights of the
  /// main tower. Returns the model's named inference outputs (see ModelDesc::inferenceOutputs).
  /// CheckError for a trainer without a model.
  virtual std::map<std::string, torch::Tensor> runInference(const Datapoint& datapoint) = 0;

  /// Note [Sharded validation]: this process's share of a validation pass, {shard, count}:
  /// batch i of a pass is this process's when i mod count == shard. {0, 1} in one process.
  virtual std::pair<int, int> validationShard() const { return {0, 1}; }
  /// At the start of a validation pass, which every process of a run starts at the same point:
  /// a distributed trainer gives every rank rank 0's buffers (BatchNorm statistics) there, so a
  /// pass between epoch ends validates rank 0's model too (issue 34, N9). Default: nothing.
  virtual void beforeValidation() {}
  /// Sums a float64 CPU tensor over the processes of the run, in place (nothing to do in one
  /// process). Every process calls it at the same point, with the same length.
  virtual void sumOverProcesses(torch::Tensor& totals) { (void)totals; }

  /// The main tower's parameters by name (empty for a trainer without a model).
  virtual std::vector<std::pair<std::string, torch::Tensor>> parameters() = 0;

  /// True in afterTrain when training ended with an exception other than StopTraining
  /// (callbacks then must not, for example, save the failed state as a checkpoint).
  virtual bool trainingFailed() const = 0;
};

}  // namespace tbench
