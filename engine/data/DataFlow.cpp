#include "engine/data/DataFlow.h"

#include "engine/core/Check.h"

namespace tbench {

void DataFlow::resetState() {
  TB_CHECK(!resetDone_, "resetState() must be called once and only once");
  resetDone_ = true;
  onResetState();
}

DataPass DataFlow::pass() {
  TB_CHECK(resetDone_, "resetState() must be called before the first pass");
  bool expected = false;
  TB_CHECK(passOpen_.compare_exchange_strong(expected, true),
           "a pass over this DataFlow is already open (DataFlow is not reentrant)");
  try {
    startPass();
  } catch (...) {
    passOpen_ = false;
    throw;
  }
  return DataPass(this);
}

DataPass::DataPass(DataPass&& other) noexcept : flow_(other.flow_), ended_(other.ended_) {
  other.flow_ = nullptr;
}

DataPass& DataPass::operator=(DataPass&& other) noexcept {
  if (this != &other) {
    close();
    flow_ = other.flow_;
    ended_ = other.ended_;
    other.flow_ = nullptr;
  }
  return *this;
}

DataPass::~DataPass() { close(); }

void DataPass::close() {
  if (!flow_) return;
  try {
    flow_->endPass();
  } catch (...) {
    // Closing must not throw; a flow that fails to clean up reports it on the next pass.
  }
  flow_->passOpen_ = false;
  flow_ = nullptr;
}

int64_t DataPass::nextStacked(int64_t n, Datapoint& out) {
  if (!flow_ || ended_) return 0;
  const int64_t taken = flow_->nextStackedPoints(n, out);
  if (taken == 0) ended_ = true;
  return taken;
}

bool DataPass::next(Datapoint& out) {
  if (!flow_ || ended_) return false;
  if (!flow_->nextPoint(out)) {
    ended_ = true;
    return false;
  }
  return true;
}

}  // namespace tbench
