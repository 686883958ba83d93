#include "engine/models/Mlp.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

Mlp::Mlp(const MlpOptions& options) {
  TB_CHECK(options.numClasses >= 2, "an MLP classifier needs 2 or more classes, got ",
           options.numClasses);
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

}  // namespace tbench
