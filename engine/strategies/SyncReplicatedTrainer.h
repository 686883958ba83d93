#pragma once
// SyncReplicatedTrainer (tensorpack's SyncMultiGPUTrainerReplicated): a persistent replica and
// optimizer per tower; the towers' gradients are all-reduced (averaged, or summed) through a
// Communicator (NCCL for CUDA towers, in-process for CPU towers) and every replica applies the
// same update. Tower 0 is broadcast to the others before training and after every epoch, so
// rounding differences cannot accumulate, and its buffers (BatchNorm statistics) after every
// step (Note [Buffers follow tower 0]). Checkpoints are taken from tower 0.

#include "engine/comm/Communicator.h"
#include "engine/strategies/MultiTowerTrainer.h"

namespace tbench {

struct SyncReplicatedOptions {
  bool average = true;  ///< average the gradients (true) or sum them
  /// Debug: after every epoch, before the broadcast, check that every replica still equals
  /// tower 0 bit for bit; a difference throws CheckError naming the tower and parameter.
  bool checkReplicas = false;
  SyncReplicatedOptions& sum() {
    average = false;
    return *this;
  }
  SyncReplicatedOptions& verify(bool on = true) {
    checkReplicas = on;
    return *this;
  }
};

class SyncReplicatedTrainer : public MultiTowerTrainer {
 public:
  explicit SyncReplicatedTrainer(std::vector<Device> devices, SyncReplicatedOptions options = {});
  torch::nn::Module& mainModule() override { return replica(0); }
  std::vector<torch::optim::Optimizer*> optimizers() override;
  /// The largest absolute difference between any replica's parameter and tower 0's.
  double maxReplicaDifference();
  /// Copies tower 0's parameters and buffers to every other replica.
  void broadcastFromTowerZero();
  /// Copies tower 0's buffers to every other replica (nothing for a model without buffers).
  void broadcastBuffersFromTowerZero();
  const Communicator& communicator() const { return *communicator_; }

 protected:
  void buildTowers() override;
  void runStep() override;

 private:
  class Broadcaster;
  SyncReplicatedOptions options_;
  std::vector<std::unique_ptr<torch::optim::Optimizer>> optimizers_;
  std::unique_ptr<Communicator> communicator_;
};

}  // namespace tbench
