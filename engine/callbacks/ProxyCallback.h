#pragma once
// ProxyCallback: forwards every hook to a wrapped callback. Decorators derive from it and
// override the hooks they change.

#include "engine/callbacks/Callback.h"

namespace tbench {

class ProxyCallback : public Callback {
 public:
  explicit ProxyCallback(CallbackPtr inner);
  std::string name() const override { return Callback::name() + "(" + inner_->name() + ")"; }
  std::string checkpointState() const override { return inner_->checkpointState(); }
  void restoreCheckpointState(const std::string& state) override {
    inner_->restoreCheckpointState(state);
  }

 protected:
  Callback& inner() const { return *inner_; }

  void onSetupGraph() override { inner_->setupGraph(context()); }
  void onBeforeTrain() override { inner_->beforeTrain(); }
  void onBeforeEpoch() override { inner_->beforeEpoch(); }
  void onBeforeRun() override { inner_->beforeRun(); }
  void onAfterRun() override { inner_->afterRun(); }
  void onTriggerStep() override { inner_->triggerStep(); }
  void onAfterEpoch() override { inner_->afterEpoch(); }
  void onTriggerEpoch() override { inner_->triggerEpoch(); }
  void onTrigger() override { inner_->trigger(); }
  void onAfterTrain() override { inner_->afterTrain(); }

 private:
  CallbackPtr inner_;
};

}  // namespace tbench
