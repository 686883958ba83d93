#pragma once
// What the training benchmarks share: the same preloaded Fashion-MNIST batches, the built-in
// models as the project builds them, the timer of their steps and the median the figures are
// reported with.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/BatchData.h"
#include "engine/data/datasets/FashionMnist.h"
#include "engine/project/ProjectBuilder.h"

namespace tbench::bench {

/// The training benchmarks' shape: steps timed after a warm-up, in epochs of kStepsPerEpoch, over
/// kPreloadedBatches batches that repeat.
constexpr int64_t kWarmup = 10;
constexpr int64_t kStepsPerEpoch = 50;
constexpr int64_t kPreloadedBatches = 50;

/// `count` shuffled Fashion-MNIST training batches of `batchSize`, contiguous in memory, so
/// that data loading is not part of what is timed.
inline std::vector<Datapoint> preloadBatches(int64_t count, int64_t batchSize) {
  auto flow = std::make_shared<BatchData>(
      std::make_shared<FashionMnist>("train", "", FashionMnist::Options().shuffle(true).seed(1)),
      batchSize);
  flow->resetState();
  std::vector<Datapoint> batches;
  DataPass pass = flow->pass();
  Datapoint point;
  while (static_cast<int64_t>(batches.size()) < count && pass.next(point)) {
    batches.push_back({point[0].contiguous(), point[1].contiguous()});
  }
  return batches;
}

/// The zoo model `type` ("mlp", "convnet") with its default settings and optimizer, for
/// Fashion-MNIST images.
inline ModelDescPtr makeModel(const std::string& type) {
  ModelContext context;
  context.input = ImageShape{1, 28, 28};
  context.numClasses = 10;
  return std::dynamic_pointer_cast<ModelDesc>(
      buildModel(ComponentSpec::of("model", type), context, ComponentSpec::defaultOf("optimizer")));
}

/// Times the `steps` global steps that follow the first `warmup` ones (a callback of the run):
/// stepsPerSecond() once they ran. With `stop` the trainer stops after the last of them;
/// `atStart` and `atEnd` run when the clock starts and stops.
class StepTimer {
 public:
  StepTimer(int64_t warmup, int64_t steps, bool stop = true, std::function<void()> atStart = {},
            std::function<void()> atEnd = {})
      : steps_(steps), marks_(std::make_shared<Marks>()) {
    auto marks = marks_;
    callback_ = std::make_shared<CallbackFactory>(
        "timer", CallbackFactory::Hooks{{},
                                        {},
                                        {},
                                        [=](TrainerContext& c) {
                                          if (c.globalStep() == warmup) {
                                            if (atStart) atStart();
                                            marks->start = marks->clock.seconds();
                                          }
                                          if (c.globalStep() == warmup + steps) {
                                            marks->end = marks->clock.seconds();
                                            if (atEnd) atEnd();
                                            if (stop) c.requestStop();
                                          }
                                        },
                                        {},
                                        {}});
  }
  CallbackPtr callback() const { return callback_; }
  double stepsPerSecond() const {
    return static_cast<double>(steps_) / (marks_->end - marks_->start);
  }

 private:
  struct Marks {
    Stopwatch clock;
    double start = 0;
    double end = 0;
  };
  int64_t steps_;
  std::shared_ptr<Marks> marks_;
  CallbackPtr callback_;
};

/// The median of `values` (the upper one of an even count); `values` is not empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace tbench::bench
