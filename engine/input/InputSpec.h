#pragma once
// InputSpec: what a model expects for one input (tensorpack's InputDesc). The shape uses -1
// for the batch dimension (and any other free dimension).

#include <torch/types.h>

#include <string>
#include <vector>

namespace tbench {

struct InputSpec {
  std::string name;
  torch::Dtype dtype = torch::kFloat32;
  std::vector<int64_t> shape;  ///< -1 for a free dimension (the batch dimension first)
};

}  // namespace tbench
