#pragma once
// StatMonitorParamSetter: changes a hyper-parameter when a stat stops improving (tensorpack's
// StatMonitorParamSetter; PyTorch's ReduceLROnPlateau).
//
//   // Halve the learning rate when validation_error has not improved for 2 epochs.
//   config.callbacks.push_back(std::make_shared<StatMonitorParamSetter>(
//       "learning_rate", "validation_error", StatMonitorParamSetter::Options().factor(0.5)));
//
// After every epoch (triggerEpoch) a new value of `stat` is recorded; a value already
// recorded does not count again (a stat produced every k epochs counts once per k epochs, so
// `patience` counts values, as in tensorpack). Once more than `patience` values have been
// recorded since the last change (or the start) and none of the newest `patience` beats the
// best value before them by more than `threshold` (lower is better, or higher with maximize),
// the parameter becomes factor × its value, never below `minValue`, and the window starts
// again from that value. The new value takes effect from the next epoch and holds until a
// schedule's next point (Note [One rule for a hyper-parameter], HyperParamSetter.h).
// Register it after the callback that produces the stat (InferenceRunner): a stat that is
// missing at the end of an epoch is reported once as a warning.
//
// Its window is part of checkpoints (checkpointState), so a resumed run continues it.

#include <optional>
#include <string>
#include <vector>

#include "engine/callbacks/Callback.h"

namespace tbench {

class StatMonitorParamSetter : public Callback {
 public:
  struct Options {
    Options& factor(double v) {
      factor_ = v;
      return *this;
    }
    Options& patience(int64_t v) {
      patience_ = v;
      return *this;
    }
    Options& threshold(double v) {
      threshold_ = v;
      return *this;
    }
    Options& maximize(bool v) {
      maximize_ = v;
      return *this;
    }
    Options& minValue(double v) {
      minValue_ = v;
      return *this;
    }
    double factor_ = 0.5;     ///< in (0, 1) to reduce, > 1 to raise
    int64_t patience_ = 2;    ///< epochs without improvement before a change, >= 1
    double threshold_ = 0.0;  ///< improvement smaller than this does not count, >= 0
    bool maximize_ = false;   ///< the stat is better when higher (accuracy)
    double minValue_ = 0.0;   ///< the parameter never goes below this
  };

  /// Throws InputError for factor <= 0 or == 1, patience < 1 or a negative threshold.
  StatMonitorParamSetter(std::string param, std::string stat, Options options);
  /// With the default Options.
  StatMonitorParamSetter(std::string param, std::string stat);

  std::string name() const override;
  std::string checkpointState() const override;
  void restoreCheckpointState(const std::string& state) override;
  /// The values of the stat recorded since the last change.
  const std::vector<double>& window() const { return values_; }
  /// How many times the parameter was changed.
  int changes() const { return changes_; }

 private:
  void onSetupGraph() override;
  void onTriggerEpoch() override;

  std::string param_;
  std::string stat_;
  Options options_;
  HyperParam* target_ = nullptr;
  std::vector<double> values_;
  bool warnedMissing_ = false;
  int64_t countSeen_ = 0;  // monitors().count(stat_) when a value was last recorded
  int changes_ = 0;
};

}  // namespace tbench
