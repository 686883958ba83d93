#pragma once
// DcganModel: a DCGAN (Radford et al. 2015; tensorpack's examples/GAN/DCGAN.py) for small
// images whose height and width are multiples of 4 (Fashion-MNIST's 28x28).
//
//   generator:     noise [N, Z] -> Linear -> BatchNorm -> ReLU -> [2c, H/4, W/4]
//                  -> ConvTranspose 4x4/2 -> BatchNorm -> ReLU -> [c, H/2, W/2]
//                  -> ConvTranspose 4x4/2 -> sigmoid(2x) (= (tanh + 1) / 2) -> [C, H, W]
//   discriminator: images in [0, 1] -> 2x - 1 -> Conv 4x4/2 -> LeakyReLU(0.2) -> [c, H/2, W/2]
//                  -> Conv 4x4/2 -> BatchNorm -> LeakyReLU(0.2) -> [2c, H/4, W/4]
//                  -> Linear -> one logit
// Images are in the data's range [0, 1] on both sides (tensorpack scales them to [-1, 1] and
// uses tanh: the same network up to that affine map). Both networks are initialised as the
// DCGAN paper says (weights ~ N(0, 0.02), BatchNorm scales ~ N(1, 0.02)).

#include <torch/nn/module.h>

#include "engine/models/ClassifierNet.h"
#include "engine/models/SupervisedModel.h"
#include "engine/train/GanModelDesc.h"

namespace tbench {

struct DcganOptions {
  ImageShape image;
  int64_t numTargets = 0;  ///< the data's second input: labels when 0, else T float targets
  int64_t noiseDim = 100;
  int64_t generatorChannels = 32;      ///< c of the generator (its widest layer has 2c)
  int64_t discriminatorChannels = 32;  ///< c of the discriminator
  GanSchedule schedule;
};

class DcganModel : public GanModelDesc {
 public:
  /// Throws InputError when the image size is not a multiple of 4.
  DcganModel(DcganOptions options, SupervisedModel::OptimizerFactory optimizer);

  std::vector<InputSpec> inputs() const override;
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) override;
  int64_t noiseDim() const override { return options_.noiseDim; }
  GanSchedule schedule() const override { return options_.schedule; }
  torch::Tensor generate(torch::nn::Module& net, const torch::Tensor& noise) override;
  torch::Tensor discriminate(torch::nn::Module& net, const torch::Tensor& images) override;
  std::unique_ptr<torch::optim::Optimizer> optimizer(GanRole role,
                                                     std::vector<torch::Tensor> params) override;

 private:
  DcganOptions options_;
  SupervisedModel::OptimizerFactory optimizer_;
};

}  // namespace tbench
