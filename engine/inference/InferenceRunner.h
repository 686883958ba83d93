#pragma once
// InferenceRunner: on every trigger() (the end of every epoch by default; wrap it in a
// PeriodicTrigger for another period) runs one pass over validation data through the model's
// inference tower (eval mode, no gradients, current weights) and puts the inferencers'
// scalars (tensorpack's InferenceRunner).
//
// The DataFlow gives batches ({image, label} stacked, any batch size; the last batch may be
// smaller). It is reset once, in setupGraph.

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

 private:
  void onSetupGraph() override;
  void onTrigger() override;

  DataFlowPtr batches_;
  std::vector<InferencerPtr> inferencers_;
  bool reset_ = false;
  std::map<std::string, double> last_;
};

}  // namespace tbench
