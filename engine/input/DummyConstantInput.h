#pragma once
// DummyConstantInput: the same constant batch at every step, with no data pipeline at all.
// Measures the compute limit of a model, and drives loop tests (tensorpack's
// DummyConstantInput). Free (-1) dimensions in the specs take `batchSize`.

#include "engine/input/InputSource.h"

namespace tbench {

class DummyConstantInput : public InputSource {
 public:
  explicit DummyConstantInput(int64_t batchSize, uint64_t seed = 0);
  std::optional<int64_t> size() const override { return std::nullopt; }
  /// How many batches were taken so far.
  int64_t batchesTaken() const { return taken_; }

 protected:
  void onSetup() override;
  Datapoint nextDatapoint() override;

 private:
  int64_t batchSize_;
  uint64_t seed_;
  Datapoint constant_;
  int64_t taken_ = 0;
};

}  // namespace tbench
