#include "engine/data/RepeatedData.h"

#include "engine/core/Check.h"

namespace tbench {

RepeatedData::RepeatedData(DataFlowPtr child, int64_t times)
    : ProxyDataFlow(std::move(child)), times_(times) {
  TB_CHECK(times_ == -1 || times_ > 0, "RepeatedData times must be -1 or positive, got ", times_);
}

std::optional<int64_t> RepeatedData::size() const {
  const auto n = ProxyDataFlow::size();
  if (!n || times_ < 0) return std::nullopt;
  return *n * times_;
}

void RepeatedData::startPass() {
  done_ = 0;
  ProxyDataFlow::startPass();
}

bool RepeatedData::nextPoint(Datapoint& out) {
  if (childPass().next(out)) return true;
  ++done_;
  if (times_ >= 0 && done_ >= times_) return false;
  ProxyDataFlow::endPass();
  ProxyDataFlow::startPass();
  // An empty child would otherwise make an infinite repetition spin forever.
  TB_CHECK(childPass().next(out), "RepeatedData: the child DataFlow produced an empty pass");
  return true;
}

}  // namespace tbench
