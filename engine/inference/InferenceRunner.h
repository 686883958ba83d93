#pragma once
// InferenceRunner: on every trigger() (the end of every epoch by default; wrap it in a
// PeriodicTrigger for another period) runs one pass over validation data through the model's
// inference tower (eval mode, no gradients, current weights) and puts the inferencers'
// scalars (tensorpack's InferenceRunner).
//
// Note [Sharded validation]: in a run of several processes (`distributed`), process r of W
// runs batches r, r+W, r+2W, ... of every pass, and the inferencers' totals (sums, counts,
// the confusion matrix) are summed over the processes, so every rank reports exactly what one
// process reports on the whole set, in about 1/W of the time. The batches are the one
// process's batches, so each batch's cost is the same number. The other batches are still
// read (decoded) and dropped; only the model's work is divided. An inferencer that cannot
// shard (Inferencer::canShard), or setSharding(false), makes every process run the whole
// pass.
//
// The DataFlow gives batches ({image, label} stacked, any batch size; the last batch may be
// smaller). It is reset once, in setupGraph.

#include <utility>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/data/DataFlow.h"
#include "engine/inference/Inferencer.h"

namespace tbench {

class InferenceRunner : public Callback {
 public:
  InferenceRunner(DataFlowPtr batches, std::vector<InferencerPtr> inferencers);
  /// The scalars of the last pass.
  const std::map<std::string, double>& lastResults() const { return last_; }
  /// Runs one pass now and returns its scalars without putting them (used by `eval`).
  std::map<std::string, double> evaluate(TrainerContext& context);
  /// Whether a run of several processes shares each pass out (default true).
  void setSharding(bool on) { sharding_ = on; }
  /// Adds an inferencer (before the run sets the runner up), e.g. the inference callback's
  /// top_k accuracies.
  void addInferencer(InferencerPtr inferencer) { inferencers_.push_back(std::move(inferencer)); }

 private:
  void onSetupGraph() override;
  void onTrigger() override;

  DataFlowPtr batches_;
  std::vector<InferencerPtr> inferencers_;
  bool reset_ = false;
  std::map<std::string, double> last_;
  bool sharding_ = true;
  std::pair<int64_t, int64_t> lastShare_{0, 0};
  bool loggedShare_ = false;
};

}  // namespace tbench
