#pragma once
// BatchData: stacks `batchSize` consecutive datapoints into one, component by component
// (torch::stack along a new dimension 0). Every component must have the same shape and dtype
// across the batch; a mismatch throws with the component index and both shapes.

#include "engine/data/ProxyDataFlow.h"

namespace tbench {

class BatchData : public ProxyDataFlow {
 public:
  /// With `remainder`, the last smaller batch of a pass is produced too; without it, it is
  /// dropped (tensorpack's default).
  BatchData(DataFlowPtr child, int64_t batchSize, bool remainder = false);
  std::optional<int64_t> size() const override;
  int64_t batchSize() const { return batchSize_; }

 protected:
  bool nextPoint(Datapoint& out) override;

 private:
  int64_t batchSize_;
  bool remainder_;
  bool childStacks_ = true;  ///< until the child says it cannot (Note [Stacked reads])
  std::vector<Datapoint> pending_;
};

}  // namespace tbench
