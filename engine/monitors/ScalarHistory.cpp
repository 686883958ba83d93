#include "engine/monitors/ScalarHistory.h"

#include "engine/core/Check.h"

namespace tbench {

ScalarHistory::ScalarHistory(size_t recentPerName) : recentPerName_(recentPerName) {
  TB_CHECK(recentPerName_ >= 1, "ScalarHistory must keep at least one value per scalar");
}

void ScalarHistory::processScalar(const std::string& name, double value, const MetricStamp& stamp) {
  Series& series = series_[name];
  const Point point{stamp.globalStep, stamp.epochNum, value};
  if (series.recent.size() == recentPerName_) series.recent.pop_front();
  series.recent.push_back(point);
  if (!series.epochs.empty() && series.epochs.back().epochNum == stamp.epochNum) {
    series.epochs.back() = point;
  } else {
    series.epochs.push_back(point);
  }
  ++series.count;
}

std::vector<ScalarHistory::Point> ScalarHistory::get(const std::string& name) const {
  auto it = series_.find(name);
  if (it == series_.end()) return {};
  return {it->second.recent.begin(), it->second.recent.end()};
}

std::vector<ScalarHistory::Point> ScalarHistory::perEpoch(const std::string& name) const {
  auto it = series_.find(name);
  return it == series_.end() ? std::vector<Point>{} : it->second.epochs;
}

int64_t ScalarHistory::count(const std::string& name) const {
  auto it = series_.find(name);
  return it == series_.end() ? 0 : it->second.count;
}

std::vector<std::string> ScalarHistory::names() const {
  std::vector<std::string> names;
  for (const auto& entry : series_) names.push_back(entry.first);
  return names;
}

}  // namespace tbench
