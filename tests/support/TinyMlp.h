#pragma once
// The small MLP classifier of the engine tests that train in-process (the built-in
// SupervisedModel over Mlp), its optimizers and random batches for it.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"

namespace tbench::testing {

/// The network: images [1, side, side], `classes` classes, the hidden layers' widths.
struct TinyMlp {
  int64_t side = 8;
  int64_t classes = 4;
  std::vector<int64_t> hidden = {16};
  double dropout = 0;

  MlpOptions options() const {
    MlpOptions o;
    o.image = ImageShape{1, side, side};
    o.numClasses = classes;
    o.hidden = hidden;
    o.dropout = dropout;
    return o;
  }
};

inline SupervisedModel::OptimizerFactory adam(double lr) {
  return [lr](std::vector<torch::Tensor> p) -> std::unique_ptr<torch::optim::Optimizer> {
    return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(lr));
  };
}

inline SupervisedModel::OptimizerFactory sgd(double lr, double momentum = 0) {
  return [lr, momentum](std::vector<torch::Tensor> p) -> std::unique_ptr<torch::optim::Optimizer> {
    return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(lr).momentum(momentum));
  };
}

/// The model of `shape`, trained with `optimizer`.
inline std::shared_ptr<SupervisedModel> tinyMlpModel(
    const TinyMlp& shape = {}, SupervisedModel::OptimizerFactory optimizer = adam(1e-2)) {
  const MlpOptions o = shape.options();
  return std::make_shared<SupervisedModel>(
      o.image, [o] { return std::make_shared<Mlp>(o); }, std::move(optimizer));
}

/// `n` batches of `batchSize` normal images of `shape` with uniform labels, drawn right after
/// torch::manual_seed(seed).
inline std::vector<Datapoint> randomBatches(int n, int64_t batchSize, const TinyMlp& shape = {},
                                            uint64_t seed = 7) {
  torch::manual_seed(seed);
  std::vector<Datapoint> batches;
  for (int i = 0; i < n; ++i) {
    batches.push_back({torch::randn({batchSize, 1, shape.side, shape.side}),
                       torch::randint(0, shape.classes, {batchSize}, torch::kInt64)});
  }
  return batches;
}

}  // namespace tbench::testing
