#include "engine/data/BatchData.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

BatchData::BatchData(DataFlowPtr child, int64_t batchSize, bool remainder)
    : ProxyDataFlow(std::move(child)), batchSize_(batchSize), remainder_(remainder) {
  TB_CHECK(batchSize_ > 0, "batch size must be positive, got ", batchSize_);
  const auto n = ProxyDataFlow::size();
  TB_CHECK(remainder_ || !n || *n >= batchSize_, "the DataFlow has ", n.value_or(0),
           " datapoints, fewer than one batch of ", batchSize_);
}

std::optional<int64_t> BatchData::size() const {
  const auto n = ProxyDataFlow::size();
  if (!n) return std::nullopt;
  return remainder_ ? (*n + batchSize_ - 1) / batchSize_ : *n / batchSize_;
}

bool BatchData::nextPoint(Datapoint& out) {
  if (childStacks_) {
    // Note [Stacked reads]: one gather from a flow holding its samples in memory instead of
    // batch_size datapoints and a stack (bench_pipeline prints the batches/s of both).
    const int64_t taken = childPass().nextStacked(batchSize_, out);
    if (taken >= 0) {
      return taken == batchSize_ || (taken > 0 && remainder_);
    }
    childStacks_ = false;  // the child cannot: datapoint by datapoint from now on
  }
  pending_.clear();
  Datapoint point;
  while (static_cast<int64_t>(pending_.size()) < batchSize_ && childPass().next(point)) {
    pending_.push_back(std::move(point));
  }
  if (pending_.empty()) return false;
  if (static_cast<int64_t>(pending_.size()) < batchSize_ && !remainder_) return false;

  const size_t components = pending_.front().size();
  out.assign(components, torch::Tensor());
  std::vector<torch::Tensor> column(pending_.size());
  for (size_t c = 0; c < components; ++c) {
    for (size_t i = 0; i < pending_.size(); ++i) {
      TB_CHECK(pending_[i].size() == components, "datapoint ", i, " of a batch has ",
               pending_[i].size(), " components, the first has ", components);
      const auto& t = pending_[i][c];
      TB_CHECK(t.sizes() == pending_.front()[c].sizes() &&
                   t.scalar_type() == pending_.front()[c].scalar_type(),
               "cannot batch component ", c, ": shape ", t.sizes(), " ", t.scalar_type(),
               " differs from ", pending_.front()[c].sizes(), " ",
               pending_.front()[c].scalar_type());
      column[i] = t;
    }
    out[c] = torch::stack(column);
  }
  return true;
}

}  // namespace tbench
