#pragma once
// NoOpTrainer: runs the real loop with steps that only take a batch from the input (and call
// an optional function). Tests of callbacks, schedules and inputs use it with
// DummyConstantInput. It has a "learning_rate" hyper-parameter that is just a value.

#include <functional>

#include "engine/input/InputSource.h"
#include "engine/train/Trainer.h"

namespace tbench {

class NoOpTrainer : public Trainer {
 public:
  using StepFunction = std::function<void(NoOpTrainer&)>;
  /// `input` is set up with `specs`; `onStep` (optional) runs in every step after the batch is
  /// taken.
  NoOpTrainer(InputSourcePtr input, std::vector<InputSpec> specs, StepFunction onStep = {},
              double learningRate = 0.1);
  int64_t samplesPerStep() const override { return lastBatchSize_; }
  /// The batch taken in the latest step.
  const Batch& lastBatch() const { return lastBatch_; }
  HyperParam& learningRate() { return *learningRate_; }

 protected:
  void runStep() override;

 private:
  InputSourcePtr input_;
  StepFunction onStep_;
  std::shared_ptr<ValueHyperParam> learningRate_;
  Batch lastBatch_;
  int64_t lastBatchSize_ = 0;
};

}  // namespace tbench
