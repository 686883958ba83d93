#pragma once
// What the training benchmarks share: the same preloaded Fashion-MNIST batches, the built-in
// models as the project builds them, and the median the figures are reported with.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/BatchData.h"
#include "engine/data/FashionMnist.h"
#include "engine/project/ProjectBuilder.h"

namespace tbench::bench {

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

/// The median of `values` (the upper one of an even count); `values` is not empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace tbench::bench
