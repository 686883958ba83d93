#include "engine/data/ShardedData.h"

#include "engine/core/Check.h"

namespace tbench {

ShardedData::ShardedData(DataFlowPtr child, int shard, int numShards)
    : ProxyDataFlow(std::move(child)), shard_(shard), numShards_(numShards) {
  TB_CHECK(numShards_ >= 1 && shard_ >= 0 && shard_ < numShards_, "shard ", shard_,
           " is outside [0, ", numShards_, ")");
}

std::optional<int64_t> ShardedData::size() const {
  const auto total = child()->size();
  if (!total) return std::nullopt;
  return *total / numShards_;
}

void ShardedData::startPass() {
  ProxyDataFlow::startPass();
  taken_ = 0;
}

bool ShardedData::nextPoint(Datapoint& out) {
  const auto limit = size();
  if (limit && taken_ >= *limit) return false;
  // Skip the datapoints of the shards before this one, take ours, skip the ones after it.
  Datapoint skipped;
  for (int s = 0; s < shard_; ++s) {
    if (!childPass().next(skipped)) return false;
  }
  if (!childPass().next(out)) return false;
  for (int s = shard_ + 1; s < numShards_; ++s) {
    if (!childPass().next(skipped)) {
      // A pass of unknown size ended inside a round: the other shards have no datapoint for
      // this round, so neither does this one.
      return false;
    }
  }
  ++taken_;
  return true;
}

}  // namespace tbench
