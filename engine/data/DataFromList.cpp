#include "engine/data/DataFromList.h"

#include <algorithm>
#include <numeric>

namespace tbench {

DataFromList::DataFromList(std::vector<Datapoint> points, bool shuffle, uint64_t seed)
    : points_(std::move(points)), order_(shuffle, seed) {}

void DataFromList::startPass() { order_.start(points_.size()); }

bool DataFromList::nextPoint(Datapoint& out) {
  int64_t i = 0;
  if (!order_.next(i)) return false;
  out = points_[static_cast<size_t>(i)];
  return true;
}

}  // namespace tbench
