#pragma once
// RepeatedData: one pass of it is `times` passes of the child (forever when times is -1).

#include "engine/data/ProxyDataFlow.h"

namespace tbench {

class RepeatedData : public ProxyDataFlow {
 public:
  RepeatedData(DataFlowPtr child, int64_t times);
  std::optional<int64_t> size() const override;

 protected:
  void startPass() override;
  bool nextPoint(Datapoint& out) override;

 private:
  int64_t times_;
  int64_t done_ = 0;
};

}  // namespace tbench
