#pragma once
// CheckNumerics: stops a run whose numbers went bad. It checks that every step's "cost" (a GAN:
// "d_loss", "g_loss") is finite, and every `parameterCheckEverySteps` steps (and at the end of
// every epoch) that every parameter is. A failure throws NumericError naming the epoch, the global
// step and the scalar or tensor, so training ends as failed: checkpoint savers then keep the last
// good checkpoint instead of saving the bad state.
//
// The costs are checked as the monitors get them (MonitorSink::watchScalars), which is when the
// trainer reads its step scalars (Note [Step scalars read in batches]): a step's cost is not read
// back at its step, but always before a checkpoint is written (Trainer's afterTriggers) and at
// an epoch's last step, so a bad value is reported with its own step and never saved.

#include <stdexcept>

#include "engine/callbacks/Callback.h"

namespace tbench {

class NumericError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class CheckNumerics : public Callback {
 public:
  /// 0: check parameters at the end of every epoch only.
  explicit CheckNumerics(int64_t parameterCheckEverySteps = 0);

 private:
  void onSetupGraph() override;
  void onTriggerStep() override;
  void onTriggerEpoch() override { checkParameters(); }
  void checkParameters();

  int64_t parameterCheckEverySteps_;
};

}  // namespace tbench
