#pragma once
// ShardedData: one rank's share of every pass of its child (for the `distributed` strategy).
// Datapoint i of a pass belongs to shard i mod numShards; every shard yields the same number
// of datapoints per pass, floor(size / numShards) (the child's remainder is dropped, so no rank
// waits for a step the others never take). Over a batched child with batch b, shards 0..W-1
// together take exactly the samples one process with batch W×b takes, in the same order: the
// child's order is seeded and independent of the rank (Note [Restorable data order]), so the
// shards are disjoint and reproducible.
//
// The other shards' datapoints are still produced and discarded; sharding below the batching
// would read less, but would change which samples a step sees.

#include "engine/data/ProxyDataFlow.h"

namespace tbench {

class ShardedData : public ProxyDataFlow {
 public:
  /// `shard` in [0, numShards).
  ShardedData(DataFlowPtr child, int shard, int numShards);
  std::optional<int64_t> size() const override;

 protected:
  void startPass() override;
  bool nextPoint(Datapoint& out) override;

 private:
  int shard_;
  int numShards_;
  int64_t taken_ = 0;  // datapoints yielded in this pass
};

}  // namespace tbench
