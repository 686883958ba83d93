#include "engine/callbacks/StatMonitorParamSetter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/callbacks/StatReading.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

StatMonitorParamSetter::StatMonitorParamSetter(std::string param, std::string stat, Options options)
    : param_(std::move(param)),
      stat_(std::move(stat)),
      options_(std::move(options)),
      best_(options_.maximize_ ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity()) {
  if (!(options_.factor_ > 0) || options_.factor_ == 1.0) {
    throw InputError(str("StatMonitorParamSetter(", param_, "): factor must be > 0 and not 1, got ",
                         options_.factor_));
  }
  if (options_.patience_ < 0 || options_.cooldown_ < 0) {
    throw InputError(str("StatMonitorParamSetter(", param_,
                         "): patience and cooldown must be >= 0, got ", options_.patience_, " and ",
                         options_.cooldown_));
  }
  if (options_.thresholdMode_ != "rel" && options_.thresholdMode_ != "abs") {
    throw InputError(str("StatMonitorParamSetter(", param_,
                         "): threshold mode must be \"rel\" or \"abs\", got \"",
                         options_.thresholdMode_, "\""));
  }
  if (!(options_.threshold_ >= 0)) {
    throw InputError(str("StatMonitorParamSetter(", param_, "): threshold must be >= 0, got ",
                         options_.threshold_));
  }
}

StatMonitorParamSetter::StatMonitorParamSetter(std::string param, std::string stat)
    : StatMonitorParamSetter(std::move(param), std::move(stat), Options()) {}

std::string StatMonitorParamSetter::name() const {
  return "StatMonitorParamSetter(" + param_ + " on " + stat_ + ")";
}

void StatMonitorParamSetter::onSetupGraph() {
  target_ = context().hyperParam(param_);
  TB_CHECK(target_ != nullptr, "no hyper-parameter called \"", param_, "\" in this trainer");
}

namespace {

/// A JSON number, or null for an infinite best (JSON has no infinity).
nlohmann::json finiteOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; }

}  // namespace

std::string StatMonitorParamSetter::checkpointState() const {
  return nlohmann::json{{"best", finiteOrNull(best_)},
                        {"bad_epochs", badEpochs_},
                        {"cooldown_counter", cooldownCounter_},
                        {"changes", changes_}}
      .dump();
}

void StatMonitorParamSetter::restoreCheckpointState(const std::string& state) {
  const double none = options_.maximize_ ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity();
  try {
    const auto json = nlohmann::json::parse(state);
    changes_ = json.at("changes").get<int>();
    if (json.contains("values")) {
      // A checkpoint from before the PyTorch rule (a window of values since the last change):
      // its best value, and the values after it as bad epochs.
      const auto values = json.at("values").get<std::vector<double>>();
      best_ = none;
      badEpochs_ = 0;
      for (double v : values) {
        const bool better = options_.maximize_ ? v > best_ : v < best_;
        if (better) {
          best_ = v;
          badEpochs_ = 0;
        } else {
          ++badEpochs_;
        }
      }
      cooldownCounter_ = 0;
      return;
    }
    best_ = json.at("best").is_null() ? none : json.at("best").get<double>();
    badEpochs_ = json.at("bad_epochs").get<int64_t>();
    cooldownCounter_ = json.at("cooldown_counter").get<int64_t>();
  } catch (const std::exception& e) {
    throw InputError(str(name(), ": the checkpoint's state for it is not valid (", e.what(), ")"));
  }
}

void StatMonitorParamSetter::onTriggerEpoch() {
  StatReading reading{stat_, countSeen_, warnedMissing_};
  const std::optional<double> latest = reading.next(context(), name());
  countSeen_ = reading.countSeen;
  warnedMissing_ = reading.warnedMissing;
  if (!latest) return;
  // ReduceLROnPlateau.step(current), line for line.
  const double current = *latest;
  const double t = options_.threshold_;
  const bool rel = options_.thresholdMode_ == "rel";
  const bool better = options_.maximize_ ? (rel ? current > best_ * (1 + t) : current > best_ + t)
                                         : (rel ? current < best_ * (1 - t) : current < best_ - t);
  if (better) {
    best_ = current;
    badEpochs_ = 0;
  } else {
    ++badEpochs_;
  }
  if (cooldownCounter_ > 0) {
    --cooldownCounter_;
    badEpochs_ = 0;  // bad epochs in cooldown are ignored
  }
  if (badEpochs_ <= options_.patience_) return;

  const double old = target_->get();
  double value = old * options_.factor_;
  if (options_.factor_ < 1) value = std::max(value, options_.minValue_);
  constexpr double kEps = 1e-8;  // PyTorch's eps: smaller moves are ignored
  if (std::abs(old - value) > kEps) {
    target_->set(value);
    ++changes_;
    TB_LOG(Info) << param_ << " " << old << " -> " << value << " at epoch " << context().epochNum()
                 << ": " << stat_ << " did not improve on " << best_ << " for " << badEpochs_
                 << " epoch(s)";
  }
  cooldownCounter_ = options_.cooldown_;
  badEpochs_ = 0;
}

}  // namespace tbench
