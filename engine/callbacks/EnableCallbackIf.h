#pragma once
// EnableCallbackIf (tensorpack's): runs the wrapped callback's beforeEpoch, afterEpoch,
// beforeRun, afterRun, triggerStep and triggerEpoch only while a predicate holds. setupGraph,
// beforeTrain, trigger and afterTrain always run, so a callback disabled at first still reads
// its state before training (a MinSaver its best value) and cleans up after it. beforeRun and
// afterRun stay paired: afterRun runs exactly when beforeRun of the same step ran.

#include <functional>

#include "engine/callbacks/ProxyCallback.h"

namespace tbench {

class EnableCallbackIf : public ProxyCallback {
 public:
  using Predicate = std::function<bool(const TrainerContext&)>;
  EnableCallbackIf(CallbackPtr inner, Predicate predicate);

 private:
  void onBeforeEpoch() override;
  void onBeforeRun() override;
  void onAfterRun() override;
  void onTriggerStep() override;
  void onAfterEpoch() override;
  void onTriggerEpoch() override;

  bool enabled() const { return predicate_(context()); }

  Predicate predicate_;
  bool ranBeforeRun_ = false;
};

}  // namespace tbench
