#include "engine/callbacks/ThroughputTracker.h"

#include "engine/core/HostRead.h"

namespace tbench {

void ThroughputTracker::mark() {
  clock_.restart();
  callbackSecondsAtMark_ = context().secondsInCallbacks();
  pausedSecondsAtMark_ = context().secondsPaused();
  stepAtMark_ = context().globalStep();
  readsAtMark_ = hostReadCount();
}

void ThroughputTracker::onTrigger() {
  const int64_t steps = context().globalStep() - stepAtMark_;
  if (steps <= 0) return;  // nothing ran since the last report (a trigger before training)
  const double inCallbacks = context().secondsInCallbacks() - callbackSecondsAtMark_;
  const double paused = context().secondsPaused() - pausedSecondsAtMark_;
  const double seconds = clock_.seconds() - inCallbacks - paused;
  // Steps measured in no time at all (a clock's resolution): no rate yet, the steps stay in the
  // next report's window instead of reporting 0 steps/s.
  if (seconds <= 0) return;
  const double stepsPerSec = static_cast<double>(steps) / seconds;
  context().monitors().putScalar("ThroughputTracker/steps_per_sec", stepsPerSec);
  context().monitors().putScalar("ThroughputTracker/samples_per_sec",
                                 stepsPerSec * static_cast<double>(context().samplesPerStep()));
  context().monitors().putScalar(
      "ThroughputTracker/host_syncs_per_step",
      static_cast<double>(hostReadCount() - readsAtMark_) / static_cast<double>(steps));
  mark();
}

}  // namespace tbench
