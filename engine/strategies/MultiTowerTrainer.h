#pragma once
// MultiTowerTrainer: what the data-parallel strategies share (docs/ARCHITECTURE.md, "Data
// parallel semantics").
//
// Note [Tower replication]: ModelDesc::buildTower is called once per tower; every replica has
// the same parameter names, so checkpoints are the same whatever the strategy. Each step the
// engine thread takes one batch per tower from the InputSource, in tower order (runs are
// reproducible; a step consumes batch × towers samples), then the towers compute their cost
// and gradients on TowerWorkers: concurrently across devices, one after another on a shared
// device (Note [One thread per device]). The first exception of any tower is
// rethrown on the engine thread after all towers finished. The reported "cost" is the mean of
// the towers' costs; summaries come from tower 0.
//
// Note [Buffers follow tower 0]: buffers such as BatchNorm's running statistics are not
// trained by gradients; each tower updates its own in its forward pass. As in tensorpack,
// where only the main training tower updates the moving averages, the state that checkpoints
// and validation see takes tower 0's: the parameter-server and async masters copy tower 0's
// buffers after its forward pass, and replicated towers receive tower 0's after every step.

#include <memory>
#include <vector>

#include "engine/strategies/TowerWorkers.h"
#include "engine/train/SingleCostTrainer.h"

namespace tbench {

class MultiTowerTrainer : public SingleCostTrainer {
 public:
  /// The replica of tower `t`.
  torch::nn::Module& replica(int t) { return *replicas_.at(static_cast<size_t>(t)); }

 protected:
  explicit MultiTowerTrainer(std::vector<Device> devices);
  /// Builds one replica per tower on its device (checking the devices exist) and the workers.
  void buildReplicas();
  /// One batch per tower, in tower order, each moved to its tower's device; accumulation()
  /// times (micro-batch after micro-batch).
  std::vector<Batch> takeBatches();
  /// Zeroes the replica's gradients, computes the tower's cost on its batches of the step (one,
  /// or its accumulation() micro-batches) and back-propagates. Runs on the tower's worker
  /// thread; returns the detached (mean) cost.
  torch::Tensor forwardBackward(int t, const std::vector<Batch>& batches);
  /// Runs forwardBackward on every tower concurrently and reports the mean cost.
  void computeGradients(const std::vector<Batch>& batches);
  /// Puts "cost" (mean over towers) and tower 0's summaries.
  void report(const std::vector<torch::Tensor>& costs);

  TowerWorkers& workers() { return *workers_; }
  const torch::Device& torchDevice(int t) const { return torchDevices_.at(static_cast<size_t>(t)); }
  std::vector<std::shared_ptr<torch::nn::Module>>& replicas() { return replicas_; }

 private:
  std::vector<std::unique_ptr<TowerContext>> towers_;
  std::vector<std::shared_ptr<torch::nn::Module>> replicas_;
  std::vector<torch::Device> torchDevices_;
  std::unique_ptr<TowerWorkers> workers_;
};

/// Copies `source`'s parameters and buffers into `target` (same names), without gradient.
void copyState(torch::nn::Module& target, torch::nn::Module& source);
/// Copies `source`'s buffers (BatchNorm running statistics) into `target`.
void copyBuffers(torch::nn::Module& target, torch::nn::Module& source);

}  // namespace tbench
