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

}  // namespace tbench
