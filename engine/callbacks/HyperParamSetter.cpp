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
  // A resumed run's checkpoint restored the value in force; the schedule acts at its next
  // change (Note [One rule for a hyper-parameter]).
  if (context().resumed()) return;
  maybeApply(unit_ == Unit::Epoch ? context().startingEpoch() - 1 : context().globalStep(),
             /*freshStart=*/true);
}

void HyperParamSetter::onBeforeEpoch() {
  if (unit_ != Unit::Epoch) return;
  // An epoch resumed in the middle already had its value set before the checkpoint.
  if (context().localStep() != 0) {
    considered_ = context().epochNum() - 1;
    return;
  }
  maybeApply(context().epochNum() - 1, /*freshStart=*/false);
}

void HyperParamSetter::onBeforeRun() {
  if (unit_ == Unit::Step) maybeApply(context().globalStep(), /*freshStart=*/false);
}

void HyperParamSetter::maybeApply(int64_t position, bool freshStart) {
  if (considered_ == position) return;
  considered_ = position;
  const std::optional<double> value = valueAt(position);
  if (!value) return;
  if (!freshStart) {
    const std::optional<double> previous = valueAt(position - 1);
    if (previous && *previous == *value) return;
  }
  const double old = target_->get();
  target_->set(*value);
  if (unit_ == Unit::Epoch || !applied_) {
    TB_LOG(Info) << param_ << " set to " << *value << " (was " << old << ") "
                 << (unit_ == Unit::Epoch ? "after epoch " : "at step ") << position;
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
