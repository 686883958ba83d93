#pragma once
// HyperParamSetter: sets a hyper-parameter (e.g. "learning_rate") from a function of the
// training position (tensorpack's HyperParamSetter / ScheduledHyperParamSetter).
//
// Positions (tensorpack's meaning):
//  - Unit::Epoch: the position is the number of epochs completed. The value for position E
//    is applied before the first step of epoch E+1: a schedule point (E, v) means "v after
//    epoch E", and (0, v) sets v before training.
//  - Unit::Step: the position is globalStep(); the value for s is applied in beforeRun of the
//    step that starts with globalStep() == s (after s steps).
//
// Note [One rule for a hyper-parameter]: the setter sets the parameter only where its own
// value changes: at the start of a fresh run (the value for the starting position, if any),
// and at every position whose value differs from the previous position's. Between those
// points it leaves the parameter alone, so a StatMonitorParamSetter reduction or a live edit
// from the window holds until the schedule's next point. (With linear interpolation the value
// changes at every position between points, so other changes last one epoch or step.) Since
// whether to set depends on the position only, and checkpoints keep the hyper-parameter's
// value, a resumed run sets exactly what the uninterrupted run set. The trainer puts the
// value used by each epoch's last step as a scalar under the parameter's name.
// When the function has no value for a position (before the first point of a schedule) the
// parameter keeps its current value.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/callbacks/Callback.h"

namespace tbench {

class HyperParamSetter : public Callback {
 public:
  enum class Unit { Epoch, Step };
  HyperParamSetter(std::string param, Unit unit);
  /// The value last applied, if any.
  std::optional<double> applied() const { return applied_; }
  /// The function's value at `position` (nullopt: keep the current value); for previews.
  std::optional<double> valueFor(int64_t position) const { return valueAt(position); }
  Unit unit() const { return unit_; }
  std::string name() const override;

 protected:
  /// The value at `position` (an epoch number or a global step), or nullopt to keep it.
  virtual std::optional<double> valueAt(int64_t position) const = 0;

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override;
  void onBeforeEpoch() override;
  void onBeforeRun() override;
  /// Sets the value of `position` when it differs from the previous position's (or, for the
  /// start of a fresh run, whenever there is one). Each position is considered once.
  void maybeApply(int64_t position, bool freshStart);

  std::string param_;
  Unit unit_;
  HyperParam* target_ = nullptr;
  std::optional<double> applied_;
  std::optional<int64_t> considered_;  // the last position maybeApply looked at
};

/// A schedule given as (position, value) points, piecewise constant or linearly interpolated.
class ScheduledHyperParamSetter : public HyperParamSetter {
 public:
  enum class Interpolation { Piecewise, Linear };
  /// `points` must be non-empty and strictly increasing in position.
  ScheduledHyperParamSetter(std::string param, std::vector<std::pair<int64_t, double>> points,
                            Unit unit = Unit::Epoch,
                            Interpolation interpolation = Interpolation::Piecewise);

 protected:
  std::optional<double> valueAt(int64_t position) const override;

 private:
  std::vector<std::pair<int64_t, double>> points_;
  Interpolation interpolation_;
};

/// The value is any function of the position (and the current value).
class HyperParamSetterWithFunc : public HyperParamSetter {
 public:
  using Function = std::function<std::optional<double>(int64_t position)>;
  HyperParamSetterWithFunc(std::string param, Function function, Unit unit = Unit::Epoch);

 protected:
  std::optional<double> valueAt(int64_t position) const override { return function_(position); }

 private:
  Function function_;
};

}  // namespace tbench
