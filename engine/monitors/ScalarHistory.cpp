#include "engine/monitors/ScalarHistory.h"

namespace tbench {

const std::vector<ScalarHistory::Point>& ScalarHistory::get(const std::string& name) const {
  static const std::vector<Point> kEmpty;
  auto it = history_.find(name);
  return it == history_.end() ? kEmpty : it->second;
}

}  // namespace tbench
