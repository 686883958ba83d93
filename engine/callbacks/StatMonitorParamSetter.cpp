#include "engine/callbacks/StatMonitorParamSetter.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

StatMonitorParamSetter::StatMonitorParamSetter(std::string param, std::string stat, Options options)
    : param_(std::move(param)), stat_(std::move(stat)), options_(options) {
  if (!(options_.factor_ > 0) || options_.factor_ == 1.0) {
    throw InputError(str("StatMonitorParamSetter(", param_, "): factor must be > 0 and not 1, got ",
                         options_.factor_));
  }
  if (options_.patience_ < 1) {
    throw InputError(str("StatMonitorParamSetter(", param_, "): patience must be >= 1, got ",
                         options_.patience_));
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

std::string StatMonitorParamSetter::checkpointState() const {
  return nlohmann::json{{"values", values_}, {"changes", changes_}}.dump();
}

void StatMonitorParamSetter::restoreCheckpointState(const std::string& state) {
  try {
    const auto json = nlohmann::json::parse(state);
    values_ = json.at("values").get<std::vector<double>>();
    changes_ = json.at("changes").get<int>();
  } catch (const std::exception& e) {
    throw InputError(str(name(), ": the checkpoint's state for it is not valid (", e.what(), ")"));
  }
}

void StatMonitorParamSetter::onTriggerEpoch() {
  const std::optional<double> latest = context().monitors().latest(stat_);
  // A value already recorded (the stat was not produced again this epoch, e.g. validation
  // every 3 epochs) does not count again, as in tensorpack, which reads the stat's history.
  const int64_t count = context().monitors().count(stat_);
  if (latest && count == countSeen_) return;
  countSeen_ = count;
  if (!latest) {
    if (!warnedMissing_) {
      TB_LOG(Warning) << name() << ": no value of \"" << stat_ << "\" at the end of epoch "
                      << context().epochNum()
                      << " (is the callback that puts it registered before this one?)";
      warnedMissing_ = true;
    }
    return;
  }
  if (!std::isfinite(*latest)) return;
  values_.push_back(*latest);
  const int64_t k = options_.patience_;
  if (static_cast<int64_t>(values_.size()) <= k) return;

  // Best before the newest k values against the best of the newest k.
  const auto split = values_.end() - k;
  const bool max = options_.maximize_;
  auto better = [max](double a, double b) { return max ? a > b : a < b; };
  double before = values_.front();
  for (auto it = values_.begin(); it != split; ++it) before = better(*it, before) ? *it : before;
  double recent = *split;
  for (auto it = split; it != values_.end(); ++it) recent = better(*it, recent) ? *it : recent;
  const double margin = options_.threshold_;
  const bool improved = max ? recent > before + margin : recent < before - margin;
  if (improved) return;

  const double old = target_->get();
  double value = old * options_.factor_;
  if (options_.factor_ < 1) value = std::max(value, options_.minValue_);
  if (value != old) {
    target_->set(value);
    ++changes_;
    TB_LOG(Info) << param_ << " " << old << " -> " << value << " at epoch " << context().epochNum()
                 << ": " << stat_ << " did not improve on " << before << " for " << k
                 << " epoch(s)";
  }
  values_.assign(1, values_.back());  // the window starts again from this epoch
}

}  // namespace tbench
