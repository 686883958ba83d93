#include "engine/callbacks/Callbacks.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "engine/callbacks/StopTraining.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

Callbacks::Callbacks(std::vector<CallbackPtr> callbacks) : callbacks_(std::move(callbacks)) {
  for (const auto& cb : callbacks_) TB_CHECK(cb != nullptr, "null callback in the list");
  epochSeconds_.assign(callbacks_.size(), 0.0);
}

// Note [A stop lets the hook finish]: StopTraining from one callback (EarlyStopping in
// triggerEpoch) ends training after the point it was thrown at, not inside it: the callbacks
// after it in the same hook still run (a MinSaver's best of that epoch, the printer's and the
// trackers' last figures, the monitors' flush), then the first StopTraining is rethrown, and
// the loop runs the point's deferred saves before it stops (Trainer::mainLoop; a stop in an
// epoch's last triggerStep drops them, as the epoch's triggers they wait for do not run; a
// distributed run votes an epoch's stop, so that every rank stops there). Keras' and
// Lightning's early stopping set a flag the loop reads at the epoch's end to the same effect;
// tensorpack lets the exception skip the rest of the hook. Any other exception ends the hook
// at once.
template <typename Hook>
std::exception_ptr Callbacks::forEach(Hook hook) {
  using Clock = std::chrono::steady_clock;
  std::exception_ptr stop;
  for (size_t i = 0; i < callbacks_.size(); ++i) {
    hookStart_ = Clock::now();
    hookNotCallbacks_ = 0;
    inHook_ = true;
    try {
      hook(*callbacks_[i]);
    } catch (const StopTraining&) {
      if (!stop) stop = std::current_exception();
    } catch (...) {
      inHook_ = false;
      throw;
    }
    inHook_ = false;
    const double seconds =
        std::chrono::duration<double>(Clock::now() - hookStart_).count() - hookNotCallbacks_;
    epochSeconds_[i] += seconds;
    total_ += seconds;
  }
  return stop;
}

namespace {
void rethrowStop(const std::exception_ptr& stop) {
  if (stop) std::rethrow_exception(stop);
}
}  // namespace

double Callbacks::secondsInCallbacks() const {
  if (!inHook_) return total_;
  return total_ +
         std::chrono::duration<double>(std::chrono::steady_clock::now() - hookStart_).count() -
         hookNotCallbacks_;
}

void Callbacks::notInCallbacks(double seconds) {
  if (inHook_) hookNotCallbacks_ += seconds;
}

void Callbacks::onSetupGraph() {
  rethrowStop(forEach([this](Callback& cb) { cb.setupGraph(context()); }));
}
void Callbacks::onBeforeTrain() {
  rethrowStop(forEach([](Callback& cb) { cb.beforeTrain(); }));
}
void Callbacks::onBeforeEpoch() {
  std::fill(epochSeconds_.begin(), epochSeconds_.end(), 0.0);
  rethrowStop(forEach([](Callback& cb) { cb.beforeEpoch(); }));
}
void Callbacks::onBeforeRun() {
  rethrowStop(forEach([](Callback& cb) { cb.beforeRun(); }));
}
void Callbacks::onAfterRun() {
  rethrowStop(forEach([](Callback& cb) { cb.afterRun(); }));
}
void Callbacks::onTriggerStep() {
  rethrowStop(forEach([](Callback& cb) { cb.triggerStep(); }));
}
void Callbacks::onAfterEpoch() {
  rethrowStop(forEach([](Callback& cb) { cb.afterEpoch(); }));
}
void Callbacks::onTriggerEpoch() {
  const std::exception_ptr stop = forEach([](Callback& cb) { cb.triggerEpoch(); });
  logEpochTimes();
  rethrowStop(stop);
}
void Callbacks::onTrigger() {
  rethrowStop(forEach([](Callback& cb) { cb.trigger(); }));
}

void Callbacks::onAfterTrain() {
  // Every callback's afterTrain runs. One failure is rethrown as it is; several (a full disk
  // fails the checkpoint and every record file) end the run with all of their messages.
  std::exception_ptr first;
  std::string all;
  int failures = 0;
  for (const auto& cb : callbacks_) {
    try {
      cb->afterTrain();
    } catch (const std::exception& e) {
      TB_LOG(Error) << "afterTrain of " << cb->name() << " failed: " << e.what();
      if (!first) first = std::current_exception();
      all += str(failures++ ? "\n" : "", e.what());
    } catch (...) {
      TB_LOG(Error) << "afterTrain of " << cb->name() << " failed with an unknown exception";
      if (!first) first = std::current_exception();
      all += str(failures++ ? "\n" : "", cb->name(), " failed with an unknown exception");
    }
  }
  if (failures > 1) throw std::runtime_error(all);
  if (first) std::rethrow_exception(first);
}

void Callbacks::logEpochTimes() {
  double sum = 0;
  for (double s : epochSeconds_) sum += s;
  // Like tensorpack's CallbackTimeLogger: only worth a line when callbacks took a while.
  if (sum < 1.0) return;
  std::string text;
  for (size_t i = 0; i < callbacks_.size(); ++i) {
    if (epochSeconds_[i] < 0.05 * sum) continue;
    text += str(text.empty() ? "" : ", ", callbacks_[i]->name(), ": ", epochSeconds_[i], " s");
  }
  TB_LOG(Info) << "callbacks took " << sum << " s this epoch (" << text << ")";
}

}  // namespace tbench
