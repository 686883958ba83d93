#include "engine/train/NoOpTrainer.h"
#include "engine/core/Names.h"

#include "engine/core/Check.h"

namespace tbench {

NoOpTrainer::NoOpTrainer(InputSourcePtr input, std::vector<InputSpec> specs, StepFunction onStep,
                         double learningRate)
    : input_(std::move(input)),
      onStep_(std::move(onStep)),
      learningRate_(std::make_shared<ValueHyperParam>(names::kLearningRate, learningRate)) {
  TB_CHECK(input_ != nullptr, "NoOpTrainer needs an input");
  input_->setup(specs);
  for (auto& cb : input_->callbacks()) registerCallback(std::move(cb));
  registerHyperParam(learningRate_);
}

void NoOpTrainer::runStep() {
  lastBatch_ = input_->nextBatch();
  lastBatchSize_ = lastBatch_.batchSize();
  if (onStep_) onStep_(*this);
}

}  // namespace tbench
