#pragma once
// PassRate: an inferencer whose scalar is a rate over a validation pass, a count (wrong
// samples, top-k hits) out of the samples it saw, exact whatever the batch sizes
// (ClassificationError, TopKAccuracy). The count is summed on the model's device and read back
// once a pass (Note [Host reads]); {count, samples} are the totals that sharded validation
// sums over the processes (Note [Sharded validation]). A subclass counts in onBatch with add()
// and names its scalar.

#include <cstdint>
#include <map>
#include <string>

#include <torch/types.h>

#include "engine/inference/Inferencer.h"

namespace tbench {

class PassRate : public Inferencer {
 public:
  void beforeInference() final;
  bool canShard() const final { return true; }
  torch::Tensor totals() const final;  // {count, samples} as float64
  void setTotals(const torch::Tensor& totals) final;
  /// {scalarName(): count / samples}; nothing after an empty pass.
  std::map<std::string, double> afterInference() final;
  /// The scalar's name ("validation_error", "validation_top5_accuracy").
  virtual std::string scalarName() const = 0;

 protected:
  /// Adds `count` (a tensor on any device, summed there) for `samples` samples.
  void add(const torch::Tensor& count, int64_t samples);

 private:
  double count() const;  // reads the device's sum once
  mutable double counted_ = 0;
  mutable torch::Tensor unread_;  // counted on the model's device, not yet read
  int64_t samples_ = 0;
};

}  // namespace tbench
