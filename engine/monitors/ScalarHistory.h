#pragma once
// ScalarHistory: what callbacks that look back need of every scalar, in bounded memory (a run
// of millions of steps must not grow): the most recent values of each name (at most
// `recentPerName`), and one summary per epoch, the last value put in it. Tests read it too.

#include <cstddef>
#include <deque>
#include <map>
#include <string>
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
  /// Keeps the newest `recentPerName` values of each scalar (>= 1).
  explicit ScalarHistory(size_t recentPerName = 10000);

  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override;
  /// The most recent values of `name` (at most recentPerName), oldest first; empty if none.
  std::vector<Point> get(const std::string& name) const;
  /// The last value of `name` put in each epoch that had one, in epoch order.
  std::vector<Point> perEpoch(const std::string& name) const;
  /// How many values of `name` were put in total (also those no longer kept).
  int64_t count(const std::string& name) const;
  /// Every scalar name seen, sorted.
  std::vector<std::string> names() const;

 private:
  struct Series {
    std::deque<Point> recent;
    std::vector<Point> epochs;  // one per epoch: a few thousand at most
    int64_t count = 0;
  };
  size_t recentPerName_;
  std::map<std::string, Series> series_;
};

}  // namespace tbench
