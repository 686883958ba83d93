#pragma once
// EarlyStopping: ends training when a stat stops improving, as Keras' EarlyStopping and
// PyTorch Lightning's EarlyStopping callback do (issue 37).
//
//   // Stop when validation_error has not improved by more than 0.001 for 5 epochs.
//   trainer.registerCallback(std::make_shared<EarlyStopping>("validation_error",
//       EarlyStopping::Options().patience(5).minDelta(0.001)));
//
// After every epoch (triggerEpoch) a new value of `stat` is taken (a value already taken, of a
// stat produced every k epochs, does not count again). An improvement is a value below the best
// by more than min_delta (above, in mode max); otherwise the epoch counts as one without
// improvement, and after `patience` of them in a row training ends (Lightning's wait_count >=
// patience). A value that is NaN or infinite ends it at once (Lightning's check_finite). The end
// is StopTraining at the epoch's end, after the epoch's other callbacks and savers ran (Note [A
// stop lets the hook finish], Callbacks.cpp): the run ends as a success, "finished, stopped
// early" (stoppedEarly(), read by RunPreparation). Every rank of a distributed run sees the same
// validation stats (Note [Sharded validation]); on a stat of each rank's own batches
// (train_error) one rank may stop alone, and the ranks' stop vote after the epoch
// (DistributedTrainer::onEpochTriggered) stops them all at that epoch. Its state (best, epochs without improvement) is part of checkpoints: a
// resumed run goes on counting.

#include <cstdint>
#include <string>

#include "engine/callbacks/Callback.h"
#include "engine/callbacks/StatReading.h"

namespace tbench {

class EarlyStopping : public Callback {
 public:
  struct Options {
    Options& patience(int64_t v) {
      patience_ = v;
      return *this;
    }
    Options& minDelta(double v) {
      minDelta_ = v;
      return *this;
    }
    Options& maximize(bool v) {
      maximize_ = v;
      return *this;
    }
    int64_t patience_ = 3;   ///< epochs without improvement tolerated; stops at this many
    double minDelta_ = 0.0;  ///< an improvement must exceed this (absolute), >= 0
    bool maximize_ = false;  ///< the stat is better when higher (an accuracy)
  };

  /// InputError for patience < 1 or a negative min_delta.
  EarlyStopping(std::string stat, Options options);

  std::string name() const override;
  std::string checkpointState() const override;
  void restoreCheckpointState(const std::string& state) override;

  /// Whether it ended training, and why ("validation_error did not improve ...").
  bool stoppedEarly() const { return !reason_.empty(); }
  const std::string& reason() const { return reason_; }
  double best() const { return best_; }
  int64_t epochsWithoutImprovement() const { return wait_; }

 private:
  void onTriggerEpoch() override;

  std::string stat_;
  Options options_;
  double best_;
  int64_t wait_ = 0;
  StatReading reading_;  // its new value each epoch
  std::string reason_;
};

}  // namespace tbench
