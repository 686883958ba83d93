#include "engine/data/LocallyShuffleData.h"

#include "engine/core/Check.h"

namespace tbench {

LocallyShuffleData::LocallyShuffleData(DataFlowPtr child, int64_t bufferSize, uint64_t seed)
    : ProxyDataFlow(std::move(child)), bufferSize_(bufferSize), seed_(seed) {
  TB_CHECK(bufferSize_ > 0, "LocallyShuffleData buffer size must be positive, got ", bufferSize_);
}

void LocallyShuffleData::startPass() {
  ProxyDataFlow::startPass();
  rng_.seed(mixSeed(seed_, passIndex_++));
  buffer_.clear();
  childDone_ = false;
  // Fill the buffer first; the pass then emits exactly as many points as the child has.
  Datapoint point;
  while (static_cast<int64_t>(buffer_.size()) < bufferSize_ && childPass().next(point)) {
    buffer_.push_back(std::move(point));
  }
}

bool LocallyShuffleData::nextPoint(Datapoint& out) {
  if (buffer_.empty()) return false;
  std::uniform_int_distribution<size_t> pick(0, buffer_.size() - 1);
  const size_t i = pick(rng_);
  out = std::move(buffer_[i]);
  Datapoint incoming;
  if (!childDone_ && childPass().next(incoming)) {
    buffer_[i] = std::move(incoming);
  } else {
    childDone_ = true;
    buffer_[i] = std::move(buffer_.back());
    buffer_.pop_back();
  }
  return true;
}

}  // namespace tbench
