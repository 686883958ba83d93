#pragma once
// ClassifierNet: a network that maps images [N, C, H, W] to class logits [N, K]. The built-in
// networks derive from it so that ClassificationModel can call forward() on any replica.

#include <torch/nn/module.h>

namespace tbench {

class ClassifierNet : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor images) = 0;
};

/// The shape of one image: channels, height, width.
struct ImageShape {
  int64_t channels = 1;
  int64_t height = 28;
  int64_t width = 28;
  int64_t numel() const { return channels * height * width; }
};

}  // namespace tbench
