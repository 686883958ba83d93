#include "engine/strategies/SyncReplicatedTrainer.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"
#include "engine/core/Logging.h"

namespace tbench {

/// Broadcasts tower 0 before training and after every epoch (after an optional check).
class SyncReplicatedTrainer::Broadcaster : public Callback {
 public:
  explicit Broadcaster(SyncReplicatedTrainer& trainer) : trainer_(trainer) {}
  std::string name() const override { return "SyncReplicatedTrainer/broadcast"; }

 private:
  void onBeforeTrain() override { trainer_.broadcastFromTowerZero(); }
  void onTriggerEpoch() override {
    if (trainer_.options_.checkReplicas) {
      const double difference = trainer_.maxReplicaDifference();
      TB_CHECK(difference == 0.0, "replicas diverged: max |replica - tower0| = ", difference,
               " at epoch ", context().epochNum());
    }
    trainer_.broadcastFromTowerZero();
  }

  SyncReplicatedTrainer& trainer_;
};

SyncReplicatedTrainer::SyncReplicatedTrainer(std::vector<Device> devices,
                                             SyncReplicatedOptions options)
    : MultiTowerTrainer(std::move(devices)), options_(options) {}

std::vector<torch::optim::Optimizer*> SyncReplicatedTrainer::optimizers() {
  std::vector<torch::optim::Optimizer*> all;
  for (auto& opt : optimizers_) all.push_back(opt.get());
  return all;
}

void SyncReplicatedTrainer::buildTowers() {
  buildReplicas();
  for (int t = 0; t < numTowers(); ++t) {
    optimizers_.push_back(makeOptimizer(replica(t)));
  }
  communicator_ = makeCommunicator(devices());
  TB_LOG(Info) << "SyncReplicatedTrainer: " << numTowers() << " towers, " << communicator_->name()
               << " all-reduce (" << (options_.average ? "average" : "sum") << ")";
  registerCallback(std::make_shared<Broadcaster>(*this));
}

void SyncReplicatedTrainer::broadcastFromTowerZero() {
  Communicator::PerTower tensors;
  for (int t = 0; t < numTowers(); ++t) {
    auto& module = replica(t);
    std::vector<torch::Tensor> state = module.parameters();
    for (auto& b : module.buffers()) state.push_back(b);
    tensors.push_back(std::move(state));
  }
  communicator_->broadcast(tensors, 0);
}

double SyncReplicatedTrainer::maxReplicaDifference() {
  torch::NoGradGuard noGrad;
  const auto reference = replica(0).parameters();
  if (reference.empty()) return 0;
  // Every difference's maximum where tower 0's parameters are, read once (Note [Host reads]).
  std::vector<torch::Tensor> maxima;
  for (int t = 1; t < numTowers(); ++t) {
    const auto params = replica(t).parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      maxima.push_back((params[i].to(reference[i].device()) - reference[i])
                           .abs()
                           .max()
                           .to(reference.front().device(), torch::kDouble));
    }
  }
  if (maxima.empty()) return 0;
  return hostItem<double>(torch::stack(maxima).max());
}

void SyncReplicatedTrainer::runStep() {
  computeGradients(takeBatches());
  Communicator::PerTower grads;
  UnusedParameters unused;
  for (int t = 0; t < numTowers(); ++t) grads.push_back(unused.fill(replica(t).parameters()));
  communicator_->allReduce(
      grads, options_.average ? Communicator::ReduceOp::Average : Communicator::ReduceOp::Sum);
  for (int t = 0; t < numTowers(); ++t) unused.restore(replica(t).parameters());
  // Every replica holds the same reduced gradients, so each clips them the same way.
  std::vector<std::vector<torch::Tensor>> params;
  for (int t = 0; t < numTowers(); ++t) params.push_back(replica(t).parameters());
  workers().run([&](int t) {
    if (prepareUpdate(params[static_cast<size_t>(t)], /*report=*/t == 0))
      optimizers_[static_cast<size_t>(t)]->step();
  });
  finishUpdate();
  broadcastBuffersFromTowerZero();
}

void SyncReplicatedTrainer::broadcastBuffersFromTowerZero() {
  // Note [Buffers follow tower 0]: replicas stay equal, buffers included, after every step.
  Communicator::PerTower buffers;
  for (int t = 0; t < numTowers(); ++t) {
    std::vector<torch::Tensor> towerBuffers;
    for (auto& b : replica(t).buffers()) {
      if (b.defined()) towerBuffers.push_back(b);
    }
    if (towerBuffers.empty()) return;  // a model without buffers: nothing to do
    buffers.push_back(std::move(towerBuffers));
  }
  communicator_->broadcast(buffers, 0);
}

}  // namespace tbench
