#include "engine/data/DataFromList.h"

#include <algorithm>
#include <numeric>

namespace tbench {

DataFromList::DataFromList(std::vector<Datapoint> points, bool shuffle, uint64_t seed)
    : points_(std::move(points)), shuffle_(shuffle), seed_(seed) {}

void DataFromList::startPass() {
  order_.resize(points_.size());
  std::iota(order_.begin(), order_.end(), size_t{0});
  if (shuffle_) {
    Rng rng(mixSeed(seed_, passIndex_));
    std::shuffle(order_.begin(), order_.end(), rng);
  }
  ++passIndex_;
  cursor_ = 0;
}

bool DataFromList::nextPoint(Datapoint& out) {
  if (cursor_ >= order_.size()) return false;
  out = points_[order_[cursor_++]];
  return true;
}

}  // namespace tbench
