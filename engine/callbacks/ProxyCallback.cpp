#include "engine/callbacks/ProxyCallback.h"

#include "engine/core/Check.h"

namespace tbench {

ProxyCallback::ProxyCallback(CallbackPtr inner) : inner_(std::move(inner)) {
  TB_CHECK(inner_ != nullptr, "a ProxyCallback needs a callback to wrap");
}

}  // namespace tbench
