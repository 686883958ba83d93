#include "engine/strategies/GanTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Logging.h"
#include "engine/strategies/MultiTowerTrainer.h"
#include "engine/train/SingleCostTrainer.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

namespace {

size_t slot(GanRole role) { return role == GanRole::Generator ? 0 : 1; }

}  // namespace

/// Replicas start from tower 0 (also after a resume restored it).
class GanTrainer::Broadcaster : public Callback {
 public:
  explicit Broadcaster(GanTrainer& trainer) : trainer_(trainer) {}
  std::string name() const override { return "GanTrainer/broadcast"; }

 private:
  void onBeforeTrain() override { trainer_.broadcast(/*buffersOnly=*/false); }
  GanTrainer& trainer_;
};

GanTrainer::GanTrainer(std::vector<Device> devices) : TowerTrainer(std::move(devices)) {}

GanTrainer::~GanTrainer() = default;

void GanTrainer::setupGraph(InputSourcePtr input, ModelDescBasePtr model) {
  TB_CHECK(input != nullptr && model != nullptr, "setupGraph needs an input and a model");
  model_ = std::dynamic_pointer_cast<GanModelDesc>(model);
  if (!model_) {
    throw InputError(
        "the GAN trainer trains a GAN model (a GanModelDesc with a generator and a "
        "discriminator); this model has a single cost, train it with a single-cost strategy");
  }
  if (paramGroups().active()) {
    throw InputError(
        "optimizer.param_groups: the GAN trainer has one optimizer per network and no parameter "
        "groups; freeze or scale a GAN's networks in its model instead");
  }
  schedule_ = model_->schedule();
  if (schedule_.discriminatorSteps < 1 || schedule_.generatorSteps < 1) {
    throw InputError(str("a GAN step needs at least one update of each network, got ",
                         schedule_.discriminatorSteps, " discriminator and ",
                         schedule_.generatorSteps, " generator update(s)"));
  }
  input->setup(model->inputs());
  attach(std::move(input), std::move(model));
  for (int t = 0; t < numTowers(); ++t) {
    const Device& device = devices()[static_cast<size_t>(t)];
    towers_.push_back(std::make_unique<TowerContext>(t, device, /*isTraining=*/true));
    auto module = makeTower(*towers_.back());
    torchDevices_.push_back(toTorch(device));
    if (t > 0) copyState(*module, *replicas_.front());  // Note [Tower replication]
    replicas_.push_back(module);
    std::array<std::vector<torch::Tensor>, 2> roleParams{
        GanModelDesc::parametersOf(*module, GanRole::Generator),
        GanModelDesc::parametersOf(*module, GanRole::Discriminator)};
    std::array<std::unique_ptr<torch::optim::Optimizer>, 2> roleOptimizers;
    for (GanRole role : {GanRole::Generator, GanRole::Discriminator}) {
      roleOptimizers[slot(role)] = model_->optimizer(role, roleParams[slot(role)]);
      TB_CHECK(roleOptimizers[slot(role)] != nullptr, "optimizer() returned no optimizer for the ",
               roleName(role));
    }
    params_.push_back(std::move(roleParams));
    optimizers_.push_back(std::move(roleOptimizers));
  }
  workers_ = std::make_unique<TowerWorkers>(devices());
  if (numTowers() > 1) {
    communicator_ = makeCommunicator(devices());
    registerCallback(std::make_shared<Broadcaster>(*this));
  }
  std::vector<torch::optim::Optimizer*> all;
  for (auto& tower : optimizers_) {
    for (auto& optimizer : tower) all.push_back(optimizer.get());
  }
  registerHyperParam(learningRateOf(all));
  TB_LOG(Info) << "GanTrainer: " << numTowers() << " tower(s)"
               << (communicator_ ? ", " + communicator_->name() + " all-reduce" : std::string())
               << "; per step " << schedule_.discriminatorSteps << " discriminator and "
               << schedule_.generatorSteps << " generator update(s)";
}

std::vector<TowerTrainer::OptimizerSlot> GanTrainer::optimizerSlots() {
  std::vector<OptimizerSlot> slots;
  for (GanRole role : {GanRole::Generator, GanRole::Discriminator}) {
    OptimizerSlot s{roleName(role), {}};
    for (auto& tower : optimizers_) s.copies.push_back(tower[slot(role)].get());
    slots.push_back(std::move(s));
  }
  return slots;
}

std::map<std::string, torch::Tensor> GanTrainer::extraState() {
  return {{"generator_updates", torch::scalar_tensor(updates_[0], torch::kInt64)},
          {"discriminator_updates", torch::scalar_tensor(updates_[1], torch::kInt64)}};
}

void GanTrainer::restoreExtraState(const std::map<std::string, torch::Tensor>& state) {
  for (GanRole role : {GanRole::Generator, GanRole::Discriminator}) {
    const std::string name = std::string(roleName(role)) + "_updates";
    auto it = state.find(name);
    if (it == state.end() || it->second.numel() != 1) {
      throw InputError(str("the checkpoint's trainer_state has no \"", name,
                           "\": it was not written by the GAN trainer"));
    }
    updates_[slot(role)] = it->second.item<int64_t>();
  }
}

std::vector<torch::Tensor>& GanTrainer::params(GanRole role, int t) {
  return params_[static_cast<size_t>(t)][slot(role)];
}

void GanTrainer::runStep() {
  std::vector<torch::Tensor> dLosses, gLosses;
  for (int64_t i = 0; i < schedule_.discriminatorSteps; ++i) {
    const std::vector<Batch> batches = takeBatches(torchDevices_);
    dLosses.push_back(update(GanRole::Discriminator, batches, i));
  }
  for (int64_t i = 0; i < schedule_.generatorSteps; ++i) {
    gLosses.push_back(update(GanRole::Generator, {}, i));
  }
  auto mean = [](const std::vector<torch::Tensor>& v) {
    return v.size() == 1 ? v.front() : torch::stack(v).mean();
  };
  putStepScalar("d_loss", mean(dLosses));
  putStepScalar("g_loss", mean(gLosses));
  for (const auto& [name, value] : summaries_) putStepScalar(name, value);
  summaries_.clear();
  if (numTowers() > 1) broadcast(/*buffersOnly=*/true);
}

torch::Tensor GanTrainer::update(GanRole role, const std::vector<Batch>& batches, int64_t index) {
  if (observer_) observer_({role, globalStep() + 1, index});
  // Noise on the engine thread, in tower order (Note [Trainer state]); one sample per image of
  // the tower's batch (the generator's updates use the step's last discriminator batch size).
  if (!batches.empty()) batchSize_ = batches.front().batchSize();
  std::vector<torch::Tensor> noise;
  for (int t = 0; t < numTowers(); ++t) {
    const int64_t n = batches.empty() ? batchSize_ : batches[static_cast<size_t>(t)].batchSize();
    noise.push_back(model_->sampleNoise(n).to(torchDevices_[static_cast<size_t>(t)]));
  }
  std::vector<torch::Tensor> costs(static_cast<size_t>(numTowers()));
  workers_->run([&](int t) {
    const size_t i = static_cast<size_t>(t);
    auto& net = *replicas_[i];
    net.train();
    for (auto& p : net.parameters()) {
      if (p.grad().defined()) p.grad().zero_();
    }
    torch::Tensor cost;
    if (role == GanRole::Discriminator) {
      torch::Tensor fake;
      {
        torch::NoGradGuard noGrad;
        fake = model_->generate(net, noise[i]);
      }
      const auto realLogits = model_->discriminate(net, model_->realImages(batches[i]));
      const auto fakeLogits = model_->discriminate(net, fake);
      cost = model_->discriminatorLoss(*towers_[i], realLogits, fakeLogits);
    } else {
      const auto fakeLogits = model_->discriminate(net, model_->generate(net, noise[i]));
      cost = model_->generatorLoss(*towers_[i], fakeLogits);
    }
    TB_CHECK(cost.numel() == 1, "the ", roleName(role), "'s cost must be a scalar, got shape ",
             cost.sizes(), " on ", towers_[i]->name());
    cost.backward();
    costs[i] = cost.detach().to(torchDevices_.front(), torch::kFloat).reshape({});
  });
  if (communicator_) {
    Communicator::PerTower grads;
    UnusedParameters unused;
    for (int t = 0; t < numTowers(); ++t) grads.push_back(unused.fill(params(role, t)));
    communicator_->allReduce(grads, Communicator::ReduceOp::Average);
    for (int t = 0; t < numTowers(); ++t) unused.restore(params(role, t));
  }
  workers_->run([&](int t) { optimizers_[static_cast<size_t>(t)][slot(role)]->step(); });
  ++updates_[slot(role)];
  // Tower 0 reports; a later update's summary replaces an earlier one of the same name.
  for (size_t t = 0; t < towers_.size(); ++t) {
    auto summaries = towers_[t]->takeSummaries();
    if (t != 0) continue;
    for (auto& [name, value] : summaries) summaries_[name] = value.detach();
  }
  // Read with the step's other scalars (Note [Step scalars read in batches]).
  return costs.size() == 1 ? costs.front() : torch::stack(costs).mean();
}

void GanTrainer::broadcast(bool buffersOnly) {
  Communicator::PerTower tensors;
  for (auto& replica : replicas_) {
    std::vector<torch::Tensor> state;
    if (!buffersOnly) state = replica->parameters();
    for (auto& b : replica->buffers()) {
      if (b.defined()) state.push_back(b);
    }
    if (state.empty()) return;
    tensors.push_back(std::move(state));
  }
  communicator_->broadcast(tensors, 0);
}

}  // namespace tbench
