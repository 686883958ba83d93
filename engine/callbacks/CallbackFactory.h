#pragma once
// CallbackFactory: a callback made of functions, for small one-off behaviour.
//
//   CallbackFactory::Hooks hooks;
//   hooks.trigger = [](TrainerContext& c) { ... };
//   auto cb = std::make_shared<CallbackFactory>("dump", std::move(hooks));
//
// or, for one hook, CallbackFactory::everyStep("dump", hook) and everyTrigger.

#include <functional>

#include "engine/callbacks/Callback.h"

namespace tbench {

class CallbackFactory : public Callback {
 public:
  using Hook = std::function<void(TrainerContext&)>;
  struct Hooks {
    Hook setupGraph;
    Hook beforeTrain;
    Hook beforeEpoch;
    Hook triggerStep;
    Hook trigger;
    Hook afterTrain;
  };
  CallbackFactory(std::string name, Hooks hooks)
      : name_(std::move(name)), hooks_(std::move(hooks)) {}
  std::string name() const override { return name_; }

  /// A callback of one hook: `hook` after every step (triggerStep).
  static std::shared_ptr<CallbackFactory> everyStep(std::string name, Hook hook) {
    Hooks hooks;
    hooks.triggerStep = std::move(hook);
    return std::make_shared<CallbackFactory>(std::move(name), std::move(hooks));
  }
  /// A callback of one hook: `hook` at every trigger (each epoch's end unless scheduled).
  static std::shared_ptr<CallbackFactory> everyTrigger(std::string name, Hook hook) {
    Hooks hooks;
    hooks.trigger = std::move(hook);
    return std::make_shared<CallbackFactory>(std::move(name), std::move(hooks));
  }

 private:
  void onSetupGraph() override { call(hooks_.setupGraph); }
  void onBeforeTrain() override { call(hooks_.beforeTrain); }
  void onBeforeEpoch() override { call(hooks_.beforeEpoch); }
  void onTriggerStep() override { call(hooks_.triggerStep); }
  void onTrigger() override { call(hooks_.trigger); }
  void onAfterTrain() override { call(hooks_.afterTrain); }
  void call(const Hook& hook) {
    if (hook) hook(context());
  }

  std::string name_;
  Hooks hooks_;
};

}  // namespace tbench
