#pragma once
// Mlp: flatten, then Linear + ReLU for every hidden width, dropout, and a Linear to the
// classes.

#include <torch/nn/modules/container/sequential.h>

#include "engine/models/ClassifierNet.h"

namespace tbench {

struct MlpOptions {
  ImageShape image;
  int64_t numClasses = 10;
  std::vector<int64_t> hidden = {256, 128};
  double dropout = 0.0;
};

class Mlp : public ClassifierNet {
 public:
  explicit Mlp(const MlpOptions& options);
  torch::Tensor forward(torch::Tensor images) override;
  std::string scriptForward() const override;

 private:
  torch::nn::Sequential layers_;
};

}  // namespace tbench
