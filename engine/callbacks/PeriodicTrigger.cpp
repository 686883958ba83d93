#include "engine/callbacks/PeriodicTrigger.h"

#include "engine/core/Check.h"

namespace tbench {

PeriodicTrigger::PeriodicTrigger(CallbackPtr inner, PeriodicTriggerOptions options)
    : ProxyCallback(std::move(inner)), options_(options) {
  TB_CHECK(options_.everyKSteps >= 0 && options_.everyKEpochs >= 0,
           "PeriodicTrigger periods must not be negative, got steps=", options_.everyKSteps,
           " epochs=", options_.everyKEpochs);
  TB_CHECK(options_.everyKSteps > 0 || options_.everyKEpochs > 0,
           "PeriodicTrigger needs every_k_steps or every_k_epochs");
}

void PeriodicTrigger::onBeforeTrain() {
  inner().beforeTrain();
  if (options_.beforeTrain) inner().trigger();
}

void PeriodicTrigger::onTriggerStep() {
  inner().triggerStep();
  if (options_.everyKSteps > 0 && context().globalStep() % options_.everyKSteps == 0) {
    inner().trigger();
  }
}

void PeriodicTrigger::onTriggerEpoch() {
  if (options_.everyKEpochs > 0 && context().epochNum() % options_.everyKEpochs == 0) {
    inner().trigger();
  }
}

}  // namespace tbench
