#pragma once
// PeriodicTrigger: calls the wrapped callback's trigger() every k steps and/or every k epochs
// (tensorpack's PeriodicTrigger). Every other hook is forwarded, triggerStep included (so a
// wrapped CheckNumerics keeps its per-step check); only triggerEpoch is replaced, since by
// default it is what calls trigger().
//
// "Every k steps" means after the step at which globalStep() is a multiple of k; "every k
// epochs" means at triggerEpoch of the epochs whose epochNum() is a multiple of k.

#include "engine/callbacks/ProxyCallback.h"

namespace tbench {

struct PeriodicTriggerOptions {
  int64_t everyKSteps = 0;   ///< 0: not by steps
  int64_t everyKEpochs = 0;  ///< 0: not by epochs
  bool beforeTrain = false;  ///< also trigger once in beforeTrain
  PeriodicTriggerOptions& steps(int64_t k) {
    everyKSteps = k;
    return *this;
  }
  PeriodicTriggerOptions& epochs(int64_t k) {
    everyKEpochs = k;
    return *this;
  }
  PeriodicTriggerOptions& atStart(bool on = true) {
    beforeTrain = on;
    return *this;
  }
};

class PeriodicTrigger : public ProxyCallback {
 public:
  /// At least one of everyKSteps and everyKEpochs must be positive.
  PeriodicTrigger(CallbackPtr inner, PeriodicTriggerOptions options);

 private:
  void onBeforeTrain() override;
  void onTriggerStep() override;
  void onTriggerEpoch() override;

  PeriodicTriggerOptions options_;
};

}  // namespace tbench
