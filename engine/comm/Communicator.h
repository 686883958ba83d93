#pragma once
// Communicator: collective operations across the towers of one process (tensorpack's
// all-reduce in SyncMultiGPUTrainerReplicated). tensors[t] holds tower t's tensors: the same
// count, shapes and dtypes on every tower, each on its tower's device.
//
// Implementations: InProcessCommunicator (any device, used for CPU towers) and
// NcclCommunicator (CUDA towers; built when CMake finds CUDA and NCCL). makeCommunicator
// picks one for a device list. Called on the engine thread, between the towers' work.

#include <torch/types.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/core/Device.h"

namespace tbench {

class Communicator {
 public:
  enum class ReduceOp { Sum, Average };
  using PerTower = std::vector<std::vector<torch::Tensor>>;

  virtual ~Communicator() = default;
  /// Afterwards tensors[t][i] holds the sum (or mean) over towers of tensors[*][i], for all t.
  /// Different towers' tensors must not share storage: implementations may accumulate in place
  /// into one tower's tensors.
  virtual void allReduce(PerTower& tensors, ReduceOp op) = 0;
  /// Afterwards tensors[t][i] holds tensors[root][i], for all t.
  virtual void broadcast(PerTower& tensors, int root) = 0;
  /// Returns when every tower's queued work is done.
  virtual void barrier() = 0;
  virtual std::string name() const = 0;
};

/// Note [Unused parameters]: a parameter the cost did not use this step has no gradient; for an
/// all-reduce every tower (or rank) contributes zeros for it, so that all give the same list.
/// Where no tower used it, it leaves the step with no gradient again, as a lone tower's would
/// (SimpleTrainer): an optimizer then skips it, instead of Adam's moments or weight decay
/// moving it on a zero gradient. DDP leaves globally unused parameters' gradients alone too.
class UnusedParameters {
 public:
  /// One tower's parameters, in the order every tower uses: each without a gradient gets
  /// zeros. Returns the gradients in that order.
  std::vector<torch::Tensor> fill(const std::vector<torch::Tensor>& params);
  /// After the all-reduce, for every tower: the parameters no tower used lose their gradient.
  void restore(const std::vector<torch::Tensor>& params) const;

 private:
  std::vector<bool> used_;
};

/// The communicator for towers on `devices`: NCCL when they are all distinct CUDA devices and
/// NCCL was built in, in-process otherwise (CPU towers, or towers sharing a GPU).
std::unique_ptr<Communicator> makeCommunicator(const std::vector<Device>& devices);

/// Throws CheckError unless every tower has the same number of tensors with equal shapes and
/// dtypes.
void checkPerTower(const Communicator::PerTower& tensors);

}  // namespace tbench
