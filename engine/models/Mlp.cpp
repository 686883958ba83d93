#include "engine/models/Mlp.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

Mlp::Mlp(const MlpOptions& options) {
  TB_CHECK(options.numClasses >= 1, "an MLP needs 1 or more outputs, got ", options.numClasses);
  int64_t width = options.image.numel();
  for (int64_t h : options.hidden) {
    TB_CHECK(h > 0, "hidden widths must be positive, got ", h);
    layers_->push_back(torch::nn::Linear(width, h));
    layers_->push_back(torch::nn::ReLU());
    width = h;
  }
  if (options.dropout > 0) layers_->push_back(torch::nn::Dropout(options.dropout));
  layers_->push_back(torch::nn::Linear(width, options.numClasses));
  register_module("layers", layers_);
}

torch::Tensor Mlp::forward(torch::Tensor images) { return layers_->forward(images.flatten(1)); }

std::string Mlp::scriptForward() const {
  std::string code = "def forward(self, x: Tensor) -> Tensor:\n    x = x.flatten(1)\n";
  const auto children = layers_->named_children();
  for (const auto& child : children) {
    const std::string layer = str("getattr(self.layers, \"", child.key(), "\")");
    if (child.value()->as<torch::nn::Linear>() != nullptr) {
      code += str("    x = torch.linear(x, ", layer, ".weight, ", layer, ".bias)\n");
    } else if (child.value()->as<torch::nn::ReLU>() != nullptr) {
      code += "    x = torch.relu(x)\n";
    }  // Dropout is the identity in eval mode.
  }
  return code + "    return x\n";
}

}  // namespace tbench
