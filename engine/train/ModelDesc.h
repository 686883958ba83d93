#pragma once
// ModelDesc: what a user writes to train a model (tensorpack's ModelDesc).
//
//  - inputs(): the input specs, matched by position to the components of the data.
//  - buildTower(tower): a new replica of the network. Called once per training tower and once
//    for the inference tower; the replicas' parameter names must not depend on the tower.
//  - cost(tower, net, batch): the scalar to minimise for one batch, computed with `net` (the
//    replica built for `tower`). May call tower.summary(...) to report more scalars.
//  - optimizer(params): a new optimizer over `params`.
//  - inferenceOutputs(tower, net, batch): what validation sees for one batch; by default
//    {"cost": cost(...)}. Inferencers (engine/inference) read these by name.
// Called on the engine thread, or on a tower's worker thread for cost().

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

class ModelDesc {
 public:
  virtual ~ModelDesc() = default;
  virtual std::vector<InputSpec> inputs() const = 0;
  virtual std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) = 0;
  virtual torch::Tensor cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) = 0;
  virtual std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) = 0;
  virtual std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower,
                                                                torch::nn::Module& net,
                                                                const Batch& batch) {
    return {{"cost", cost(tower, net, batch)}};
  }
  /// The names inferenceOutputs returns (validation picks its inferencers by them).
  virtual std::vector<std::string> inferenceOutputNames() const { return {"cost"}; }
};

using ModelDescPtr = std::shared_ptr<ModelDesc>;

}  // namespace tbench
