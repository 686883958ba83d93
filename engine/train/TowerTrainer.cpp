#include "engine/train/TowerTrainer.h"

#include <torch/torch.h>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/core/Check.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

TowerTrainer::TowerTrainer(std::vector<Device> devices) : devices_(std::move(devices)) {
  TB_CHECK(!devices_.empty(), "a tower trainer needs at least one device");
}

void TowerTrainer::attach(InputSourcePtr input, ModelDescPtr model) {
  TB_CHECK(input != nullptr && model != nullptr, "setupGraph needs an input and a model");
  input_ = std::move(input);
  model_ = std::move(model);
  for (auto& cb : input_->callbacks()) registerCallback(std::move(cb));
}

void TowerTrainer::putSummaries(TowerContext& tower) {
  for (auto& [name, value] : tower.takeSummaries()) {
    putStepScalar(name, value.item<double>());
  }
}

void TowerTrainer::onStepCounted() {
  for (const auto& [name, value] : pendingScalars_) monitors().putScalar(name, value);
  pendingScalars_.clear();
}

std::vector<std::pair<std::string, torch::Tensor>> TowerTrainer::parameters() {
  std::vector<std::pair<std::string, torch::Tensor>> named;
  for (const auto& item : mainModule().named_parameters())
    named.emplace_back(item.key(), item.value());
  return named;
}

void TowerTrainer::saveCheckpoint(const std::string& path) {
  TrainingState state =
      captureState(mainModule(), mainOptimizer(), globalStep(), epochNum(), projectText_);
  state.epochStep = stepsDoneInEpoch();
  state.data = dataText_;
  state.hyperParams = hyperParamValues();
  state.callbackStates = callbackStates();
  writeCheckpointFile(path, state);
}

std::map<std::string, torch::Tensor> TowerTrainer::runInference(const Datapoint& datapoint) {
  TB_CHECK(model_ != nullptr, "runInference before setupGraph");
  const Device& device = devices_.front();
  if (!inferenceModule_) {
    inferenceTower_ = std::make_unique<TowerContext>(0, device, /*isTraining=*/false);
    inferenceModule_ = model_->buildTower(*inferenceTower_);
    inferenceModule_->to(toTorch(device));
  }
  torch::NoGradGuard noGrad;
  if (inferenceWeightsStep_ != globalStep()) {
    // Note [Inference tower]: a separate replica, so that eval mode and inference never touch
    // the training replica's state (dropout mode, batch-norm statistics).
    auto source = mainModule().named_parameters();
    for (auto& item : inferenceModule_->named_parameters()) item.value().copy_(source[item.key()]);
    auto buffers = mainModule().named_buffers();
    for (auto& item : inferenceModule_->named_buffers()) item.value().copy_(buffers[item.key()]);
    inferenceWeightsStep_ = globalStep();
  }
  inferenceModule_->eval();
  Batch batch(input_->specs(), datapoint);
  if (device.isCuda()) batch = batch.to(toTorch(device));
  return model_->inferenceOutputs(*inferenceTower_, *inferenceModule_, batch);
}

}  // namespace tbench
