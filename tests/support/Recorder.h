#pragma once
// Test support: a callback that records every hook with the loop counters, and a helper that
// runs the real loop with NoOpTrainer + DummyConstantInput.

#include <functional>
#include <string>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/input/DummyConstantInput.h"
#include "engine/train/NoOpTrainer.h"

namespace tbench::testing {

class Recorder : public Callback {
 public:
  std::vector<std::string> events;
  /// Optional: called with the hook name at every hook (to throw, stop, ...).
  std::function<void(const std::string&, TrainerContext&)> hook;

 private:
  void record(const std::string& what) {
    auto& c = context();
    events.push_back(what + " e" + std::to_string(c.epochNum()) + " g" +
                     std::to_string(c.globalStep()) + " l" + std::to_string(c.localStep()));
    if (hook) hook(what, c);
  }
  void onSetupGraph() override { record("setupGraph"); }
  void onBeforeTrain() override { record("beforeTrain"); }
  void onBeforeEpoch() override { record("beforeEpoch"); }
  void onBeforeRun() override { record("beforeRun"); }
  void onAfterRun() override { record("afterRun"); }
  void onTriggerStep() override { record("triggerStep"); }
  void onAfterEpoch() override { record("afterEpoch"); }
  void onTriggerEpoch() override {
    record("triggerEpoch");
    trigger();
  }
  void onTrigger() override { record("trigger"); }
  void onAfterTrain() override { record("afterTrain"); }
};

/// The input specs used by loop tests: one float input of shape [-1, 3].
inline std::vector<InputSpec> loopSpecs() { return {{"x", torch::kFloat32, {-1, 3}}}; }

/// A NoOpTrainer over a DummyConstantInput of batch 4.
inline std::unique_ptr<NoOpTrainer> makeNoOpTrainer(NoOpTrainer::StepFunction onStep = {}) {
  return std::make_unique<NoOpTrainer>(std::make_shared<DummyConstantInput>(4), loopSpecs(),
                                       std::move(onStep));
}

}  // namespace tbench::testing
