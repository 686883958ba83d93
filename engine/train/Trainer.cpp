#include "engine/train/Trainer.h"

#include <exception>

#include "engine/callbacks/StopTraining.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

Trainer::Trainer() : monitors_(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{})) {}

Trainer::~Trainer() = default;

void Trainer::registerCallback(CallbackPtr callback) {
  TB_CHECK(!trained_, "callbacks must be registered before train()");
  TB_CHECK(callback != nullptr, "null callback");
  callbacks_.push_back(std::move(callback));
}

void Trainer::setMonitors(std::shared_ptr<Monitors> monitors) {
  TB_CHECK(!trained_, "monitors must be set before train()");
  TB_CHECK(monitors != nullptr, "null monitors");
  monitors_ = std::move(monitors);
}

void Trainer::registerHyperParam(std::shared_ptr<HyperParam> param) {
  TB_CHECK(param != nullptr, "null hyper-parameter");
  hyperParams_[param->name()] = std::move(param);
}

HyperParam* Trainer::hyperParam(const std::string& name) {
  auto it = hyperParams_.find(name);
  return it == hyperParams_.end() ? nullptr : it->second.get();
}

double Trainer::secondsInCallbacks() const { return group_ ? group_->secondsInCallbacks() : 0.0; }

void Trainer::saveCheckpoint(const std::string& path) {
  TB_CHECK(false, "this trainer has no model to save to ", path);
}

std::map<std::string, torch::Tensor> Trainer::runInference(const Datapoint&) {
  TB_CHECK(false, "this trainer has no model to run inference with");
  return {};
}

void Trainer::requestStop() {
  stopRequested_ = true;
  // Taking the mutex orders the store before a waiter's predicate check: no lost wake-up.
  { std::lock_guard<std::mutex> lock(commandMutex_); }
  commandCv_.notify_all();
}

void Trainer::setPaused(bool paused) {
  paused_ = paused;
  { std::lock_guard<std::mutex> lock(commandMutex_); }
  commandCv_.notify_all();
}

void Trainer::post(std::function<void()> command) {
  {
    std::lock_guard<std::mutex> lock(commandMutex_);
    commands_.push_back(std::move(command));
    hasCommands_ = true;
  }
  commandCv_.notify_all();
}

void Trainer::train(const LoopOptions& options) {
  TB_CHECK(!trained_, "train() runs once per trainer");
  TB_CHECK(options.stepsPerEpoch > 0, "steps_per_epoch must be positive, got ",
           options.stepsPerEpoch);
  TB_CHECK(options.startingEpoch >= 1 && options.startingEpoch <= options.maxEpoch,
           "starting_epoch must be in [1, max_epoch], got starting_epoch=", options.startingEpoch,
           " max_epoch=", options.maxEpoch);
  trained_ = true;
  options_ = options;

  // Monitors run last (as in tensorpack), so that in triggerEpoch they flush what every other
  // callback put during that same hook.
  std::vector<CallbackPtr> all = callbacks_;
  all.push_back(monitors_);
  group_ = std::make_unique<Callbacks>(std::move(all));
  epochNum_ = options_.startingEpoch - 1;
  globalStep_ =
      options_.startingGlobalStep.value_or((options_.startingEpoch - 1) * options_.stepsPerEpoch);
  group_->setupGraph(*this);
  initialize();
  mainLoop();
}

void Trainer::mainLoop() {
  std::exception_ptr failure;
  try {
    group_->beforeTrain();
    for (int64_t epoch = options_.startingEpoch; epoch <= options_.maxEpoch; ++epoch) {
      epochNum_ = epoch;
      localStep_ = 0;
      group_->beforeEpoch();
      for (localStep_ = 0; localStep_ < options_.stepsPerEpoch; ++localStep_) {
        betweenSteps();
        group_->beforeRun();
        runStep();
        ++globalStep_;
        onStepCounted();
        group_->afterRun();
        group_->triggerStep();
      }
      localStep_ = options_.stepsPerEpoch - 1;
      group_->afterEpoch();
      group_->triggerEpoch();
    }
  } catch (const StopTraining& stop) {
    stoppedEarly_ = true;
    TB_LOG(Info) << "training stopped at epoch " << epochNum_ << ", global step " << globalStep_
                 << ": " << stop.what();
  } catch (...) {
    failure = std::current_exception();
    failed_ = true;
  }
  try {
    group_->afterTrain();
  } catch (...) {
    if (!failure) failure = std::current_exception();
  }
  if (failure) std::rethrow_exception(failure);
}

void Trainer::betweenSteps() {
  if (hasCommands_.load(std::memory_order_relaxed) || paused_.load(std::memory_order_relaxed)) {
    std::unique_lock<std::mutex> lock(commandMutex_);
    while (true) {
      while (!commands_.empty()) {
        auto command = std::move(commands_.front());
        commands_.pop_front();
        lock.unlock();
        command();
        lock.lock();
      }
      hasCommands_ = false;
      if (!paused_ || stopRequested_) break;
      commandCv_.wait(lock, [&] { return !paused_ || stopRequested_ || !commands_.empty(); });
    }
  }
  if (stopRequested_.load(std::memory_order_relaxed)) throw StopTraining("stop requested");
}

}  // namespace tbench
