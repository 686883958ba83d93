#pragma once
// TopKAccuracy: the share of validation samples whose label is among the k largest logits
// (Keras' top_k_categorical_accuracy, torchmetrics' Accuracy(top_k=k)), exact over a pass
// whatever the batch sizes, put as "validation_top<k>_accuracy" (issue 37). With k at least
// the number of classes every sample counts. Shards as ClassificationError does.

#include "engine/inference/PassRate.h"

namespace tbench {

class TopKAccuracy : public PassRate {
 public:
  /// CheckError for k < 1.
  explicit TopKAccuracy(int64_t k);
  /// Counts the samples whose label is among the k largest logits.
  void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) override;
  std::string scalarName() const override;

 private:
  int64_t k_;
};

}  // namespace tbench
