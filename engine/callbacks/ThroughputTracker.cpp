#include "engine/callbacks/ThroughputTracker.h"

namespace tbench {

void ThroughputTracker::onBeforeEpoch() {
  clock_.restart();
  callbackSecondsAtStart_ = context().secondsInCallbacks();
  stepAtStart_ = context().globalStep();
}

void ThroughputTracker::onAfterEpoch() {
  const double inCallbacks = context().secondsInCallbacks() - callbackSecondsAtStart_;
  const double seconds = clock_.seconds() - inCallbacks;
  const int64_t steps = context().globalStep() - stepAtStart_;
  stepsPerSec_ = seconds > 0 ? steps / seconds : 0.0;
}

void ThroughputTracker::onTriggerEpoch() {
  context().monitors().putScalar("ThroughputTracker/steps_per_sec", stepsPerSec_);
  context().monitors().putScalar("ThroughputTracker/samples_per_sec",
                                 stepsPerSec_ * static_cast<double>(context().samplesPerStep()));
}

}  // namespace tbench
