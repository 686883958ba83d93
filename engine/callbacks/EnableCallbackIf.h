#pragma once
// EnableCallbackIf: runs the wrapped callback's hooks only while a predicate holds. setupGraph
// and afterTrain always run. beforeRun and afterRun stay paired: afterRun runs exactly when
// beforeRun of the same step ran.

#include <functional>

#include "engine/callbacks/ProxyCallback.h"

namespace tbench {

class EnableCallbackIf : public ProxyCallback {
 public:
  using Predicate = std::function<bool(const TrainerContext&)>;
  EnableCallbackIf(CallbackPtr inner, Predicate predicate);

 private:
  void onBeforeTrain() override;
  void onBeforeEpoch() override;
  void onBeforeRun() override;
  void onAfterRun() override;
  void onTriggerStep() override;
  void onAfterEpoch() override;
  void onTriggerEpoch() override;
  void onTrigger() override;

  bool enabled() const { return predicate_(context()); }

  Predicate predicate_;
  bool ranBeforeRun_ = false;
};

}  // namespace tbench
