#pragma once
// CheckNumerics: stops a run whose numbers went bad. After every step it checks that the
// latest "cost" (a GAN: "d_loss", "g_loss") is finite, and every `parameterCheckEverySteps` steps
// (and at the end of every epoch) that every parameter is. A failure throws NumericError naming the
// epoch, the global step and the scalar or tensor, so training ends as failed: checkpoint savers
// then keep the last good checkpoint instead of saving the bad state.

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
  void onTriggerStep() override;
  void onTriggerEpoch() override { checkParameters(); }
  void checkParameters();

  int64_t parameterCheckEverySteps_;
};

}  // namespace tbench
