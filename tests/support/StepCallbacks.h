#pragma once
// Callbacks the engine tests put into a run at a given step.

#include <cstdint>
#include <string>

#include "engine/callbacks/CallbackFactory.h"

namespace tbench::testing {

/// After global step `step` has run (its triggerStep), runs `what` on the engine thread, as a
/// command the window posts runs between steps.
inline CallbackPtr atStep(int64_t step, CallbackFactory::Hook what) {
  return CallbackFactory::everyStep("at step " + std::to_string(step),
                                    [step, what = std::move(what)](TrainerContext& c) {
                                      if (c.globalStep() == step) what(c);
                                    });
}

/// The first part of a run that another resumes: after step `step` saves a checkpoint to `file`
/// and stops the run there.
inline CallbackPtr saveAndStopAfter(int64_t step, const std::string& file) {
  return atStep(step, [file](TrainerContext& c) {
    c.saveCheckpoint(file);
    c.requestStop();
  });
}

}  // namespace tbench::testing
