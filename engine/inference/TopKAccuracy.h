#pragma once
// TopKAccuracy: the share of validation samples whose label is among the k largest logits
// (Keras' top_k_categorical_accuracy, torchmetrics' Accuracy(top_k=k)), exact over a pass
// whatever the batch sizes, put as "validation_top<k>_accuracy" (issue 37). With k at least
// the number of classes every sample counts. Shards as ClassificationError does.

#include "engine/inference/Inferencer.h"
#include "engine/inference/PassCount.h"

namespace tbench {

class TopKAccuracy : public Inferencer {
 public:
  /// CheckError for k < 1.
  explicit TopKAccuracy(int64_t k);
  void beforeInference() override;
  void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) override;
  bool canShard() const override { return true; }
  torch::Tensor totals() const override;
  void setTotals(const torch::Tensor& totals) override;
  std::map<std::string, double> afterInference() override;
  std::string scalarName() const;

 private:
  int64_t k_;
  PassCount hits_;  // samples whose label is among the k largest
};

}  // namespace tbench
