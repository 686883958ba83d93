#pragma once
// ClassificationError: the exact error rate over a validation pass, from a per-sample output
// that is 1 where the prediction is wrong (tensorpack's ClassificationError): the number of
// wrong samples divided by the number of samples, whatever the batch sizes.

#include "engine/inference/Inferencer.h"
#include "engine/inference/PassCount.h"

namespace tbench {

class ClassificationError : public Inferencer {
 public:
  explicit ClassificationError(std::string wrongOutput = "wrong",
                               std::string scalarName = "validation_error");
  void beforeInference() override;
  void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) override;
  bool canShard() const override { return true; }
  torch::Tensor totals() const override;
  void setTotals(const torch::Tensor& totals) override;
  std::map<std::string, double> afterInference() override;

 private:
  std::string wrongOutput_;
  std::string scalarName_;
  PassCount wrong_;  // wrong samples
};

}  // namespace tbench
