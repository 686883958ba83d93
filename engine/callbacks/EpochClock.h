#pragma once
// EpochClock: an epoch's time as ProgressBar and EstimatedTimeLeft measure it. Started in
// beforeEpoch, it knows the steps of the epoch run before it began here (a run resumed
// mid-epoch: not timed) and reads the wall time since, less the time the loop waited paused.

#include <cstdint>

#include "engine/callbacks/TrainerContext.h"
#include "engine/core/Stopwatch.h"

namespace tbench {

class EpochClock {
 public:
  void restart(const TrainerContext& context) {
    clock_.restart();
    pausedAtStart_ = context.secondsPaused();
    stepsBefore_ = context.localStep();
  }
  /// Wall seconds since restart (pauses included: what a user waited).
  double elapsed() const { return clock_.seconds(); }
  /// Seconds since restart less those paused.
  double running(const TrainerContext& context) const {
    return clock_.seconds() - (context.secondsPaused() - pausedAtStart_);
  }
  /// Steps of the epoch run before restart (> 0: a run resumed mid-epoch).
  int64_t stepsBefore() const { return stepsBefore_; }

 private:
  Stopwatch clock_;
  double pausedAtStart_ = 0;
  int64_t stepsBefore_ = 0;
};

}  // namespace tbench
