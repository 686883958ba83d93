#pragma once
// The value of a stat that a callback watches at an epoch's end (StatMonitorParamSetter,
// EarlyStopping): taken once per time it is put. A value already taken (the stat was not
// produced again this epoch, e.g. validation every 3 epochs) does not count again, as in
// tensorpack, which reads the stat's history; a stat missing at the end of an epoch is warned
// about once (is the callback that puts it registered before this one?).

#include <cstdint>
#include <optional>
#include <string>

#include "engine/callbacks/TrainerContext.h"
#include "engine/core/Logging.h"

namespace tbench {

struct StatReading {
  std::string stat;
  int64_t countSeen = -1;
  bool warnedMissing = false;

  /// The stat's new value, or nullopt when it was not put since the last call. `who` names
  /// the callback in the warning.
  std::optional<double> next(TrainerContext& context, const std::string& who) {
    const std::optional<double> latest = context.monitors().latest(stat);
    const int64_t count = context.monitors().count(stat);
    if (latest && count == countSeen) return std::nullopt;
    countSeen = count;
    if (!latest && !warnedMissing) {
      TB_LOG(Warning) << who << ": no value of \"" << stat << "\" yet at the end of epoch "
                      << context.epochNum()
                      << " (fine if it is put every few epochs, inference.every_k_epochs; "
                         "otherwise, is the callback that puts it registered before this one?)";
      warnedMissing = true;
    }
    return latest;
  }
};

}  // namespace tbench
