// The built-in models: description and factory of each (Note [One description per component]).

#include "engine/models/ConvNet.h"
#include "engine/models/Mlp.h"
#include "engine/project/ComponentFactories.h"
#include "engine/project/builtin/Builtin.h"

namespace tbench {

void registerBuiltinModels(ComponentRegistry& registry) {
  const MlpOptions mlp;
  registerModel(
      registry,
      describe("mlp", "Multi-layer perceptron: hidden Linear+ReLU layers, then a linear classifier",
               {key::integers("hidden", mlp.hidden)
                    .label("Hidden layers")
                    .help("Widths of the hidden layers, e.g. \"256, 128\"; [] for none")
                    .atLeast(1)}),
      [](const Settings& s, ImageShape image, int64_t numClasses) {
        const MlpOptions o{image, numClasses, s.integers("hidden"), s.number("dropout")};
        return ClassificationModel::NetFactory([o] { return std::make_shared<Mlp>(o); });
      });

  const ConvNetOptions conv;
  ComponentType convnet = describe(
      "convnet", "Two convolution + max-pooling blocks and a fully connected layer",
      {key::integer("conv1_channels", conv.conv1Channels)
           .label("Conv 1 channels")
           .help("Channels of the first convolution")
           .atLeast(1),
       key::integer("conv2_channels", conv.conv2Channels)
           .label("Conv 2 channels")
           .help("Channels of the second convolution")
           .atLeast(1),
       key::integer("kernel_size", conv.kernelSize)
           .label("Kernel size")
           .help("Convolution kernel size, odd")
           .atLeast(1),
       key::integer("fc_width", conv.fcWidth)
           .label("FC width")
           .help("Width of the fully connected layer")
           .atLeast(1),
       key::boolean("batch_norm", conv.batchNorm)
           .label("Batch normalization")
           .help("BatchNorm after each convolution; its running statistics follow tower 0")});
  convnet.check = [](const Settings& s, CheckContext& context) {
    if (!context.invalid("kernel_size") && s.integer("kernel_size") % 2 == 0) {
      context.report("kernel_size", str("must be odd, got ", s.integer("kernel_size")));
    }
  };
  registerModel(registry, convnet, [](const Settings& s, ImageShape image, int64_t numClasses) {
    const ConvNetOptions o{image,
                           numClasses,
                           s.integer("conv1_channels"),
                           s.integer("conv2_channels"),
                           s.integer("kernel_size"),
                           s.integer("fc_width"),
                           s.number("dropout"),
                           s.boolean("batch_norm")};
    return ClassificationModel::NetFactory([o] { return std::make_shared<ConvNet>(o); });
  });
}

}  // namespace tbench
