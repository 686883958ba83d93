#include "engine/input/ResidentInput.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

ResidentInput::ResidentInput(DataFlowPtr samples, ResidentInputOptions options,
                             std::optional<Device> device)
    : source_(std::move(samples)),
      options_(options),
      device_(device),
      order_(options.shuffle, options.seed) {
  TB_CHECK(source_ != nullptr, "ResidentInput needs a DataFlow of samples");
  TB_CHECK(options_.batchSize > 0, "batch size must be positive, got ", options_.batchSize);
}

class ResidentInput::Loader : public Callback {
 public:
  explicit Loader(ResidentInput& input) : input_(input) {}
  std::string name() const override { return "ResidentInput"; }

 private:
  void onBeforeTrain() override {
    if (!input_.loaded_) {
      input_.load();
      input_.startPass();
    }
  }
  ResidentInput& input_;
};

std::vector<CallbackPtr> ResidentInput::callbacks() { return {std::make_shared<Loader>(*this)}; }

std::optional<int64_t> ResidentInput::size() const {
  const std::optional<int64_t> n = loaded_ ? std::optional<int64_t>(count_) : source_->size();
  if (!n) return std::nullopt;
  return options_.remainder ? (*n + options_.batchSize - 1) / options_.batchSize
                            : *n / options_.batchSize;
}

int64_t ResidentInput::bytes() const {
  int64_t total = 0;
  for (const auto& t : data_) total += t.numel() * static_cast<int64_t>(t.element_size());
  return total;
}

void ResidentInput::load() {
  source_->resetState();
  DataPass pass = source_->pass();
  Datapoint stacked;
  // A flow holding its samples in memory gives them all in one gather (Note [Stacked reads]).
  const std::optional<int64_t> known = source_->size();
  int64_t taken = known && *known > 0 ? pass.nextStacked(*known, stacked) : -1;
  if (taken < 0) {
    std::vector<Datapoint> points;
    Datapoint point;
    while (pass.next(point)) points.push_back(std::move(point));
    TB_CHECK(!points.empty() && !points.front().empty(),
             "data.resident: the training data "
             "produced no sample");
    stacked.clear();
    for (size_t c = 0; c < points.front().size(); ++c) {
      std::vector<torch::Tensor> parts;
      parts.reserve(points.size());
      for (const auto& p : points) parts.push_back(p[c]);
      stacked.push_back(torch::stack(parts));
    }
    taken = static_cast<int64_t>(points.size());
  }
  if (taken == 0 || stacked.empty()) {
    throw InputError("data.resident: the training data produced no sample");
  }
  count_ = taken;
  if (count_ < options_.batchSize && !options_.remainder) {
    throw InputError(str("data.resident: the training data has ", count_,
                         " samples, fewer than one batch of ", options_.batchSize));
  }
  const Device device =
      device_ ? *device_ : (towerDevices().empty() ? Device{} : towerDevices().front());
  const torch::Device target = device.isCuda()
                                   ? torch::Device(torch::kCUDA, static_cast<int16_t>(device.index))
                                   : torch::Device(torch::kCPU);
  data_.clear();
  for (auto& t : stacked) data_.push_back(t.to(target).contiguous());
  loaded_ = true;
  TB_LOG(Info) << "data.resident: " << count_ << " training samples ("
               << (bytes() + (1 << 19)) / (1 << 20) << " MiB) held on " << device.toString();
}

void ResidentInput::startPass() {
  order_.start(static_cast<size_t>(count_));
  pass_.resize(static_cast<size_t>(count_));
  int64_t index = 0;
  for (size_t i = 0; order_.next(index); ++i) pass_[i] = index;
  // One host-to-device copy a pass (not a read back).
  passIndex_ = torch::from_blob(pass_.data(), {count_}, torch::kLong).to(data_.front().device());
  cursor_ = 0;
}

Datapoint ResidentInput::nextDatapoint() {
  if (!loaded_) {
    load();
    startPass();
  }
  for (int64_t skip = takeSkipCount() + 1; skip > 0; --skip) {
    // The next batch of the pass, or a new pass when none is left (a short last one only with
    // remainder).
    const int64_t left = count_ - cursor_;
    if (left <= 0 || (left < options_.batchSize && !options_.remainder)) startPass();
    const int64_t n = std::min(options_.batchSize, count_ - cursor_);
    const int64_t first = cursor_;
    cursor_ += n;
    if (skip > 1) continue;
    const torch::Tensor index = passIndex_.narrow(0, first, n);
    Datapoint batch;
    batch.reserve(data_.size());
    for (const auto& t : data_) batch.push_back(t.index_select(0, index));
    return batch;
  }
  return {};  // not reached
}

}  // namespace tbench
