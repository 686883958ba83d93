#pragma once
// ScalarPrinter: logs the latest value of every scalar put during the epoch, one per line,
// at the end of the epoch (tensorpack's ScalarPrinter).

#include <map>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

class ScalarPrinter : public TrainingMonitor {
 public:
  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override {
    pending_[name] = value;
  }

 private:
  void onTriggerEpoch() override;

  std::map<std::string, double> pending_;  ///< sorted by name for stable output
};

}  // namespace tbench
