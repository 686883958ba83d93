#include "engine/comm/InProcessCommunicator.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

void checkPerTower(const Communicator::PerTower& tensors) {
  TB_CHECK(!tensors.empty(), "a collective needs at least one tower");
  for (size_t t = 1; t < tensors.size(); ++t) {
    TB_CHECK(tensors[t].size() == tensors[0].size(), "tower ", t, " has ", tensors[t].size(),
             " tensors, tower 0 has ", tensors[0].size());
    for (size_t i = 0; i < tensors[0].size(); ++i) {
      TB_CHECK(tensors[t][i].sizes() == tensors[0][i].sizes() &&
                   tensors[t][i].scalar_type() == tensors[0][i].scalar_type(),
               "tensor ", i, " of tower ", t, " is ", tensors[t][i].sizes(), " ",
               tensors[t][i].scalar_type(), ", tower 0 has ", tensors[0][i].sizes(), " ",
               tensors[0][i].scalar_type());
    }
  }
}

void InProcessCommunicator::allReduce(PerTower& tensors, ReduceOp op) {
  checkPerTower(tensors);
  torch::NoGradGuard noGrad;
  const size_t towers = tensors.size();
  // Every tensor is overwritten with the result, so tower 0's serves as the accumulator.
  for (size_t i = 0; i < tensors[0].size(); ++i) {
    torch::Tensor& total = tensors[0][i];
    for (size_t t = 1; t < towers; ++t) total.add_(tensors[t][i].to(total.device()));
    if (op == ReduceOp::Average) total.div_(static_cast<double>(towers));
    for (size_t t = 1; t < towers; ++t) tensors[t][i].copy_(total);
  }
}

void InProcessCommunicator::broadcast(PerTower& tensors, int root) {
  checkPerTower(tensors);
  TB_CHECK(root >= 0 && root < static_cast<int>(tensors.size()), "broadcast root ", root,
           " is not a tower");
  torch::NoGradGuard noGrad;
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (static_cast<int>(t) == root) continue;
    for (size_t i = 0; i < tensors[t].size(); ++i) tensors[t][i].copy_(tensors[root][i]);
  }
}

}  // namespace tbench
