#include "engine/callbacks/EnableCallbackIf.h"

#include "engine/core/Check.h"

namespace tbench {

EnableCallbackIf::EnableCallbackIf(CallbackPtr inner, Predicate predicate)
    : ProxyCallback(std::move(inner)), predicate_(std::move(predicate)) {
  TB_CHECK(static_cast<bool>(predicate_), "EnableCallbackIf needs a predicate");
}

void EnableCallbackIf::onBeforeEpoch() {
  if (enabled()) inner().beforeEpoch();
}
void EnableCallbackIf::onBeforeRun() {
  ranBeforeRun_ = enabled();
  if (ranBeforeRun_) inner().beforeRun();
}
void EnableCallbackIf::onAfterRun() {
  if (ranBeforeRun_) inner().afterRun();
}
void EnableCallbackIf::onTriggerStep() {
  if (enabled()) inner().triggerStep();
}
void EnableCallbackIf::onAfterEpoch() {
  if (enabled()) inner().afterEpoch();
}
void EnableCallbackIf::onTriggerEpoch() {
  if (enabled()) inner().triggerEpoch();
}

}  // namespace tbench
