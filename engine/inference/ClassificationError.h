#pragma once
// ClassificationError: the exact error rate over a validation pass, from a per-sample output
// that is 1 where the prediction is wrong (tensorpack's ClassificationError): the number of
// wrong samples divided by the number of samples, whatever the batch sizes.

#include "engine/inference/PassRate.h"

namespace tbench {

class ClassificationError : public PassRate {
 public:
  explicit ClassificationError(std::string wrongOutput = "wrong",
                               std::string scalarName = "validation_error");
  /// Counts the wrong samples.
  void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) override;
  std::string scalarName() const override { return scalarName_; }

 private:
  std::string wrongOutput_;
  std::string scalarName_;
};

}  // namespace tbench
