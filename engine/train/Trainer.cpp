#include "engine/train/Trainer.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <utility>

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

std::map<std::string, double> Trainer::hyperParamValues() const {
  std::map<std::string, double> values;
  for (const auto& [name, param] : hyperParams_) values[name] = param->get();
  return values;
}

void Trainer::restoreHyperParamValues(const std::map<std::string, double>& values) {
  for (const auto& [name, value] : values) {
    if (HyperParam* param = hyperParam(name)) {
      param->set(value);
    } else {
      TB_LOG(Warning) << "the checkpoint has a hyper-parameter \"" << name
                      << "\" this trainer does not have; ignored";
    }
  }
}

namespace {

/// The callbacks' names made unique in registration order: "X", "X#2", ...
template <typename Visit>
void forEachNamedCallback(const std::vector<CallbackPtr>& callbacks, Visit visit) {
  std::map<std::string, int> seen;
  for (const auto& cb : callbacks) {
    const std::string name = cb->name();
    const int n = ++seen[name];
    visit(n == 1 ? name : name + "#" + std::to_string(n), *cb);
  }
}

}  // namespace

std::map<std::string, std::string> Trainer::callbackStates() const {
  std::map<std::string, std::string> states;
  forEachNamedCallback(callbacks_, [&](const std::string& key, Callback& cb) {
    std::string state = cb.checkpointState();
    if (!state.empty()) states[key] = std::move(state);
  });
  return states;
}

void Trainer::restoreCallbackStates(const std::map<std::string, std::string>& states) {
  TB_CHECK(!trained_, "callback states are restored before train()");
  forEachNamedCallback(callbacks_, [&](const std::string& key, Callback& cb) {
    auto it = states.find(key);
    if (it != states.end()) cb.restoreCheckpointState(it->second);
  });
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
  TB_CHECK(options.startingLocalStep >= 0 && options.startingLocalStep < options.stepsPerEpoch,
           "the starting local step must be in [0, steps_per_epoch), got ",
           options.startingLocalStep, " with steps_per_epoch=", options.stepsPerEpoch);
  trained_ = true;
  options_ = options;

  // Monitors run last (as in tensorpack), so that in triggerEpoch they flush what every other
  // callback put during that same hook.
  std::vector<CallbackPtr> all = callbacks_;
  all.push_back(monitors_);
  group_ = std::make_unique<Callbacks>(std::move(all));
  globalStep_ = options_.startingGlobalStep.value_or(
      (options_.startingEpoch - 1) * options_.stepsPerEpoch + options_.startingLocalStep);
  // Before the first step: the epoch before the starting one is complete, or, in a run resumed
  // mid-epoch, the starting epoch has startingLocalStep steps done (a checkpoint taken now
  // resumes at the same place).
  if (options_.startingLocalStep == 0) {
    epochNum_ = options_.startingEpoch - 1;
    epochStartStep_ = globalStep_ - options_.stepsPerEpoch;
  } else {
    epochNum_ = options_.startingEpoch;
    epochStartStep_ = globalStep_ - options_.startingLocalStep;
  }
  group_->setupGraph(*this);
  initialize();
  mainLoop();
}

void Trainer::mainLoop() {
  std::exception_ptr failure;
  // A callback that reads a step's value (the progress bar's cost) waits for the steps queued
  // on the device: that wait is the steps' time, not the callback's (ThroughputTracker).
  monitors_->setBeforeRead([this] {
    const auto start = std::chrono::steady_clock::now();
    readStepScalars();
    group_->notInCallbacks(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
  try {
    group_->beforeTrain();
    runAfterTriggers();  // a trigger in beforeTrain (PeriodicTrigger's atStart) saves the start
    int64_t firstLocalStep = options_.startingLocalStep;
    for (int64_t epoch = options_.startingEpoch; epoch <= options_.maxEpoch; ++epoch) {
      epochNum_ = epoch;
      localStep_ = std::exchange(firstLocalStep, 0);
      epochStartStep_ = globalStep_ - localStep_;
      group_->beforeEpoch();
      for (; localStep_ < options_.stepsPerEpoch; ++localStep_) {
        betweenSteps();
        group_->beforeRun();
        runStep();
        ++globalStep_;
        onStepCounted();
        group_->afterRun();
        // A stop asked in triggerStep ends the loop after this point's deferred saves, as all
        // its triggers ran (Note [A stop lets the hook finish]); on an epoch's last step the
        // saves wait for the epoch's triggers (Note [Checkpoint after the triggers]), which a
        // stop there skips, so they are dropped as before.
        const std::exception_ptr stop = stopAfter([this] { group_->triggerStep(); });
        if (localStep_ + 1 < options_.stepsPerEpoch) runAfterTriggers();
        if (stop) std::rethrow_exception(stop);
      }
      localStep_ = options_.stepsPerEpoch - 1;
      onEpochStepsDone();
      group_->afterEpoch();
      // The value each hyper-parameter had for the epoch's last step, before anything in
      // triggerEpoch changes it for the next (Note [One rule for a hyper-parameter]).
      for (const auto& [name, param] : hyperParams_) monitors_->putScalar(name, param->get());
      // EarlyStopping's stop comes after the epoch's other callbacks, its rank vote and its
      // saves: the epoch is complete.
      std::exception_ptr stop = stopAfter([this] { group_->triggerEpoch(); });
      if (onEpochTriggered(stop != nullptr) && !stop) {
        stoppedByAnotherRank_ = true;
        stop = std::make_exception_ptr(
            StopTraining("a callback of another rank ended training after this epoch"));
      }
      runAfterTriggers();
      if (stop) std::rethrow_exception(stop);
    }
  } catch (const StopTraining& stop) {
    stoppedEarly_ = true;
    TB_LOG(Info) << "training stopped at epoch " << epochNum_ << ", global step " << globalStep_
                 << ": " << stop.what();
  } catch (...) {
    failure = std::current_exception();
    failed_ = true;
  }
  afterTriggers_.clear();  // a point whose triggers did not all run: not saved there
  try {
    readStepScalars();  // the last steps' values, also those of a failed run (its NaN cost)
  } catch (...) {
    if (!failure) failure = std::current_exception();
  }
  try {
    group_->afterTrain();
  } catch (...) {
    if (!failure) failure = std::current_exception();
  }
  monitors_->setBeforeRead(nullptr);
  if (failure) std::rethrow_exception(failure);
}

std::exception_ptr Trainer::stopAfter(const std::function<void()>& hook) {
  try {
    hook();
  } catch (const StopTraining&) {
    return std::current_exception();
  }
  return nullptr;
}

void Trainer::afterTriggers(std::function<void()> action) {
  afterTriggers_.push_back(std::move(action));
}

void Trainer::runAfterTriggers() {
  if (afterTriggers_.empty()) return;
  // A checkpoint is written only once every step's scalars were seen (a bad cost stops the run
  // before its state is saved: CheckNumerics).
  readStepScalars();
  // An action may ask for more (it runs them after its own); none is lost.
  for (size_t i = 0; i < afterTriggers_.size(); ++i) {
    auto action = std::move(afterTriggers_[i]);
    action();
  }
  afterTriggers_.clear();
}

void Trainer::betweenSteps() {
  bool waiting = false;
  std::chrono::steady_clock::time_point pausedAt;
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
      if (!waiting) {
        waiting = true;
        lock.unlock();
        readStepScalars();  // a paused run's charts show every step run
        lock.lock();
        pausedAt = std::chrono::steady_clock::now();
        TB_LOG(Info) << "paused at global step " << globalStep_;
      }
      commandCv_.wait(lock, [&] { return !paused_ || stopRequested_ || !commands_.empty(); });
    }
  }
  if (waiting) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - pausedAt).count();
    secondsPaused_ += seconds;
    TB_LOG(Info) << (stopRequested_ ? "stopped while paused" : "resumed") << " at global step "
                 << globalStep_ << " after " << std::round(seconds * 10) / 10 << " s paused";
  }
  if (stopRequested_.load(std::memory_order_relaxed)) throw StopTraining("stop requested");
}

}  // namespace tbench
