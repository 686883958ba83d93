#pragma once
// ThroughputTracker: puts "ThroughputTracker/steps_per_sec" and
// "ThroughputTracker/samples_per_sec" at the end of every epoch. Time spent inside callbacks
// is excluded, so the figures measure the trainer and its input alone.

#include "engine/callbacks/Callback.h"
#include "engine/core/Stopwatch.h"

namespace tbench {

class ThroughputTracker : public Callback {
 private:
  void onBeforeEpoch() override;
  void onAfterEpoch() override;
  void onTriggerEpoch() override;

  Stopwatch clock_;
  double callbackSecondsAtStart_ = 0;
  int64_t stepAtStart_ = 0;
  double stepsPerSec_ = 0;
};

}  // namespace tbench
