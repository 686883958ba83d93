#include "engine/models/ConvNet.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

ConvNet::ConvNet(const ConvNetOptions& o) {
  TB_CHECK(o.kernelSize > 0 && o.kernelSize % 2 == 1, "kernel_size must be odd, got ",
           o.kernelSize);
  TB_CHECK(o.image.height >= 4 && o.image.width >= 4,
           "the ConvNet pools twice: images must be "
           "at least 4x4, got ",
           o.image.height, "x", o.image.width);
  const int64_t pad = o.kernelSize / 2;
  padding_ = pad;
  const bool bias = !o.batchNorm;  // BatchNorm's shift makes a convolution bias redundant
  conv1_ = register_module(
      "conv1",
      torch::nn::Conv2d(torch::nn::Conv2dOptions(o.image.channels, o.conv1Channels, o.kernelSize)
                            .padding(pad)
                            .bias(bias)));
  conv2_ = register_module(
      "conv2",
      torch::nn::Conv2d(torch::nn::Conv2dOptions(o.conv1Channels, o.conv2Channels, o.kernelSize)
                            .padding(pad)
                            .bias(bias)));
  if (o.batchNorm) {
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(o.conv1Channels));
    bn2_ = register_module("bn2", torch::nn::BatchNorm2d(o.conv2Channels));
  }
  const int64_t flat = o.conv2Channels * (o.image.height / 4) * (o.image.width / 4);
  fc1_ = register_module("fc1", torch::nn::Linear(flat, o.fcWidth));
  dropout_ = register_module("dropout", torch::nn::Dropout(o.dropout));
  fc2_ = register_module("fc2", torch::nn::Linear(o.fcWidth, o.numClasses));
}

torch::Tensor ConvNet::forward(torch::Tensor x) {
  x = conv1_->forward(x);
  if (bn1_) x = bn1_->forward(x);
  x = torch::max_pool2d(torch::relu(x), 2);
  x = conv2_->forward(x);
  if (bn2_) x = bn2_->forward(x);
  x = torch::max_pool2d(torch::relu(x), 2);
  x = torch::relu(fc1_->forward(x.flatten(1)));
  return fc2_->forward(dropout_->forward(x));
}

std::string ConvNet::scriptForward() const {
  const std::string pad = str("[", padding_, ", ", padding_, "]");
  auto conv = [&](const char* name, bool hasBias) {
    return str("    x = torch.conv2d(x, self.", name, ".weight, ",
               hasBias ? str("self.", name, ".bias") : std::string("None"), ", [1, 1], ", pad,
               ")\n");
  };
  auto norm = [](const char* name) {
    return str("    x = torch.batch_norm(x, self.", name, ".weight, self.", name, ".bias, self.",
               name, ".running_mean, self.", name, ".running_var, False, 0.0, ", "1e-05, False)\n");
  };
  std::string code = "def forward(self, x: Tensor) -> Tensor:\n";
  code += conv("conv1", !bn1_);
  if (bn1_) code += norm("bn1");
  code += "    x = torch.max_pool2d(torch.relu(x), [2, 2])\n";
  code += conv("conv2", !bn2_);
  if (bn2_) code += norm("bn2");
  code += "    x = torch.max_pool2d(torch.relu(x), [2, 2])\n";
  code += "    x = torch.relu(torch.linear(x.flatten(1), self.fc1.weight, self.fc1.bias))\n";
  code += "    return torch.linear(x, self.fc2.weight, self.fc2.bias)\n";
  return code;
}

}  // namespace tbench
