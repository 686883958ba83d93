#pragma once
// DistributedTrainer (tensorpack's HorovodTrainer / distributed trainers, on c10d): one process
// per device, each a rank with one tower, its own replica and its own optimizer. Every step a
// rank takes its own batch (its shard of the data, ShardedData), back-propagates, and its
// gradients are averaged over the ranks while backward runs (GradientReducer, Note [Gradient
// buckets]); every rank then applies the same update. Rank 0's parameters and buffers are
// broadcast before the first step (after initialisation and resume), and its buffers before
// every step (Note [Buffers follow tower 0]). The total batch is batch_size × world size.
//
// A stop asked on any rank (Ctrl-C, the window's Stop) is agreed on: it rides along with every
// step's all-reduce, and all ranks stop after the same step. A collective that fails becomes a
// DistributedError naming the rank that died or hangs (Note [Distributed faults]).
//
// CPU ranks reduce with Gloo; a CUDA rank (device "cuda", using cuda:<local rank>) reduces
// with NCCL (NcclRankCommunicator), which needs GPUs and a LibTorch built with CUDA. Without a
// group (one process, no launcher variables) it trains alone like SimpleTrainer.

#include <memory>

#include "engine/comm/DistributedGroup.h"
#include "engine/comm/GradientReducer.h"
#include "engine/comm/NcclRankCommunicator.h"
#include "engine/train/SingleCostTrainer.h"

namespace tbench {

struct DistributedTrainerOptions {
  GradientReducer::Mode reduce = GradientReducer::Mode::Buckets;
  int64_t bucketBytes = 25 << 20;  ///< Note [Gradient buckets]
  bool timing = false;             ///< Note [Reducer timing] (benchmarks)
  DistributedTrainerOptions& perParameter() {
    reduce = GradientReducer::Mode::PerParameter;
    return *this;
  }
  DistributedTrainerOptions& bucketSize(int64_t bytes) {
    bucketBytes = bytes;
    return *this;
  }
  DistributedTrainerOptions& timeReduction(bool on = true) {
    timing = on;
    return *this;
  }
};

class DistributedTrainer : public SingleCostTrainer {
 public:
  /// `group` may be null (one process). `device`: "cpu", or a CUDA device (the rank's local
  /// rank picks the ordinal).
  DistributedTrainer(Device device, std::shared_ptr<DistributedGroup> group,
                     DistributedTrainerOptions options = {});
  ~DistributedTrainer() override;
  torch::nn::Module& mainModule() override { return *module_; }
  std::vector<torch::optim::Optimizer*> optimizers() override { return {optimizer_.get()}; }
  int rank() const { return group_ ? group_->rank() : 0; }
  int64_t worldSize() const override { return group_ ? group_->worldSize() : 1; }
  /// Any thread: asks every rank to stop after the step that carries the request.
  void requestStop() override;
  /// The Gloo reducer, once set up (null for one process or NCCL ranks). Its timing() is read
  /// on the engine thread (a callback).
  const GradientReducer* reducer() const { return reducer_.get(); }

 protected:
  void buildTowers() override;
  void initialize() override;
  void runStep() override;

 private:
  void reduceOnNccl();

  std::shared_ptr<DistributedGroup> group_;
  DistributedTrainerOptions options_;
  std::unique_ptr<TowerContext> tower_;
  std::shared_ptr<torch::nn::Module> module_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  torch::Device torchDevice_{torch::kCPU};
  std::unique_ptr<GradientReducer> reducer_;
  std::unique_ptr<NcclRankCommunicator> nccl_;
  std::atomic<bool> stopAsked_{false};
};

}  // namespace tbench
