#pragma once
// ResidentInput: the whole training set kept on the device of the first tower, shuffled and
// batched there, as a PyTorch user who preloads tensors onto the GPU does (the project's
// "data.resident"). Nothing is decoded, copied to the device or stacked on the host after the
// first step: a batch is one index_select on the device.
//
// The samples are read once, in the source's own order (a source opened without shuffling),
// and stacked. Pass k visits them in PassOrder(shuffle, seed)'s k-th order (engine/data/
// PassOrder.h) and cuts it into batches of batchSize samples, the last smaller one kept only
// with `remainder`, as BatchData does: for the sources that shuffle with PassOrder and the same
// seed (the in-memory ones: Fashion-MNIST and IDX files, NumPy, CSV tables, synthetic data) the
// batches are those the streaming pipeline gives, so a run trains the same with and without it.
// A resumed run skips batches by position as the other inputs do (Note [Restorable data
// order]). Random augmentation would be drawn once, when the samples are read: the project
// refuses data.resident with a source that augments.

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/core/Device.h"
#include "engine/data/DataFlow.h"
#include "engine/data/PassOrder.h"
#include "engine/input/InputSource.h"

namespace tbench {

struct ResidentInputOptions {
  int64_t batchSize = 1;
  bool remainder = false;
  bool shuffle = true;
  uint64_t seed = 0;
};

class ResidentInput : public InputSource {
 public:
  /// `samples`: one datapoint per sample, in a fixed order (not shuffled); read at the first
  /// batch. `device`: where the data lives (default: the first tower's).
  ResidentInput(DataFlowPtr samples, ResidentInputOptions options,
                std::optional<Device> device = std::nullopt);
  /// Batches per pass, when the source counts its samples.
  std::optional<int64_t> size() const override;
  /// Reads the samples onto the device in beforeTrain, before the first step's clock starts
  /// (as FeedInput opens its data in setup).
  std::vector<CallbackPtr> callbacks() override;
  /// The number of samples held, once loaded (0 before).
  int64_t samples() const { return count_; }
  /// Bytes held on the device, once loaded.
  int64_t bytes() const;

 protected:
  Datapoint nextDatapoint() override;

 private:
  class Loader;
  void load();
  void startPass();

  DataFlowPtr source_;
  ResidentInputOptions options_;
  std::optional<Device> device_;
  Datapoint data_;  // [N, ...] per component, on the device
  int64_t count_ = 0;
  PassOrder order_;
  std::vector<int64_t> pass_;  // this pass's sample order
  torch::Tensor passIndex_;    // the same, on the device
  int64_t cursor_ = 0;         // the next batch's first position in pass_
  bool loaded_ = false;
};

}  // namespace tbench
