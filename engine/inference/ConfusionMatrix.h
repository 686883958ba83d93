#pragma once
// ConfusionMatrix: what a classifier learned, per class, over a validation pass (NVIDIA
// DIGITS' confusion matrix). It reads the model's per-sample inference outputs "label" and
// "prediction" (int64 [N], Loss.h) and counts counts[true][predicted] over the whole pass.
//
// afterInference() returns one accuracy per class (recall: the fraction of the class's samples
// predicted as it) as "validation_accuracy/<class name>" for classes that had samples.
// publish() (the pass ran as a callback, in a run with a directory) then writes
//   <run_dir>/confusion/epoch-<E>.json                 (E: the epoch the pass ran in; toJson)
//   <run_dir>/confusion/epoch-<E>-misclassified.png    (the grid below, when there is one)
// (a failure to write them is logged as a warning, the run goes on) and puts two images:
// "confusion_matrix" (the heat map, confusionHeatMap) and, when the inputs are images ([N, C, H, W]
// with C 1 or 3) and some were wrong, "misclassified" (the grid of the first `maxMisclassified`
// wrong samples in the order of the pass, 8 columns; the JSON lists their true and predicted
// classes in the same order). Engine thread.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/callbacks/MonitorSink.h"
#include "engine/inference/Inferencer.h"

namespace tbench {

/// One wrong sample of a pass: its index in the pass and its classes.
struct Misclassified {
  int64_t index = 0;
  int64_t trueClass = 0;
  int64_t predicted = 0;
};

class ConfusionMatrix : public Inferencer {
 public:
  /// Tiles per row of the "misclassified" grid.
  static constexpr int kGridColumns = 8;

  /// `numClasses` >= 1; `classNames` empty (classes named "0", "1", ...) or one per class.
  ConfusionMatrix(int64_t numClasses, std::vector<std::string> classNames,
                  int64_t maxMisclassified = 32);

  void beforeInference() override;
  void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) override;
  void onBatchWithInputs(const Datapoint& batch,
                         const std::map<std::string, torch::Tensor>& outputs,
                         int64_t batchSize) override;
  bool canShard() const override { return true; }
  torch::Tensor totals() const override;
  void setTotals(const torch::Tensor& totals) override;
  void skipBatch(int64_t batchSize) override { seen_ += batchSize; }
  /// Issue 34 (N5): in a sharded pass the counts are summed over the processes, but the
  /// misclassified samples (their images) are this process's share only; the JSON's
  /// "misclassified_from" and the window say so.
  void setShard(int64_t shard, int64_t shards) override {
    shard_ = shard;
    shards_ = shards;
  }
  std::map<std::string, double> afterInference() override;
  void publish(TrainerContext& context) override;

  /// counts()[t][p]: samples of true class t predicted as p in the last pass.
  const std::vector<std::vector<int64_t>>& counts() const;
  const std::vector<std::string>& classNames() const { return names_; }
  const std::vector<Misclassified>& misclassified() const { return wrong_; }
  /// The JSON of the last pass: {"epoch", "global_step", "class_names": [K], "counts": [K][K]
  /// (rows: true class, columns: predicted), "samples", "accuracy" (overall), "per_class":
  /// [{"name", "samples", "precision", "recall", "accuracy", "one_vs_rest"}] (accuracy: the
  /// recall, as validation_accuracy/<class> and DIGITS; one_vs_rest: (TP + TN) / samples; null
  /// when undefined), "misclassified": [{"index", "true", "predicted"}] (the grid's tiles, row
  /// by row), "misclassified_columns", and in a sharded pass "misclassified_from" (which
  /// batches the list was taken from: "every 2nd batch from the 1st (shard 0 of 2)")}.
  nlohmann::json toJson(int64_t epoch, int64_t globalStep) const;

 private:
  int64_t numClasses_;
  std::vector<std::string> names_;
  int64_t maxWrong_;
  // Counted where the model ran (a bincount of true × K + predicted) and read once a pass
  // (Note [Host reads]); a batch's labels are read only while the misclassified list fills.
  mutable std::vector<std::vector<int64_t>> counts_;
  mutable torch::Tensor unread_;
  std::vector<Misclassified> wrong_;
  std::vector<torch::Tensor> wrongImages_;  // [C, H, W] each, in the order of wrong_
  int64_t seen_ = 0;
  int64_t shard_ = 0;
  int64_t shards_ = 1;
};

/// The heat map of `counts` (K x K) as an RGB image: rows true class, columns predicted, each
/// cell coloured by its share of its row (white 0 to dark blue 1), square cells of
/// max(2, min(32, 512 / K)) pixels with a 1-pixel grey grid.
ImageData confusionHeatMap(const std::vector<std::vector<int64_t>>& counts);

}  // namespace tbench
