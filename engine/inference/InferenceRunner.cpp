#include "engine/inference/InferenceRunner.h"

#include <algorithm>

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/core/Stopwatch.h"

namespace tbench {

InferenceRunner::InferenceRunner(DataFlowPtr batches, std::vector<InferencerPtr> inferencers)
    : batches_(std::move(batches)), inferencers_(std::move(inferencers)) {
  TB_CHECK(batches_ != nullptr, "InferenceRunner needs validation data");
  TB_CHECK(!inferencers_.empty(), "InferenceRunner needs at least one inferencer");
}

void InferenceRunner::onSetupGraph() {
  if (!reset_) {
    batches_->resetState();
    reset_ = true;
  }
}

std::map<std::string, double> InferenceRunner::evaluate(TrainerContext& context) {
  if (!reset_) {
    batches_->resetState();
    reset_ = true;
  }
  // Note [Sharded validation]: in a run of several processes each takes every count-th batch
  // of the pass, and the inferencers' totals are summed over the processes.
  context.beforeValidation();
  auto [shard, shards] = context.validationShard();
  const bool sharded = shards > 1 && sharding_ &&
                       std::all_of(inferencers_.begin(), inferencers_.end(),
                                   [](const InferencerPtr& inf) { return inf->canShard(); });
  if (!sharded) shard = 0, shards = 1;
  for (auto& inf : inferencers_) {
    inf->setShard(shard, shards);
    inf->beforeInference();
  }
  DataPass pass = batches_->pass();
  Datapoint batch;
  int64_t batches = 0;
  int64_t mine = 0;
  while (pass.next(batch)) {
    TB_CHECK(!batch.empty() && batch[0].dim() > 0, "validation batches must be stacked");
    const int64_t size = batch[0].size(0);
    if (batches++ % shards != shard) {
      for (auto& inf : inferencers_) inf->skipBatch(size);
      continue;
    }
    const auto outputs = context.runInference(batch);
    for (auto& inf : inferencers_) inf->onBatchWithInputs(batch, outputs, size);
    ++mine;
  }
  TB_CHECK(batches > 0, "the validation data produced no batch");
  if (sharded) {
    std::vector<torch::Tensor> parts;
    for (auto& inf : inferencers_) parts.push_back(inf->totals().to(torch::kDouble).reshape({-1}));
    torch::Tensor all = torch::cat(parts);
    context.sumOverProcesses(all);
    int64_t offset = 0;
    for (size_t i = 0; i < inferencers_.size(); ++i) {
      const int64_t n = parts[i].numel();
      inferencers_[i]->setTotals(all.narrow(0, offset, n));
      offset += n;
    }
  }
  lastShare_ = {mine, batches};
  std::map<std::string, double> results;
  for (auto& inf : inferencers_) results.merge(inf->afterInference());
  return results;
}

void InferenceRunner::onTrigger() {
  Stopwatch clock;
  last_ = evaluate(context());
  for (const auto& [name, value] : last_) context().monitors().putScalar(name, value);
  for (auto& inf : inferencers_) inf->publish(context());
  TB_LOG(Debug) << "inference took " << clock.seconds() << " s";
  if (lastShare_.first != lastShare_.second && !loggedShare_) {
    loggedShare_ = true;
    const auto [shard, shards] = context().validationShard();
    TB_LOG(Info) << "validation: " << lastShare_.first << " of the " << lastShare_.second
                 << " batches on this process (shard " << shard << " of " << shards
                 << "), the sums all-reduced";
  }
}

}  // namespace tbench
