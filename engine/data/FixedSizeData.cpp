#include "engine/data/FixedSizeData.h"

#include "engine/core/Check.h"

namespace tbench {

FixedSizeData::FixedSizeData(DataFlowPtr child, int64_t size)
    : ProxyDataFlow(std::move(child)), size_(size) {
  TB_CHECK(size_ > 0, "FixedSizeData size must be positive, got ", size_);
}

void FixedSizeData::startPass() {
  produced_ = 0;
  if (!childOpen_) {
    ProxyDataFlow::startPass();
    childOpen_ = true;
  }
}

bool FixedSizeData::nextPoint(Datapoint& out) {
  if (produced_ >= size_) return false;
  if (!childPass().next(out)) {
    ProxyDataFlow::endPass();
    ProxyDataFlow::startPass();
    TB_CHECK(childPass().next(out), "FixedSizeData: the child DataFlow produced an empty pass");
  }
  ++produced_;
  return true;
}

}  // namespace tbench
