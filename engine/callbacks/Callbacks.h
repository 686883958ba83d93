#pragma once
// Callbacks: runs a list of callbacks in order, as one callback.
//
// - Times every callback (wall time in every hook) and logs at the end of an epoch the ones
//   that took noticeable time, like tensorpack's CallbackTimeLogger.
// - afterTrain runs on every callback even when some throw; the first exception is rethrown
//   after all have run.
// - StopTraining from a callback lets the others of the same hook run before it is rethrown
//   (Note [A stop lets the hook finish], Callbacks.cpp).
// - secondsInCallbacks() is the total time spent in hooks, used to exclude it from throughput
//   (less the trainer's work a hook waited for: notInCallbacks).

#include <chrono>
#include <exception>
#include <vector>

#include "engine/callbacks/Callback.h"

namespace tbench {

class Callbacks : public Callback {
 public:
  explicit Callbacks(std::vector<CallbackPtr> callbacks);
  const std::vector<CallbackPtr>& callbacks() const { return callbacks_; }
  /// Total wall time spent in the hooks of the callbacks since setupGraph, the hook running now
  /// included up to this moment: a callback that reads it and restarts its own clock inside its
  /// hook (ThroughputTracker) must not later see the part of that hook run before the read.
  double secondsInCallbacks() const;
  /// `seconds` of the hook running now were the trainer's work, not the callback's: the
  /// step's values read from the device when a callback asked for one (their wait is the
  /// queued steps' device time, Trainer::mainLoop), so throughput does not exclude them.
  void notInCallbacks(double seconds);
  std::string name() const override { return "Callbacks"; }

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override;
  void onBeforeEpoch() override;
  void onBeforeRun() override;
  void onAfterRun() override;
  void onTriggerStep() override;
  void onAfterEpoch() override;
  void onTriggerEpoch() override;
  void onTrigger() override;
  void onAfterTrain() override;

  template <typename Hook>
  /// Runs `hook` on every callback; returns the first StopTraining, after all of them ran.
  std::exception_ptr forEach(Hook hook);
  void logEpochTimes();

  std::vector<CallbackPtr> callbacks_;
  std::vector<double> epochSeconds_;  ///< time per callback in the current epoch
  double total_ = 0;
  bool inHook_ = false;
  double hookNotCallbacks_ = 0;  ///< notInCallbacks's seconds in the hook running now
  std::chrono::steady_clock::time_point hookStart_;
};

}  // namespace tbench
