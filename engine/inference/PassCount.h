#pragma once
// PassCount: a count over a validation pass (wrong samples, top-k hits) and the samples it is
// out of, as ClassificationError and TopKAccuracy keep it: summed on the model's device and
// read back once a pass (Note [Host reads]), and {count, samples} as the totals that sharded
// validation sums over the processes (Note [Sharded validation]).

#include <torch/types.h>

#include <cstdint>
#include <string>

namespace tbench {

class PassCount {
 public:
  /// A new pass: nothing counted.
  void reset();
  /// Adds `count` (a tensor on any device, summed there) for `samples` samples.
  void add(const torch::Tensor& count, int64_t samples);
  /// The count so far (reads the device's sum once).
  double count() const;
  int64_t samples() const { return samples_; }
  /// {count, samples} as float64.
  torch::Tensor totals() const;
  /// Sets the count from totals of the same form; `who` names the inferencer in the error.
  void setTotals(const torch::Tensor& totals, const std::string& who);

 private:
  mutable double counted_ = 0;
  mutable torch::Tensor unread_;  // counted on the model's device, not yet read
  int64_t samples_ = 0;
};

}  // namespace tbench
