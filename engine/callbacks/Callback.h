#pragma once
// Callback: code that runs at fixed points of training (tensorpack's Callback).
//
// Lifecycle, in order; each hook is public and non-virtual and calls a private virtual that
// does nothing by default:
//   setupGraph(context)                  once, before anything else
//   beforeTrain()                        once
//   per epoch:  beforeEpoch()
//     per step: beforeRun(), [the trainer's runStep()], afterRun(), triggerStep()
//               afterEpoch(), triggerEpoch()   (triggerEpoch calls trigger() by default)
//   afterTrain()                         once, always, even when training failed
// trigger() is "do your periodic thing"; decorators such as PeriodicTrigger call it on a
// schedule. All hooks run on the engine thread.

#include <string>

#include "engine/callbacks/TrainerContext.h"

namespace tbench {

class Callback {
 public:
  virtual ~Callback() = default;

  void setupGraph(TrainerContext& context);
  void beforeTrain() { onBeforeTrain(); }
  void beforeEpoch() { onBeforeEpoch(); }
  void beforeRun() { onBeforeRun(); }
  void afterRun() { onAfterRun(); }
  void triggerStep() { onTriggerStep(); }
  void afterEpoch() { onAfterEpoch(); }
  void triggerEpoch() { onTriggerEpoch(); }
  void trigger() { onTrigger(); }
  void afterTrain() { onAfterTrain(); }

  /// Shown in timings and errors. Defaults to the class name.
  virtual std::string name() const;
  /// Whether this callback has been set up (setupGraph called).
  bool isSetUp() const { return context_ != nullptr; }

  /// State that checkpoints keep so that a resumed run behaves as the uninterrupted one (a
  /// plateau detector's recent values), as text; empty (the default) for none. Engine thread.
  virtual std::string checkpointState() const { return {}; }
  /// Restores what checkpointState() returned, before training starts in a resumed run.
  /// Throws InputError when the text is not valid for this callback.
  virtual void restoreCheckpointState(const std::string& state) {}

 protected:
  /// The trainer's view. Valid from setupGraph on.
  TrainerContext& context() const;

 private:
  virtual void onSetupGraph() {}
  virtual void onBeforeTrain() {}
  virtual void onBeforeEpoch() {}
  virtual void onBeforeRun() {}
  virtual void onAfterRun() {}
  virtual void onTriggerStep() {}
  virtual void onAfterEpoch() {}
  virtual void onTriggerEpoch() { trigger(); }
  virtual void onTrigger() {}
  virtual void onAfterTrain() {}

  TrainerContext* context_ = nullptr;
};

using CallbackPtr = std::shared_ptr<Callback>;

}  // namespace tbench
