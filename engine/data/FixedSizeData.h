#pragma once
// FixedSizeData: every pass has exactly `size` datapoints. The child's pass is kept open
// across passes and restarted when it ends (tensorpack's keep_state=True), so consecutive
// passes continue through the data instead of starting over.

#include "engine/data/ProxyDataFlow.h"

namespace tbench {

class FixedSizeData : public ProxyDataFlow {
 public:
  FixedSizeData(DataFlowPtr child, int64_t size);
  std::optional<int64_t> size() const override { return size_; }

 protected:
  void startPass() override;
  bool nextPoint(Datapoint& out) override;
  void endPass() override {}  // keep the child's pass open between passes

 private:
  int64_t size_;
  int64_t produced_ = 0;
  bool childOpen_ = false;
};

}  // namespace tbench
