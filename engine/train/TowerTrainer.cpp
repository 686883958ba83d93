#include "engine/train/TowerTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

TowerTrainer::TowerTrainer(std::vector<Device> devices) : devices_(std::move(devices)) {
  TB_CHECK(!devices_.empty(), "a tower trainer needs at least one device");
}

void TowerTrainer::attach(InputSourcePtr input, ModelDescBasePtr model) {
  TB_CHECK(input != nullptr && model != nullptr, "setupGraph needs an input and a model");
  TB_CHECK(model_ == nullptr, "setupGraph() runs once");
  input_ = std::move(input);
  model_ = std::move(model);
  input_->setTowerDevices(devices_);
  for (auto& cb : input_->callbacks()) registerCallback(std::move(cb));
}

std::shared_ptr<torch::nn::Module> TowerTrainer::makeTower(const TowerContext& tower,
                                                           bool keepGenerator) {
  TB_CHECK(model_ != nullptr, "makeTower before setupGraph");
  requireAvailable(tower.device());
  auto generator = at::detail::getDefaultCPUGenerator();
  torch::Tensor saved;
  if (keepGenerator) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    saved = generator.get_state();
  }
  std::shared_ptr<torch::nn::Module> module = model_->buildTower(tower);
  if (keepGenerator) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(saved);
  }
  TB_CHECK(module != nullptr, "buildTower returned no module for ", tower.name());
  module->to(toTorch(tower.device()));
  return module;
}

std::vector<Batch> TowerTrainer::takeBatches(const std::vector<torch::Device>& devices) {
  std::vector<Batch> batches;
  batches.reserve(devices.size());
  for (const torch::Device& device : devices) {
    Batch batch = input().nextBatch();
    if (!device.is_cpu()) batch = batch.to(device);
    batches.push_back(std::move(batch));
  }
  if (samplesPerStep_ == 0 && !batches.empty()) {
    samplesPerStep_ = batches.front().batchSize() * batchesPerStep() * worldSize();
  }
  return batches;
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

TrainingState TowerTrainer::captureTrainingState() {
  TB_CHECK(isGraphSetUp(), "a checkpoint before setupGraph");
  TrainingState state = captureState(mainModule(), nullptr, globalStep(), epochNum(), projectText_);
  for (const OptimizerSlot& slot : optimizerSlots()) {
    TB_CHECK(!slot.copies.empty() && slot.copies.front() != nullptr, "optimizer role \"", slot.role,
             "\" has no optimizer");
    OptimizerState optimizer = captureOptimizer(*slot.copies.front());
    if (slot.role.empty()) {
      state.optimizer = optimizer.bytes;
      state.optimizerType = optimizer.type;
    } else {
      state.namedOptimizers[slot.role] = std::move(optimizer);
    }
  }
  state.epochStep = stepsDoneInEpoch();
  state.topology = {{"batches_per_step", batchesPerStep()}, {"world_size", worldSize()}};
  state.data = dataText_;
  state.hyperParams = hyperParamValues();
  state.callbackStates = callbackStates();
  for (auto& [name, tensor] : extraState()) {
    state.trainerState[name] = tensor.detach().to(torch::kCPU, false, /*copy=*/true);
  }
  return state;
}

void TowerTrainer::restoreTrainingState(const TrainingState& state) {
  const RestoreReport report = restoreModel(mainModule(), state);
  if (!report.missing.empty() || !report.unexpected.empty() || !report.shapeMismatch.empty()) {
    throw InputError(
        str(state.path, ": does not fit this model, cannot resume from it\n", report.toString()));
  }
  for (const OptimizerSlot& slot : optimizerSlots()) {
    for (auto* optimizer : slot.copies) {
      if (slot.role.empty()) {
        restoreOptimizer(*optimizer, state);
      } else {
        restoreOptimizer(*optimizer, state, slot.role);
      }
    }
  }
  restoreExtraState(state.trainerState);
  restoreRngState(state);
  restoreHyperParamValues(state.hyperParams);
  restoreCallbackStates(state.callbackStates);
}

void TowerTrainer::saveCheckpoint(const std::string& path) {
  writeCheckpointFile(path, captureTrainingState());
}

std::map<std::string, torch::Tensor> TowerTrainer::runInference(const Datapoint& datapoint) {
  TB_CHECK(model_ != nullptr, "runInference before setupGraph");
  const Device& device = devices_.front();
  if (!inferenceModule_) {
    inferenceTower_ = std::make_unique<TowerContext>(0, device, /*isTraining=*/false);
    // Its initial weights are overwritten below, but drawing them would move the run's CPU
    // generator at the first validation: a resumed run (which builds it at another step) would
    // then draw other noise and dropout masks than the uninterrupted one (Note [Trainer state]).
    inferenceModule_ = makeTower(*inferenceTower_, /*keepGenerator=*/true);
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
  Batch batch(model_->inferenceInputs(), datapoint);
  if (device.isCuda()) batch = batch.to(toTorch(device));
  return model_->inferenceOutputs(*inferenceTower_, *inferenceModule_, batch);
}

}  // namespace tbench
