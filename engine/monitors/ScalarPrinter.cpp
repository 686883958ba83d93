#include "engine/monitors/ScalarPrinter.h"

#include "engine/core/Logging.h"

namespace tbench {

void ScalarPrinter::onTriggerEpoch() {
  for (const auto& [name, value] : pending_) TB_LOG(Info) << name << ": " << value;
  pending_.clear();
}

}  // namespace tbench
