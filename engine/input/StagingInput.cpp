#include "engine/input/StagingInput.h"

#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <optional>

#include "engine/core/Check.h"

namespace tbench {

struct StagingInput::Stage {
  Datapoint host;    ///< the pinned host tensors, kept until the copy is waited on
  Datapoint device;  ///< on the tower's device
  std::optional<c10::Device> target;
  std::optional<c10::Event> copied;  ///< recorded on the side stream after the copies
};

namespace {

bool copiesOnStream(const Device& device) { return device.isCuda() && torch::cuda::is_available(); }

}  // namespace

StagingInput::StagingInput(InputSourcePtr inner, std::vector<Device> devices, int stages)
    : inner_(std::move(inner)), devices_(std::move(devices)), stages_(stages) {
  TB_CHECK(inner_ != nullptr, "StagingInput needs an input to wrap");
  TB_CHECK(!devices_.empty(), "StagingInput needs the towers' devices");
  TB_CHECK(stages_ >= 1, "StagingInput keeps at least one batch ahead, got ", stages_);
}

StagingInput::~StagingInput() = default;

bool StagingInput::overlaps() const {
  for (const Device& d : devices_) {
    if (copiesOnStream(d)) return true;
  }
  return false;
}

void StagingInput::onSetup() { inner_->setup(specs()); }

void StagingInput::skipBatches(int64_t count) { inner_->skipBatches(count); }

void StagingInput::stageNext() {
  const Device& device = devices_[static_cast<size_t>(staged_) % devices_.size()];
  Batch batch = inner_->nextBatch();
  ++staged_;
  auto stage = std::make_unique<Stage>();
  if (!copiesOnStream(device)) {
    stage->device = batch.tensors();
    queue_.push_back(std::move(stage));
    return;
  }
  const c10::Device target(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(device.index));
  const c10::impl::VirtualGuardImpl cuda(c10::DeviceType::CUDA);
  const c10::Stream side = cuda.getStreamFromGlobalPool(target);
  {
    const c10::StreamGuard onSide(side);
    for (const torch::Tensor& t : batch.tensors()) {
      torch::Tensor pinned = t.is_pinned() ? t : t.pin_memory();
      stage->host.push_back(pinned);
      stage->device.push_back(pinned.to(target, /*non_blocking=*/true));
    }
  }
  stage->target = target;
  stage->copied.emplace(c10::DeviceType::CUDA);
  stage->copied->record(side);
  queue_.push_back(std::move(stage));
}

Datapoint StagingInput::nextDatapoint() {
  // `stages` batches ahead for every tower: each tower's next batch is in flight while the
  // current step runs.
  const size_t ahead = static_cast<size_t>(stages_) * devices_.size();
  while (queue_.size() < ahead) stageNext();
  std::unique_ptr<Stage> stage = std::move(queue_.front());
  queue_.pop_front();
  if (stage->copied) {
    // The stream the step will run on (this thread's current one) waits for the copy, and the
    // allocator learns that the batch is used there.
    const c10::impl::VirtualGuardImpl cuda(c10::DeviceType::CUDA);
    const c10::Stream current = cuda.getStream(*stage->target);
    stage->copied->block(current);
    for (torch::Tensor& t : stage->device) t.record_stream(current);
  }
  stageNext();
  return std::move(stage->device);
}

}  // namespace tbench
