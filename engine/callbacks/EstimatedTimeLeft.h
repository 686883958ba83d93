#pragma once
// EstimatedTimeLeft: logs the estimated time to the end of training after every epoch, from
// the median epoch duration so far (robust to one slow epoch with validation or checkpoints).
// The steps a run resumed mid-epoch ran stand for the epoch's steps at that speed; the epoch's
// end (validation, checkpoints) counts as it is.

#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/callbacks/EpochClock.h"

namespace tbench {

class EstimatedTimeLeft : public Callback {
 public:
  /// Seconds left by the last estimate, or a negative value before the first epoch ends.
  double secondsLeft() const { return secondsLeft_; }

 private:
  void onBeforeEpoch() override { clock_.restart(context()); }
  void onAfterEpoch() override { stepsSeconds_ = clock_.running(context()); }
  void onTriggerEpoch() override;

  EpochClock clock_;  // paused time is excluded
  std::vector<double> durations_;
  double stepsSeconds_ = 0;  // running time at afterEpoch: the steps' part of the epoch
  double secondsLeft_ = -1;
};

}  // namespace tbench
