#pragma once
// HyperParamSetter: sets a hyper-parameter from a function of the training position and puts
// its applied value as a scalar under the parameter's name (e.g. "learning_rate").
//
// Positions: with Unit::Epoch the value for epoch E is applied in beforeEpoch of epoch E (and
// in beforeTrain for the starting epoch); with Unit::Step the value for step s is applied in
// beforeRun of the step that starts with globalStep() == s. Because the value is a function of
// the position only, a resumed run gets the same value the uninterrupted run had there.
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
  std::string name() const override;

 protected:
  /// The value at `position` (an epoch number or a global step), or nullopt to keep it.
  virtual std::optional<double> valueAt(int64_t position) const = 0;

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override;
  void onBeforeEpoch() override;
  void onBeforeRun() override;
  void onTriggerEpoch() override;
  void apply(int64_t position);

  std::string param_;
  Unit unit_;
  HyperParam* target_ = nullptr;
  std::optional<double> applied_;
};

/// A schedule given as (position, value) points, piecewise constant or linearly interpolated.
class ScheduledHyperParamSetter : public HyperParamSetter {
 public:
  enum class Interpolation { Piecewise, Linear };
  /// `points` must be non-empty and strictly increasing in position.
  ScheduledHyperParamSetter(std::string param, std::vector<std::pair<int64_t, double>> points,
                            Unit unit = Unit::Epoch,
                            Interpolation interpolation = Interpolation::Piecewise);
  /// The schedule's value at `position` (nullopt before the first point); for previews.
  std::optional<double> scheduledValue(int64_t position) const { return valueAt(position); }

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
