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
// Note [Ranks stay one model]: tensorpack's HorovodTrainer broadcasts every variable from rank 0
// each epoch; here the ranks are kept one model by construction and checked:
// - after an epoch's last step, the parameters' checksum (float64 sums) of every rank is
//   compared with rank 0's; ranks that differ fail the run on every rank, named (they trained
//   apart; nothing in a correct run makes them). Then rank 0's buffers (BatchNorm statistics)
//   are broadcast, so that validation and the checkpoint see one model;
// - validation is shared out and its sums all-reduced (Note [Sharded validation]), so every
//   rank's plateau rule reads the same figure;
// - after the epoch's triggers, rank 0's hyper-parameters (the learning rate a plateau rule or
//   a schedule set) are broadcast, before the savers write: a decision is rank 0's, applied
//   on every rank;
// - callbacks that only report or act on rank 0's state run on rank 0 alone (Note [Chief-only
//   callbacks]).
// TB_FAULT_DIVERGE_RANK=<r> (fault injection for tests) nudges rank r's first parameter
// before the check of every epoch.
//
// Note [Rank random streams]: before every step, rank r seeds its generators (CPU and CUDA)
// with rankStepSeed(seed, r, step), the seed being the project's (the CPU generator's seed when
// the trainer was set up): ranks draw different dropout masks (W ranks of batch b draw W×b
// masks, as one process of batch W×b), and a resumed run draws at every step what the
// uninterrupted one drew, on every rank, without a checkpoint holding W generator states.
// Initialisation stays rank 0's (the broadcast before the first step).
//
// Every step one small all-reduce, issued after the gradients' own, carries the stop vote, the
// cost (so `cost` is the mean over the ranks, as the in-process strategies put the mean over
// towers) and which parameters had a gradient (Note [Unused parameters]: one that no rank
// used leaves the step without a gradient, as a lone tower's would).
//
// CPU ranks reduce with Gloo; a CUDA rank (device "cuda", using cuda:<local rank>) reduces
// with NCCL (NcclRankCommunicator), which needs GPUs and a LibTorch built with CUDA. Without a
// group (one process, no launcher variables) it is a SimpleTrainer: its step is SimpleTrainer's.

#include <memory>

#include "engine/comm/DistributedGroup.h"
#include "engine/comm/GradientReducer.h"
#include "engine/comm/NcclRankCommunicator.h"
#include "engine/strategies/SimpleTrainer.h"

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

class DistributedTrainer : public SimpleTrainer {
 public:
  /// `group` may be null (one process). `device`: "cpu", or a CUDA device (the rank's local
  /// rank picks the ordinal).
  DistributedTrainer(Device device, std::shared_ptr<DistributedGroup> group,
                     DistributedTrainerOptions options = {});
  ~DistributedTrainer() override;
  int rank() const { return group_ ? group_->rank() : 0; }
  int64_t worldSize() const override { return group_ ? group_->worldSize() : 1; }
  /// Any thread: asks every rank to stop after the step that carries the request.
  void requestStop() override;
  /// The Gloo reducer, once set up (null for one process or NCCL ranks). Its timing() is read
  /// on the engine thread (a callback).
  const GradientReducer* reducer() const { return reducer_.get(); }
  std::pair<int, int> validationShard() const override { return {rank(), worldSize()}; }
  void sumOverProcesses(torch::Tensor& totals) override;
  void beforeValidation() override;

 protected:
  void buildTowers() override;
  void initialize() override;
  void runStep() override;
  void onEpochStepsDone() override;
  bool onEpochTriggered(bool stopping) override;

 private:
  void reduceOnNccl();
  /// Note [Rank random streams].
  void reseedForStep(int64_t step);

  std::shared_ptr<DistributedGroup> group_;
  DistributedTrainerOptions options_;
  std::unique_ptr<GradientReducer> reducer_;
  int64_t buffersSharedAt_ = -1;  // the global step after which rank 0's buffers were last given
  std::unique_ptr<NcclRankCommunicator> nccl_;
  std::atomic<bool> stopAsked_{false};
  uint64_t baseSeed_ = 0;
};

/// Note [Rank random streams]: the seed of rank `rank`'s generators for step `step` (1 for the
/// first step) of a run seeded with `seed`.
uint64_t rankStepSeed(uint64_t seed, int rank, int64_t step);

}  // namespace tbench
