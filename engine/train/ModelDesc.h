#pragma once
// ModelDescBase and ModelDesc: what a user writes to train a model (tensorpack's ModelDescBase
// and ModelDesc).
//
// ModelDescBase is what every trainer needs (docs/WRITE-A-TRAINER.md):
//  - inputs(): the input specs, matched by position to the components of the data.
//  - buildTower(tower): a new replica of the network. Called once per training tower and once
//    for the inference tower; the replicas' parameter names must not depend on the tower.
//  - inferenceInputs(): what the inference tower takes (runInference's datapoints); by default
//    inputs(). A GAN's inference tower takes noise, not images.
//  - inferenceOutputs(tower, net, batch): what validation and runInference see for one batch,
//    by name. Inferencers (engine/inference) read these by name.
// ModelDesc adds what a single-cost trainer minimises (SingleCostTrainer):
//  - cost(tower, net, batch): the scalar to minimise for one batch, computed with `net` (the
//    replica built for `tower`). May call tower.summary(...) to report more scalars.
//  - optimizer(params): a new optimizer over `params`.
//  - inferenceOutputs defaults to {"cost": cost(...)}.
// Other trainers take their own descriptions (GanModelDesc.h). Called on the engine thread,
// or on a tower's worker thread for cost().

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/input/Batch.h"
#include "engine/input/InputSpec.h"
#include "engine/train/TowerContext.h"

namespace tbench {

class ModelDescBase {
 public:
  virtual ~ModelDescBase() = default;
  virtual std::vector<InputSpec> inputs() const = 0;
  virtual std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) = 0;
  virtual std::vector<InputSpec> inferenceInputs() const { return inputs(); }
  virtual std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower,
                                                                torch::nn::Module& net,
                                                                const Batch& batch) = 0;
  /// The names inferenceOutputs returns (validation picks its inferencers by them).
  virtual std::vector<std::string> inferenceOutputNames() const = 0;
};

class ModelDesc : public ModelDescBase {
 public:
  virtual torch::Tensor cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) = 0;
  virtual std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) = 0;
  std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower, torch::nn::Module& net,
                                                        const Batch& batch) override {
    return {{"cost", cost(tower, net, batch)}};
  }
  std::vector<std::string> inferenceOutputNames() const override { return {"cost"}; }
};

using ModelDescBasePtr = std::shared_ptr<ModelDescBase>;
using ModelDescPtr = std::shared_ptr<ModelDesc>;

}  // namespace tbench
