#pragma once
// StatMonitorParamSetter: changes a hyper-parameter when a stat stops improving: PyTorch's
// ReduceLROnPlateau rule exactly (torch/optim/lr_scheduler.py), on tensorpack's callback.
//
//   // Halve the learning rate when validation_error has not improved for 3 epochs.
//   config.callbacks.push_back(std::make_shared<StatMonitorParamSetter>(
//       "learning_rate", "validation_error", StatMonitorParamSetter::Options().factor(0.5)));
//
// After every epoch (triggerEpoch) a new value of `stat` is taken; a value already taken does
// not count again (a stat produced every k epochs counts once per k epochs, as tensorpack reads
// the stat's history). For each value, as ReduceLROnPlateau.step(value):
//   - it is better than the best so far when (min, rel) value < best * (1 - threshold),
//     (min, abs) value < best - threshold, (max, rel) value > best * (1 + threshold),
//     (max, abs) value > best + threshold (the best starts at +inf for min, -inf for max; a
//     non-finite value is never better); better: best = value and the bad epochs go to 0,
//     else they count one more;
//   - in cooldown (the cooldown counter > 0) the counter goes down by one and the bad epochs
//     go to 0;
//   - more than `patience` bad epochs: the parameter becomes max(value x factor, minValue),
//     applied when it moves by more than 1e-8 (PyTorch's eps); the cooldown counter is set to
//     `cooldown` and the bad epochs go to 0. The best is kept (all-time best).
// So with patience p the parameter changes after p + 1 epochs without improvement. Beyond
// PyTorch: a factor > 1 raises the parameter (minValue then does not apply). The new value
// takes effect from the next epoch and holds until a schedule's next point (Note [One rule
// for a hyper-parameter], HyperParamSetter.h). Register it after the callback that produces
// the stat (InferenceRunner): a stat missing at the end of an epoch is reported once.
//
// Its state (best, bad epochs, cooldown counter) is part of checkpoints (checkpointState), so
// a resumed run continues it.

#include <optional>
#include <string>
#include <utility>

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
    /// "rel" (PyTorch's default) or "abs".
    Options& thresholdMode(std::string v) {
      thresholdMode_ = std::move(v);
      return *this;
    }
    Options& cooldown(int64_t v) {
      cooldown_ = v;
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
    int64_t patience_ = 2;    ///< bad epochs tolerated: the change comes after patience + 1
    double threshold_ = 0.0;  ///< improvement smaller than this does not count, >= 0
    std::string thresholdMode_ = "rel";  ///< threshold relative to the best, or absolute
    int64_t cooldown_ = 0;               ///< epochs after a change in which bad epochs reset
    bool maximize_ = false;              ///< the stat is better when higher (accuracy)
    double minValue_ = 0.0;              ///< the parameter never goes below this
  };

  /// Throws InputError for factor <= 0 or == 1, patience or cooldown < 0, a negative threshold
  /// or a threshold mode other than "rel" and "abs".
  StatMonitorParamSetter(std::string param, std::string stat, Options options);
  /// With the default Options.
  StatMonitorParamSetter(std::string param, std::string stat);

  std::string name() const override;
  std::string checkpointState() const override;
  void restoreCheckpointState(const std::string& state) override;
  /// The best value so far (+inf for min, -inf for max before the first).
  double best() const { return best_; }
  /// Values since the last improvement (or change, or the end of a cooldown).
  int64_t badEpochs() const { return badEpochs_; }
  /// How many times the parameter was changed.
  int changes() const { return changes_; }

 private:
  void onSetupGraph() override;
  void onTriggerEpoch() override;

  std::string param_;
  std::string stat_;
  Options options_;
  HyperParam* target_ = nullptr;
  double best_;
  int64_t badEpochs_ = 0;
  int64_t cooldownCounter_ = 0;
  bool warnedMissing_ = false;
  int64_t countSeen_ = 0;  // monitors().count(stat_) when a value was last recorded
  int changes_ = 0;
};

}  // namespace tbench
