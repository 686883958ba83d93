#pragma once
// ThroughputTracker: puts "ThroughputTracker/steps_per_sec" and
// "ThroughputTracker/samples_per_sec" measured since its previous trigger() (tensorpack's
// ThroughputTracker): at the end of every epoch by default, or on any schedule with
// PeriodicTrigger(tracker, PeriodicTriggerOptions().steps(100)). Time spent inside callbacks
// and paused (TrainerContext::secondsPaused) is excluded, so the figures measure the trainer and
// its input alone.
//
// It also puts "ThroughputTracker/host_syncs_per_step": the host reads of tensor values (Note
// [Host reads]) made since its previous trigger, per step run, callbacks' reads included (a
// validation pass's, a progress bar's). On a GPU each is a wait for the device; steady state
// with the default callbacks stays well under 0.1.

#include "engine/callbacks/Callback.h"
#include "engine/core/Stopwatch.h"

namespace tbench {

class ThroughputTracker : public Callback {
 private:
  void onBeforeTrain() override { mark(); }
  void onTrigger() override;
  void mark();

  Stopwatch clock_;
  double callbackSecondsAtMark_ = 0;
  double pausedSecondsAtMark_ = 0;
  int64_t stepAtMark_ = 0;
  int64_t readsAtMark_ = 0;
};

}  // namespace tbench
