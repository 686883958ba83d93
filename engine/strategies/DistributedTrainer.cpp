#include "engine/strategies/DistributedTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Logging.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

DistributedTrainer::DistributedTrainer(Device device, std::shared_ptr<DistributedGroup> group,
                                       DistributedTrainerOptions options)
    : SingleCostTrainer({device}), group_(std::move(group)), options_(options) {}

DistributedTrainer::~DistributedTrainer() = default;

void DistributedTrainer::requestStop() {
  if (!group_) {
    SingleCostTrainer::requestStop();
    return;
  }
  stopAsked_.store(true);
}

void DistributedTrainer::buildTowers() {
  Device device = devices().front();
  if (device.isCuda() && group_) {
    device.index = group_->environment().localRank;
    // Before anything touches CUDA: without GPUs this says why, on every rank alike.
    nccl_ = std::make_unique<NcclRankCommunicator>(*group_, device.index);
  }
  requireAvailable(device);
  torchDevice_ = toTorch(device);
  tower_ = std::make_unique<TowerContext>(0, device, /*isTraining=*/true);
  module_ = model().buildTower(*tower_);
  TB_CHECK(module_ != nullptr, "buildTower returned no module");
  module_->to(torchDevice_);
  optimizer_ = model().optimizer(module_->parameters());
  TB_CHECK(optimizer_ != nullptr, "optimizer() returned no optimizer");
  if (group_ && !nccl_) {
    reducer_ = std::make_unique<GradientReducer>(module_->parameters(), *group_, options_.reduce,
                                                 options_.bucketBytes);
    reducer_->enableTiming(options_.timing);
    TB_LOG(Info) << "distributed: rank " << rank() << " of " << worldSize() << " on "
                 << device.toString() << ", gradients averaged with Gloo "
                 << (options_.reduce == GradientReducer::Mode::Buckets
                         ? str("in ", reducer_->numBuckets(), " bucket(s) of up to ",
                               options_.bucketBytes, " bytes during backward")
                         : std::string("one parameter at a time after backward"));
  }
}

void DistributedTrainer::initialize() {
  SingleCostTrainer::initialize();
  if (!group_) return;
  // Rank 0's state wins, whatever each rank initialised or restored (Note [Trainer state]).
  std::vector<torch::Tensor> state = module_->parameters();
  for (const auto& b : module_->buffers()) state.push_back(b);
  try {
    group_->broadcast(state, 0);
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    group_->fail(e, "the broadcast of rank 0's parameters");
  }
  group_->setProgress(globalStep());
  TB_LOG(Info) << "distributed: parameters and buffers of rank 0 broadcast to " << worldSize()
               << " ranks at global step " << globalStep();
}

void DistributedTrainer::reduceOnNccl() {
  std::vector<torch::Tensor> grads;
  auto params = module_->parameters();
  for (auto& p : params) {
    grads.push_back(p.grad().defined() ? p.grad().reshape({-1})
                                       : torch::zeros({p.numel()}, p.options()));
  }
  torch::Tensor flat = torch::cat(grads);
  nccl_->allReduceSum(flat);
  flat.div_(worldSize());
  int64_t offset = 0;
  for (auto& p : params) {
    p.mutable_grad() = flat.narrow(0, offset, p.numel()).view(p.sizes()).clone();
    offset += p.numel();
  }
}

void DistributedTrainer::runStep() {
  const int64_t step = globalStep() + 1;
  Batch batch = input().nextBatch();
  if (!torchDevice_.is_cpu()) batch = batch.to(torchDevice_);
  if (samplesPerStep() == 0) {
    setSamplesPerStep(batch.batchSize() * worldSize());
    if (group_) {
      TB_LOG(Info) << "distributed: total batch " << batch.batchSize() << " x " << worldSize()
                   << " ranks = " << batch.batchSize() * worldSize() << " samples per step";
    }
  }
  module_->train();
  optimizer_->zero_grad();
  try {
    if (!group_) {
      torch::Tensor cost = towerCost(*tower_, *module_, batch);
      backward(cost);
      if (prepareUpdate(module_->parameters(), /*report=*/true)) optimizer_->step();
      finishUpdate();
      putStepScalar("cost", cost.item<double>());
      putSummaries(*tower_);
      return;
    }
    // Collectives in the same order on every rank: buffers, the stop flag, the gradients.
    std::vector<torch::Tensor> buffers = module_->buffers();
    torch::Tensor stop = torch::full({1}, stopAsked_.load() ? 1.0f : 0.0f);
    std::unique_ptr<PendingCollective> stopVote;
    try {
      if (!buffers.empty()) group_->broadcast(buffers, 0);
      stopVote = group_->allReduceSum(stop);
    } catch (const std::exception& e) {
      group_->fail(e, str("the start of step ", step));
    }
    if (reducer_) reducer_->prepare();
    torch::Tensor cost = towerCost(*tower_, *module_, batch);
    backward(cost);
    try {
      if (reducer_) reducer_->finish();
      if (nccl_) reduceOnNccl();
      stopVote->wait();
    } catch (const std::exception& e) {
      group_->fail(e, str("the gradient all-reduce of step ", step));
    }
    if (prepareUpdate(module_->parameters(), /*report=*/true)) optimizer_->step();
    finishUpdate();
    group_->setProgress(step);
    putStepScalar("cost", cost.item<double>());
    putSummaries(*tower_);
    if (stop.item<float>() > 0) {
      TB_LOG(Info) << "distributed: a rank asked to stop; every rank stops after step " << step;
      SingleCostTrainer::requestStop();
    }
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    if (group_) group_->reportFailure(str("step ", step, ": ", e.what()));
    throw;
  }
}

}  // namespace tbench
