#pragma once
// DataFromList: datapoints held in memory, optionally shuffled every pass.

#include "engine/data/DataFlow.h"
#include "engine/data/PassOrder.h"

namespace tbench {

class DataFromList : public DataFlow {
 public:
  /// With `shuffle`, pass k visits the points in an order drawn from mixSeed(seed, k).
  explicit DataFromList(std::vector<Datapoint> points, bool shuffle = false, uint64_t seed = 0);
  std::optional<int64_t> size() const override { return static_cast<int64_t>(points_.size()); }

 protected:
  void startPass() override;
  bool nextPoint(Datapoint& out) override;

 private:
  std::vector<Datapoint> points_;
  PassOrder order_;
};

}  // namespace tbench
