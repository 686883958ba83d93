#pragma once
// ScalarHistory: keeps every scalar put during the run, for callbacks that look back (plateau
// detection, best-model tracking) and for tests.

#include <map>
#include <vector>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

class ScalarHistory : public TrainingMonitor {
 public:
  struct Point {
    int64_t globalStep;
    int64_t epochNum;
    double value;
  };
  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override {
    history_[name].push_back({stamp.globalStep, stamp.epochNum, value});
  }
  /// Every value of `name`, in the order they were put; empty if none.
  const std::vector<Point>& get(const std::string& name) const;
  const std::map<std::string, std::vector<Point>>& all() const { return history_; }

 private:
  std::map<std::string, std::vector<Point>> history_;
};

}  // namespace tbench
