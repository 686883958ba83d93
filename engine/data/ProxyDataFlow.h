#pragma once
// ProxyDataFlow: a DataFlow that wraps another. By default it forwards everything; combinators
// override what they change.

#include "engine/data/DataFlow.h"

namespace tbench {

class ProxyDataFlow : public DataFlow {
 public:
  explicit ProxyDataFlow(DataFlowPtr child);
  std::optional<int64_t> size() const override { return child_->size(); }

 protected:
  void onResetState() override { child_->resetState(); }
  void startPass() override { childPass_.emplace(child_->pass()); }
  bool nextPoint(Datapoint& out) override { return childPass_->next(out); }
  void endPass() override { childPass_.reset(); }

  const DataFlowPtr& child() const { return child_; }
  /// The child's open pass; valid between startPass() and endPass().
  DataPass& childPass() { return *childPass_; }

 private:
  DataFlowPtr child_;
  std::optional<DataPass> childPass_;
};

}  // namespace tbench
