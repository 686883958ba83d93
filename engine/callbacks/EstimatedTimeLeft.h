#pragma once
// EstimatedTimeLeft: logs the estimated time to the end of training after every epoch, from
// the median epoch duration so far (robust to one slow epoch with validation or checkpoints).
// The steps a run resumed mid-epoch ran stand for the epoch's steps at that speed; the epoch's
// end (validation, checkpoints) counts as it is.

#include <cstdint>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/core/Stopwatch.h"

namespace tbench {

class EstimatedTimeLeft : public Callback {
 public:
  /// Seconds left by the last estimate, or a negative value before the first epoch ends.
  double secondsLeft() const { return secondsLeft_; }

 private:
  void onBeforeEpoch() override {
    clock_.restart();
    pausedAtStart_ = context().secondsPaused();
    stepsBefore_ = context().localStep();  // > 0: a run resumed mid-epoch
  }
  void onAfterEpoch() override { stepsSeconds_ = running(); }
  /// Seconds since the epoch began here, less those paused.
  double running() const { return clock_.seconds() - (context().secondsPaused() - pausedAtStart_); }
  void onTriggerEpoch() override;

  Stopwatch clock_;
  std::vector<double> durations_;
  double pausedAtStart_ = 0;  // secondsPaused() when the epoch began: paused time is excluded
  int64_t stepsBefore_ = 0;   // steps of the epoch run before it began here (a resume)
  double stepsSeconds_ = 0;   // running() at afterEpoch: the steps' part of the epoch
  double secondsLeft_ = -1;
};

}  // namespace tbench
