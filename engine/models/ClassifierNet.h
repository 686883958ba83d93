#pragma once
// ClassifierNet: a network that maps images [N, C, H, W] to class logits [N, K]. The built-in
// networks derive from it so that SupervisedModel can call forward() on any replica.

#include <torch/nn/module.h>

#include <string>

namespace tbench {

class ClassifierNet : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(torch::Tensor images) = 0;
  /// The TorchScript source of this network's forward in eval mode ("def forward(self, x:
  /// Tensor) -> Tensor: ..."), reading its parameters and buffers under their names (a child
  /// named "0" as getattr(self.layers, "0")); exportTorchScript compiles it into a module
  /// holding the trained tensors. Empty when the network cannot be exported this way.
  virtual std::string scriptForward() const { return {}; }
};

/// The shape of one image: channels, height, width.
struct ImageShape {
  int64_t channels = 1;
  int64_t height = 28;
  int64_t width = 28;
  int64_t numel() const { return channels * height * width; }
};

}  // namespace tbench
