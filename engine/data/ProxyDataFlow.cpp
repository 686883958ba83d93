#include "engine/data/ProxyDataFlow.h"

#include "engine/core/Check.h"

namespace tbench {

ProxyDataFlow::ProxyDataFlow(DataFlowPtr child) : child_(std::move(child)) {
  TB_CHECK(child_ != nullptr, "a ProxyDataFlow needs a child DataFlow");
}

}  // namespace tbench
