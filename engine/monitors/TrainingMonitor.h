#pragma once
// TrainingMonitor: receives every scalar and image put during training (tensorpack's
// TrainingMonitor). A monitor is also a callback; Monitors forwards the lifecycle hooks to it.
// Called on the engine thread.

#include <string>

#include "engine/callbacks/Callback.h"

namespace tbench {

/// Where and when a value was put.
struct MetricStamp {
  int64_t globalStep = 0;
  int64_t epochNum = 0;
  double wallTime = 0;  ///< seconds since the Unix epoch
};

class TrainingMonitor : public Callback {
 public:
  virtual void processScalar(const std::string& name, double value, const MetricStamp& stamp) {}
  virtual void processImage(const std::string& name, const ImageData& image,
                            const MetricStamp& stamp) {}
};

using TrainingMonitorPtr = std::shared_ptr<TrainingMonitor>;

}  // namespace tbench
