#pragma once
// EstimatedTimeLeft: logs the estimated time to the end of training after every epoch, from
// the median epoch duration so far (robust to one slow epoch with validation or checkpoints).

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
  }
  void onTriggerEpoch() override;

  Stopwatch clock_;
  std::vector<double> durations_;
  double pausedAtStart_ = 0;  // secondsPaused() when the epoch began: paused time is excluded
  double secondsLeft_ = -1;
};

}  // namespace tbench
