#pragma once
// StagingInput: host-to-device overlap (tensorpack's StagingInput). Wraps another InputSource
// and keeps `stages` batches ahead already on their tower's device: when a tower takes a
// batch, the next one is read from the wrapped input, pinned, and copied to its device on a
// side stream while the current step computes. The step's stream waits for the copy's event
// before it uses the batch, and the batch is recorded on that stream for the caching
// allocator, so no copy is read before it lands nor freed while it is read.
//
// Batches are taken by towers in tower order (InputSource.h), so the k-th batch goes to
// devices[k % devices.size()]. On a CPU tower a staged batch is the host batch itself: the
// order and the skipping are the same, and there is nothing to overlap. The stream code is
// LibTorch's device-generic API (c10::Stream, c10::Event), so it compiles in a CPU-only
// LibTorch and runs on CUDA wherever LibTorch has CUDA.

#include <deque>
#include <memory>
#include <vector>

#include "engine/core/Device.h"
#include "engine/input/InputSource.h"

namespace tbench {

class StagingInput : public InputSource {
 public:
  /// `devices`: the towers' devices, in tower order. `stages` >= 1 batches are kept ahead.
  StagingInput(InputSourcePtr inner, std::vector<Device> devices, int stages = 1);
  ~StagingInput() override;
  std::optional<int64_t> size() const override { return inner_->size(); }
  std::vector<CallbackPtr> callbacks() override { return inner_->callbacks(); }
  void stop() override { inner_->stop(); }
  void setTowerDevices(const std::vector<Device>& devices) override {
    InputSource::setTowerDevices(devices);
    inner_->setTowerDevices(devices);
  }
  /// Passed on to the wrapped input (it skips before the first batch is staged).
  void skipBatches(int64_t count) override;
  /// Batches taken from the wrapped input so far (staged ones included).
  int64_t batchesStaged() const { return staged_; }
  /// Whether batches are copied on a side stream (a CUDA tower with a CUDA LibTorch).
  bool overlaps() const;

 protected:
  void onSetup() override;
  Datapoint nextDatapoint() override;

 private:
  struct Stage;
  void stageNext();

  InputSourcePtr inner_;
  std::vector<Device> devices_;
  int stages_;
  int64_t staged_ = 0;
  std::deque<std::unique_ptr<Stage>> queue_;
};

}  // namespace tbench
