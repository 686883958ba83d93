#include "engine/inference/InferenceRunner.h"

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
  for (auto& inf : inferencers_) inf->beforeInference();
  DataPass pass = batches_->pass();
  Datapoint batch;
  int64_t batches = 0;
  while (pass.next(batch)) {
    TB_CHECK(!batch.empty() && batch[0].dim() > 0, "validation batches must be stacked");
    const auto outputs = context.runInference(batch);
    for (auto& inf : inferencers_) inf->onBatchWithInputs(batch, outputs, batch[0].size(0));
    ++batches;
  }
  TB_CHECK(batches > 0, "the validation data produced no batch");
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
}

}  // namespace tbench
