#include "engine/train/TowerTrainer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/HostRead.h"
#include "engine/core/Logging.h"
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
  if (paramGroups_.active()) {
    freezeParameters(*module, layoutOf(*module, paramGroups_.rules));
    if (paramGroups_.frozenNormsEval) {
      auto norms = frozenNormLayers(*module);
      if (!norms.empty()) frozenNorms_[module.get()] = std::move(norms);
    }
  }
  module->to(toTorch(tower.device()));
  if (!channelsLastDecided_) {
    bool convolutions = false;
    for (const auto& p : module->parameters()) convolutions = convolutions || p.dim() == 4;
    channelsLast_ = useChannelsLast(speed_, devices_, convolutions);
    channelsLastDecided_ = true;
    if (channelsLast_) {
      TB_LOG(Info) << "channels-last: convolution weights and image batches in NHWC";
    }
  }
  if (channelsLast_) {
    torch::NoGradGuard noGrad;
    for (auto& p : module->parameters()) {
      if (p.dim() == 4) p.set_data(p.contiguous(torch::MemoryFormat::ChannelsLast));
    }
  }
  return module;
}

// Note [Weight average]
// trainer.ema_decay keeps avg = decay × avg + (1 - decay) × param after every step, for every
// parameter of the main module (timm's ModelEmaV3 and Lightning's EMA callbacks, without
// timm's warm-up of the decay). Buffers are not averaged: validation uses the main module's
// (BatchNorm's running statistics) with the averaged parameters. The average starts as a copy
// of the parameters before the first step (after init and a resume's restore), on their device.
// Validation and runInference use it; checkpoints keep it as "ema/<name>" entries of
// trainer_state beside the raw weights ("model"), and a resume restores it, so a resumed run
// averages exactly as the uninterrupted one.

void TowerTrainer::setWeightAverage(double decay) {
  TB_CHECK(!isGraphSetUp() || ema_.empty(), "setWeightAverage after training started");
  if (!(decay >= 0 && decay < 1)) {
    throw InputError(str("trainer.ema_decay must be in [0, 1) (0: off), got ", decay));
  }
  emaDecay_ = decay;
  if (decay > 0) {
    TB_LOG(Info) << "weight average (EMA) with decay " << decay;
  }
}

void TowerTrainer::initialize() {
  if (emaDecay_ <= 0 || !ema_.empty()) return;  // off, or restored by a resume
  torch::NoGradGuard noGrad;
  for (const auto& item : mainModule().named_parameters()) {
    ema_.emplace_back(item.key(), item.value().detach().clone());
  }
  emaSources_.clear();
}

void TowerTrainer::updateWeightAverage() {
  torch::NoGradGuard noGrad;
  if (emaSources_.empty()) {
    auto params = mainModule().named_parameters();
    for (const auto& [name, avg] : ema_) emaSources_.push_back(params[name]);
  }
  for (size_t i = 0; i < ema_.size(); ++i) {
    ema_[i].second.lerp_(emaSources_[i], 1.0 - emaDecay_);
  }
}

void TowerTrainer::setParamGroups(ParamGroupSettings settings) {
  TB_CHECK(!isGraphSetUp(), "setParamGroups after setupGraph");
  paramGroups_ = std::move(settings);
}

void TowerTrainer::enterTrainMode(torch::nn::Module& module) {
  module.train();
  const auto found = frozenNorms_.find(&module);
  if (found == frozenNorms_.end()) return;
  for (const auto& norm : found->second) norm->eval();
}

std::vector<Batch> TowerTrainer::takeBatches(const std::vector<torch::Device>& devices) {
  std::vector<Batch> batches;
  batches.reserve(devices.size());
  for (const torch::Device& device : devices) {
    Batch batch = input().nextBatch();
    if (!device.is_cpu()) batch = batch.to(device);
    if (channelsLast_) batch = batch.channelsLast();
    batches.push_back(std::move(batch));
  }
  if (samplesPerStep_ == 0 && !batches.empty()) {
    samplesPerStep_ = batches.front().batchSize() * batchesPerStep() * worldSize();
  }
  return batches;
}

void TowerTrainer::putSummaries(TowerContext& tower) {
  for (auto& [name, value] : tower.takeSummaries()) putStepScalar(name, std::move(value));
}

void TowerTrainer::putStepScalar(std::string name, torch::Tensor value) {
  TB_CHECK(value.defined() && value.numel() == 1, "the step scalar \"", name,
           "\" must be a one-element tensor, got ",
           value.defined() ? tbench::str(value.sizes()) : std::string("an undefined tensor"));
  pendingScalars_.push_back({std::move(name), 0.0, value.detach().reshape({})});
}

void TowerTrainer::setStepScalarReads(int64_t steps, double seconds) {
  TB_CHECK(steps >= 1 && seconds >= 0, "step scalars are read every >= 1 steps and >= 0 s, got ",
           steps, " steps and ", seconds, " s");
  readEverySteps_ = steps;
  readEverySeconds_ = seconds;
}

// Note [Step scalars read in batches]
// A step's scalars (its cost, summaries, gradient norm) are tensors on the tower's device.
// Reading each at its step would make every step wait for the device (Note [Host reads]), so
// a step's scalars are kept, stamped with the step's global step, epoch and time, and read all
// at once: every readEverySteps_ steps or readEverySeconds_ seconds (the live charts stay
// fresh on a slow step), at an epoch's last step (the epoch's callbacks and stats.json see all
// of it), before the loop waits paused, when it ends, and whenever a callback asks the
// monitors for a value (MonitorSink::latest and count). One read per device, each a copy of
// the stacked values. Every value still reaches the monitors with its own step, in step
// order; only when changes: up to readEverySteps_ steps later. A check of every value
// (CheckNumerics) watches them as they arrive (MonitorSink::watchScalars).
void TowerTrainer::onStepCounted() {
  if (!ema_.empty()) updateWeightAverage();
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  unread_.push_back(
      {MetricStamp{globalStep(), epochNum(), std::chrono::duration<double>(now).count()},
       std::move(pendingScalars_)});
  pendingScalars_.clear();
  if (static_cast<int64_t>(unread_.size()) >= readEverySteps_ ||
      localStep() + 1 >= stepsPerEpoch() ||
      (readEverySeconds_ > 0 && sinceRead_.seconds() >= readEverySeconds_)) {
    readStepScalars();
  }
}

void TowerTrainer::readStepScalars() {
  if (unread_.empty()) return;
  std::vector<StepScalars> steps = std::move(unread_);
  unread_.clear();
  sinceRead_.restart();
  // One stacked copy per device.
  std::vector<std::pair<torch::Device, std::vector<StepScalar*>>> byDevice;
  for (StepScalars& step : steps) {
    for (StepScalar& scalar : step.scalars) {
      if (!scalar.tensor.defined()) continue;
      const torch::Device device = scalar.tensor.device();
      auto it = std::find_if(byDevice.begin(), byDevice.end(),
                             [&](const auto& entry) { return entry.first == device; });
      if (it == byDevice.end()) it = byDevice.insert(byDevice.end(), {device, {}});
      it->second.push_back(&scalar);
    }
  }
  for (auto& [device, scalars] : byDevice) {
    std::vector<torch::Tensor> values;
    values.reserve(scalars.size());
    for (StepScalar* scalar : scalars) values.push_back(scalar->tensor.to(torch::kDouble));
    const torch::Tensor read = hostCopy(torch::stack(values), torch::kDouble);
    const double* data = read.data_ptr<double>();
    for (size_t i = 0; i < scalars.size(); ++i) {
      scalars[i]->value = data[i];
      scalars[i]->tensor = torch::Tensor();
    }
  }
  // Every value is put, also after one that a watcher refused (CheckNumerics): the first
  // failure is rethrown once all are.
  std::exception_ptr failure;
  for (const StepScalars& step : steps) {
    for (const StepScalar& scalar : step.scalars) {
      try {
        monitors().putScalarAt(scalar.name, scalar.value, step.stamp);
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
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
  for (const auto& [name, avg] : ema_) {
    state.trainerState["ema/" + name] = avg.detach().to(torch::kCPU, false, /*copy=*/true);
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
  restoreWeightAverage(state);
  restoreRngState(state);
  restoreHyperParamValues(state.hyperParams);
  restoreCallbackStates(state.callbackStates);
}

void TowerTrainer::restoreWeightAverage(const TrainingState& state) {
  ema_.clear();
  emaSources_.clear();
  if (emaDecay_ <= 0) return;
  torch::NoGradGuard noGrad;
  std::vector<std::pair<std::string, torch::Tensor>> restored;
  for (const auto& item : mainModule().named_parameters()) {
    const auto found = state.trainerState.find("ema/" + item.key());
    if (found == state.trainerState.end() || found->second.sizes() != item.value().sizes()) {
      TB_LOG(Info) << state.path
                   << ": no weight average for every parameter (taken without ema_decay); the "
                      "average starts from its weights";
      return;  // initialize() starts it from the restored parameters
    }
    torch::Tensor avg = torch::empty_like(item.value());
    avg.copy_(found->second);
    restored.emplace_back(item.key(), std::move(avg));
  }
  ema_ = std::move(restored);
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
    for (const auto& [name, avg] : ema_) source[name] = avg;  // Note [Weight average]
    for (auto& item : inferenceModule_->named_parameters()) item.value().copy_(source[item.key()]);
    auto buffers = mainModule().named_buffers();
    for (auto& item : inferenceModule_->named_buffers()) item.value().copy_(buffers[item.key()]);
    inferenceWeightsStep_ = globalStep();
  }
  inferenceModule_->eval();
  Batch batch(model_->inferenceInputs(), datapoint);
  if (device.isCuda()) batch = batch.to(toTorch(device));
  if (channelsLast_) batch = batch.channelsLast();
  return model_->inferenceOutputs(*inferenceTower_, *inferenceModule_, batch);
}

}  // namespace tbench
