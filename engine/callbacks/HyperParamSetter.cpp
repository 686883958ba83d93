#include "engine/callbacks/HyperParamSetter.h"

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

HyperParamSetter::HyperParamSetter(std::string param, Unit unit)
    : param_(std::move(param)), unit_(unit) {}

std::string HyperParamSetter::name() const { return Callback::name() + "(" + param_ + ")"; }

void HyperParamSetter::onSetupGraph() {
  target_ = context().hyperParam(param_);
  TB_CHECK(target_ != nullptr, "no hyper-parameter called \"", param_, "\" in this trainer");
}

void HyperParamSetter::onBeforeTrain() {
  apply(unit_ == Unit::Epoch ? context().epochNum() + 1 : context().globalStep());
}

void HyperParamSetter::onBeforeEpoch() {
  if (unit_ == Unit::Epoch) apply(context().epochNum());
}

void HyperParamSetter::onBeforeRun() {
  if (unit_ == Unit::Step) apply(context().globalStep());
}

void HyperParamSetter::onTriggerEpoch() { context().monitors().putScalar(param_, target_->get()); }

void HyperParamSetter::apply(int64_t position) {
  const std::optional<double> value = valueAt(position);
  if (!value || (applied_ && *applied_ == *value && target_->get() == *value)) return;
  target_->set(*value);
  if (unit_ == Unit::Epoch || !applied_) {
    TB_LOG(Info) << param_ << " set to " << *value << " at "
                 << (unit_ == Unit::Epoch ? "epoch " : "step ") << position;
  }
  applied_ = value;
}

ScheduledHyperParamSetter::ScheduledHyperParamSetter(std::string param,
                                                     std::vector<std::pair<int64_t, double>> points,
                                                     Unit unit, Interpolation interpolation)
    : HyperParamSetter(std::move(param), unit),
      points_(std::move(points)),
      interpolation_(interpolation) {
  TB_CHECK(!points_.empty(), "a schedule needs at least one point");
  for (size_t i = 1; i < points_.size(); ++i) {
    TB_CHECK(points_[i].first > points_[i - 1].first,
             "schedule positions must increase strictly, got ", points_[i - 1].first, " then ",
             points_[i].first);
  }
}

std::optional<double> ScheduledHyperParamSetter::valueAt(int64_t position) const {
  if (position < points_.front().first) return std::nullopt;
  size_t i = 0;
  while (i + 1 < points_.size() && points_[i + 1].first <= position) ++i;
  if (interpolation_ == Interpolation::Piecewise || i + 1 == points_.size()) {
    return points_[i].second;
  }
  const auto [x0, y0] = points_[i];
  const auto [x1, y1] = points_[i + 1];
  const double t = static_cast<double>(position - x0) / static_cast<double>(x1 - x0);
  return y0 + t * (y1 - y0);
}

HyperParamSetterWithFunc::HyperParamSetterWithFunc(std::string param, Function function, Unit unit)
    : HyperParamSetter(std::move(param), unit), function_(std::move(function)) {
  TB_CHECK(static_cast<bool>(function_), "HyperParamSetterWithFunc needs a function");
}

}  // namespace tbench
