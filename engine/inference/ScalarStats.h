#pragma once
// ScalarStats: the mean of scalar outputs over a validation pass, each batch weighted by its
// size (so a smaller last batch counts for what it holds). Output "cost" is reported as
// "validation_cost".

#include <vector>

#include "engine/inference/Inferencer.h"

namespace tbench {

class ScalarStats : public Inferencer {
 public:
  /// `names`: outputs to average; `prefix` is prepended to each name in the scalars.
  explicit ScalarStats(std::vector<std::string> names = {"cost"},
                       std::string prefix = "validation_");
  void beforeInference() override;
  void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) override;
  bool canShard() const override { return true; }
  torch::Tensor totals() const override;
  void setTotals(const torch::Tensor& totals) override;
  std::map<std::string, double> afterInference() override;

 private:
  std::vector<std::string> names_;
  std::string prefix_;
  const std::vector<double>& sums() const;  // sums_ with unread_ added
  mutable std::vector<double> sums_;
  mutable torch::Tensor unread_;  // the batches' sums where the model ran, not yet read
  int64_t samples_ = 0;
};

}  // namespace tbench
