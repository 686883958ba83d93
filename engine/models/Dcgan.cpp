#include "engine/models/Dcgan.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

namespace {

namespace nn = torch::nn;

/// The generator: noise [N, Z] -> images [N, C, H, W] in [0, 1].
class Generator : public nn::Module {
 public:
  explicit Generator(const DcganOptions& o)
      : wide_(2 * o.generatorChannels), h_(o.image.height / 4), w_(o.image.width / 4) {
    project_ = register_module("project", nn::Linear(o.noiseDim, wide_ * h_ * w_));
    bn0_ = register_module("bn0", nn::BatchNorm1d(wide_ * h_ * w_));
    up1_ = register_module(
        "up1", nn::ConvTranspose2d(
                   nn::ConvTranspose2dOptions(wide_, o.generatorChannels, 4).stride(2).padding(1)));
    bn1_ = register_module("bn1", nn::BatchNorm2d(o.generatorChannels));
    up2_ = register_module("up2", nn::ConvTranspose2d(nn::ConvTranspose2dOptions(
                                                          o.generatorChannels, o.image.channels, 4)
                                                          .stride(2)
                                                          .padding(1)));
  }
  torch::Tensor forward(const torch::Tensor& noise) {
    auto x = torch::relu(bn0_(project_(noise))).view({-1, wide_, h_, w_});
    x = torch::relu(bn1_(up1_(x)));
    return torch::sigmoid(2 * up2_(x));
  }

 private:
  int64_t wide_, h_, w_;
  nn::Linear project_{nullptr};
  nn::BatchNorm1d bn0_{nullptr};
  nn::ConvTranspose2d up1_{nullptr}, up2_{nullptr};
  nn::BatchNorm2d bn1_{nullptr};
};

/// The discriminator: images [N, C, H, W] in [0, 1] -> logits [N].
class Discriminator : public nn::Module {
 public:
  explicit Discriminator(const DcganOptions& o) {
    const int64_t c = o.discriminatorChannels;
    down1_ = register_module(
        "down1", nn::Conv2d(nn::Conv2dOptions(o.image.channels, c, 4).stride(2).padding(1)));
    down2_ =
        register_module("down2", nn::Conv2d(nn::Conv2dOptions(c, 2 * c, 4).stride(2).padding(1)));
    bn2_ = register_module("bn2", nn::BatchNorm2d(2 * c));
    classify_ = register_module("classify",
                                nn::Linear(2 * c * (o.image.height / 4) * (o.image.width / 4), 1));
  }
  torch::Tensor forward(const torch::Tensor& images) {
    auto x = torch::leaky_relu(down1_(images * 2 - 1), 0.2);
    x = torch::leaky_relu(bn2_(down2_(x)), 0.2);
    return classify_(x.flatten(1)).squeeze(1);
  }

 private:
  nn::Conv2d down1_{nullptr}, down2_{nullptr};
  nn::BatchNorm2d bn2_{nullptr};
  nn::Linear classify_{nullptr};
};

/// The DCGAN paper's initialisation.
void initialise(nn::Module& module) {
  torch::NoGradGuard noGrad;
  for (auto& item : module.named_parameters()) {
    const std::string& name = item.key();
    auto& p = item.value();
    const bool batchNorm = name.find("bn") != std::string::npos;
    if (name.size() >= 6 && name.compare(name.size() - 6, 6, "weight") == 0) {
      if (batchNorm) {
        p.normal_(1.0, 0.02);
      } else {
        p.normal_(0.0, 0.02);
      }
    } else {
      p.zero_();
    }
  }
}

class DcganNet : public nn::Module {
 public:
  explicit DcganNet(const DcganOptions& o) {
    generator = register_module("generator", std::make_shared<Generator>(o));
    discriminator = register_module("discriminator", std::make_shared<Discriminator>(o));
    initialise(*this);
  }
  std::shared_ptr<Generator> generator;
  std::shared_ptr<Discriminator> discriminator;
};

DcganNet& dcgan(nn::Module& net) {
  auto* typed = dynamic_cast<DcganNet*>(&net);
  TB_CHECK(typed != nullptr, "DcganModel got a module it did not build");
  return *typed;
}

}  // namespace

DcganModel::DcganModel(DcganOptions options, SupervisedModel::OptimizerFactory optimizer)
    : options_(options), optimizer_(std::move(optimizer)) {
  const ImageShape& image = options_.image;
  if (image.height % 4 != 0 || image.width % 4 != 0 || image.height < 4 || image.width < 4) {
    throw InputError(
        str("the DCGAN model needs images whose height and width are multiples of "
            "4, the data has ",
            image.channels, "x", image.height, "x", image.width));
  }
  TB_CHECK(optimizer_ != nullptr, "DcganModel needs an optimizer factory");
}

std::vector<InputSpec> DcganModel::inputs() const {
  const ImageShape& i = options_.image;
  // The data's labels or targets (second input) are read and ignored: the GAN is
  // unconditional.
  InputSpec second = options_.numTargets > 0
                         ? InputSpec{"target", torch::kFloat32, {-1, options_.numTargets}}
                         : InputSpec{"label", torch::kInt64, {-1}};
  return {{"image", torch::kFloat32, {-1, i.channels, i.height, i.width}}, second};
}

std::shared_ptr<torch::nn::Module> DcganModel::buildTower(const TowerContext&) {
  return std::make_shared<DcganNet>(options_);
}

torch::Tensor DcganModel::generate(torch::nn::Module& net, const torch::Tensor& noise) {
  return dcgan(net).generator->forward(noise);
}

torch::Tensor DcganModel::discriminate(torch::nn::Module& net, const torch::Tensor& images) {
  return dcgan(net).discriminator->forward(images);
}

std::unique_ptr<torch::optim::Optimizer> DcganModel::optimizer(GanRole,
                                                               std::vector<torch::Tensor> params) {
  return optimizer_(std::move(params));
}

}  // namespace tbench
