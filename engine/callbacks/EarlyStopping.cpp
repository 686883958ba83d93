#include "engine/callbacks/EarlyStopping.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/callbacks/StopTraining.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

namespace {

double worst(bool maximize) {
  return maximize ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::infinity();
}

}  // namespace

EarlyStopping::EarlyStopping(std::string stat, Options options)
    : stat_(std::move(stat)), options_(options), best_(worst(options.maximize_)) {
  reading_.stat = stat_;
  if (options_.patience_ < 1) {
    throw InputError(
        str("EarlyStopping(", stat_, "): patience must be >= 1, got ", options_.patience_));
  }
  if (!(options_.minDelta_ >= 0)) {
    throw InputError(
        str("EarlyStopping(", stat_, "): min_delta must be >= 0, got ", options_.minDelta_));
  }
}

std::string EarlyStopping::name() const { return "EarlyStopping(" + stat_ + ")"; }

std::string EarlyStopping::checkpointState() const {
  return nlohmann::json{{"best", std::isfinite(best_) ? nlohmann::json(best_) : nullptr},
                        {"wait", wait_}}
      .dump();
}

void EarlyStopping::restoreCheckpointState(const std::string& state) {
  try {
    const auto json = nlohmann::json::parse(state);
    best_ = json.at("best").is_null() ? worst(options_.maximize_) : json.at("best").get<double>();
    wait_ = json.at("wait").get<int64_t>();
  } catch (const std::exception& e) {
    throw InputError(str(name(), ": the checkpoint's state for it is not valid (", e.what(), ")"));
  }
}

void EarlyStopping::onTriggerEpoch() {
  const std::optional<double> latest = reading_.next(context(), name());
  if (!latest) return;
  const double current = *latest;
  if (!std::isfinite(current)) {
    reason_ = str(stat_, " is ", current, " at epoch ", context().epochNum());
  } else {
    const bool better = options_.maximize_ ? current > best_ + options_.minDelta_
                                           : current < best_ - options_.minDelta_;
    if (better) {
      best_ = current;
      wait_ = 0;
      return;
    }
    if (++wait_ < options_.patience_) return;
    reason_ = str(stat_, " did not improve on ", best_,
                  options_.minDelta_ > 0 ? str(" by more than ", options_.minDelta_) : "", " for ",
                  wait_, " epoch(s)");
  }
  TB_LOG(Info) << "early stopping at epoch " << context().epochNum() << ": " << reason_;
  throw StopTraining("early stopping: " + reason_);
}

}  // namespace tbench
