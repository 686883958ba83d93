#pragma once
// ConvNet: the "2 Conv+pooling" network of the Fashion-MNIST benchmark table (the TensorFlow
// tutorial net): conv 5x5 32, max-pool 2, conv 5x5 64, max-pool 2, fc 1024, fc classes, ReLU
// after every hidden layer and "same" padding. Sizes are configurable; batchNorm adds
// BatchNorm2d after each convolution (buffers: running_mean, running_var,
// num_batches_tracked under bn1. and bn2.).

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include "engine/models/ClassifierNet.h"

namespace tbench {

struct ConvNetOptions {
  ImageShape image;
  int64_t numClasses = 10;
  int64_t conv1Channels = 32;
  int64_t conv2Channels = 64;
  int64_t kernelSize = 5;  ///< odd, so that "same" padding is exact
  int64_t fcWidth = 1024;
  double dropout = 0.0;
  /// BatchNorm after each convolution (before its ReLU); the convolutions then have no bias.
  bool batchNorm = false;
};

class ConvNet : public ClassifierNet {
 public:
  explicit ConvNet(const ConvNetOptions& options);
  torch::Tensor forward(torch::Tensor images) override;
  std::string scriptForward() const override;

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::BatchNorm2d bn2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  int64_t padding_ = 0;
};

}  // namespace tbench
