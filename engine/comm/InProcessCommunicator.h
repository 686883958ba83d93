#pragma once
// InProcessCommunicator: all-reduce and broadcast by plain tensor operations. The reduction
// adds the towers in tower order on tower 0's device, so results are deterministic.

#include "engine/comm/Communicator.h"

namespace tbench {

class InProcessCommunicator : public Communicator {
 public:
  void allReduce(PerTower& tensors, ReduceOp op) override;
  void broadcast(PerTower& tensors, int root) override;
  void barrier() override {}
  std::string name() const override { return "in-process"; }
};

}  // namespace tbench
