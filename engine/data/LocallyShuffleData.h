#pragma once
// LocallyShuffleData: shuffles within a buffer of `bufferSize` datapoints, for flows too large
// or too sequential to shuffle globally. Each incoming point replaces a random buffered one,
// which is emitted. Pass k draws from mixSeed(seed, k), so passes are reproducible.

#include "engine/data/ProxyDataFlow.h"
#include "engine/data/SeededRng.h"

namespace tbench {

class LocallyShuffleData : public ProxyDataFlow {
 public:
  LocallyShuffleData(DataFlowPtr child, int64_t bufferSize, uint64_t seed);

 protected:
  void startPass() override;
  bool nextPoint(Datapoint& out) override;

 private:
  int64_t bufferSize_;
  uint64_t seed_;
  uint64_t passIndex_ = 0;
  Rng rng_;
  std::vector<Datapoint> buffer_;
  bool childDone_ = false;
};

}  // namespace tbench
