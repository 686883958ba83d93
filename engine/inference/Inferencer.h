#pragma once
// Inferencer: turns the model's inference outputs over a whole validation pass into scalars
// (tensorpack's Inferencer). InferenceRunner calls, for every pass:
//   beforeInference(); onBatch(outputs, batchSize) for every batch; afterInference()
// and puts the scalars afterInference() returns. Engine thread.

#include <map>
#include <memory>
#include <string>

#include <torch/types.h>

namespace tbench {

class Inferencer {
 public:
  virtual ~Inferencer() = default;
  virtual void beforeInference() = 0;
  /// `outputs` are the model's named inference outputs for one batch of `batchSize` samples.
  virtual void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) = 0;
  /// The scalars of the pass, by name.
  virtual std::map<std::string, double> afterInference() = 0;
};

using InferencerPtr = std::shared_ptr<Inferencer>;

}  // namespace tbench
