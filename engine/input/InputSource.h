#pragma once
// InputSource: where a trainer's batches come from (tensorpack's InputSource).
//
// Contract:
//  - setup(specs) once, before training, with the model's inputs.
//  - callbacks() are added to the trainer's callbacks (e.g. the one that starts a
//    QueueInput's thread in beforeTrain, reports its queue size, and stops it in afterTrain).
//  - nextBatch() is called on the engine thread (or by tower threads in tower order, under
//    the trainer's control); it repeats passes of the underlying data forever: epochs are
//    counted in steps, not in passes.
//  - size() is the number of batches in one pass when known (the default steps_per_epoch).
//  - stop() ends any background work; safe to call several times and from any thread.

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/core/Device.h"
#include "engine/input/Batch.h"

namespace tbench {

class InputSource {
 public:
  virtual ~InputSource() = default;
  void setup(const std::vector<InputSpec>& specs);
  const std::vector<InputSpec>& specs() const { return specs_; }
  bool isSetUp() const { return setUp_; }

  virtual std::vector<CallbackPtr> callbacks() { return {}; }
  /// The next batch, checked against the specs.
  Batch nextBatch() { return Batch(specs_, nextDatapoint()); }
  virtual std::optional<int64_t> size() const = 0;
  virtual void stop() {}
  /// Before the first batch: the first `count` batches of the data are skipped, so that a
  /// resumed run sees the data exactly where the interrupted run would have (the data order is
  /// a function of the seed and the position). Inputs without an order ignore it; a wrapper
  /// (StagingInput) passes it on.
  virtual void skipBatches(int64_t count) { toSkip_ = count; }
  /// Set by the trainer before training: the devices of the towers that consume the batches
  /// (QueueInput decides from them whether its producer thread has a core of its own). A
  /// wrapper (StagingInput) passes them on.
  virtual void setTowerDevices(const std::vector<Device>& devices) { towerDevices_ = devices; }
  const std::vector<Device>& towerDevices() const { return towerDevices_; }

 protected:
  virtual void onSetup() {}
  virtual Datapoint nextDatapoint() = 0;
  /// For derived classes: how many datapoints to discard before the first one they return.
  int64_t takeSkipCount() { return std::exchange(toSkip_, 0); }

 private:
  int64_t toSkip_ = 0;
  std::vector<Device> towerDevices_;
  std::vector<InputSpec> specs_;
  bool setUp_ = false;
};

using InputSourcePtr = std::shared_ptr<InputSource>;

}  // namespace tbench
