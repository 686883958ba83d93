// The built-in models: description and factory of each (Note [One description per component]).

#include "engine/models/ConvNet.h"
#include "engine/models/Dcgan.h"
#include "engine/models/Mlp.h"
#include "engine/models/ScriptModel.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/project/builtin/Builtin.h"

namespace tbench {

namespace {

KeyDescription dropoutKey() {
  return key::number("dropout", 0.0)
      .label("Dropout")
      .help("Dropout before the last layer")
      .atLeast(0)
      .below(1);
}

/// A built-in network's model: cross-entropy on classes, mean squared error on targets.
ModelDescPtr supervised(const ModelContext& c, SupervisedModel::NetFactory net) {
  const bool classes = c.numClasses > 0;
  return std::make_shared<SupervisedModel>(c.input, std::move(net), c.optimizer,
                                           classes ? Loss::CrossEntropy : Loss::MeanSquaredError,
                                           classes ? 1 : c.numTargets);
}

}  // namespace

void registerBuiltinModels(ComponentRegistry& registry) {
  const MlpOptions mlp;
  registerModel(
      registry,
      describe("mlp", "Multi-layer perceptron: hidden Linear+ReLU layers, then a linear classifier",
               {key::integers("hidden", mlp.hidden)
                    .label("Hidden layers")
                    .help("Widths of the hidden layers, e.g. \"256, 128\"; [] for none")
                    .atLeast(1),
                dropoutKey()}),
      [](const Settings& s, const ModelContext& c) {
        const MlpOptions o{c.input, c.outputs(), s.integers("hidden"), s.number("dropout")};
        return supervised(c, [o] { return std::make_shared<Mlp>(o); });
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
           .help("BatchNorm after each convolution; its running statistics follow tower 0"),
       dropoutKey()});
  convnet.check = [](const Settings& s, CheckContext& context) {
    if (!context.invalid("kernel_size") && s.integer("kernel_size") % 2 == 0) {
      context.report("kernel_size", str("must be odd, got ", s.integer("kernel_size")));
    }
  };
  registerModel(registry, convnet, [](const Settings& s, const ModelContext& c) {
    const ConvNetOptions o{c.input,
                           c.outputs(),
                           s.integer("conv1_channels"),
                           s.integer("conv2_channels"),
                           s.integer("kernel_size"),
                           s.integer("fc_width"),
                           s.number("dropout"),
                           s.boolean("batch_norm")};
    return supervised(c, [o] { return std::make_shared<ConvNet>(o); });
  });

  ComponentType script = describe(
      "torchscript",
      "Your own network: a TorchScript file (torch.jit.script(model).save(path) in Python)",
      {key::file("path")
           .label("File")
           .help("The TorchScript file; each tower trains a deep copy. Traced modules "
                 "(torch.jit.trace) with BatchNorm or Dropout are refused")
           .required()
           .notEmpty()
           .filter("TorchScript (*.pt *.pth *.ts *.torchscript);;All files (*)"),
       key::choice("cost", "cross_entropy", {"cross_entropy", "mse", "scalar"})
           .label("Cost")
           .help("cross_entropy: forward(x) returns class logits [N, K]; mse: forward(x) "
                 "returns predictions [N, T] for float targets; scalar: forward(x, label) "
                 "returns the cost itself")});
  registerModel(registry, script, [](const Settings& s, const ModelContext& c) -> ModelDescPtr {
    ScriptModel::Options o;
    o.path = s.string("path");
    o.loss = parseLoss(s.string("cost"));
    o.input = c.input;
    o.numClasses = c.numClasses;
    o.numTargets = c.numTargets;
    o.optimizer = c.optimizer;
    o.dataName = c.dataName;
    if (o.loss == Loss::CrossEntropy && c.numClasses == 0) {
      throw InputError(str("$.model.cost: \"cross_entropy\" needs class labels, but ", c.dataName,
                           " has regression targets; use \"mse\""));
    }
    if (o.loss == Loss::MeanSquaredError && c.numTargets == 0) {
      throw InputError(str("$.model.cost: \"mse\" needs float targets, but ", c.dataName,
                           " has class labels; use \"cross_entropy\""));
    }
    return std::make_shared<ScriptModel>(o);
  });

  const DcganOptions gan;
  ComponentType dcgan = describe(
      "dcgan",
      "A DCGAN: a generator and a discriminator trained against each other (GanTrainer); the "
      "data's labels are ignored. Image height and width must be multiples of 4",
      {key::integer("noise_dim", gan.noiseDim)
           .label("Noise size")
           .help("Length of the generator's uniform noise vector")
           .atLeast(1),
       key::integer("generator_channels", gan.generatorChannels)
           .label("Generator channels")
           .help("Channels of the generator's last hidden layer (the one before has twice)")
           .atLeast(1),
       key::integer("discriminator_channels", gan.discriminatorChannels)
           .label("Discriminator channels")
           .help("Channels of the discriminator's first convolution (the second has twice)")
           .atLeast(1),
       key::integer("d_steps", gan.schedule.discriminatorSteps)
           .label("Discriminator updates per step")
           .help("Discriminator updates per training step, each on its own batch")
           .atLeast(1),
       key::integer("g_steps", gan.schedule.generatorSteps)
           .label("Generator updates per step")
           .help("Generator updates per training step, after the discriminator's")
           .atLeast(1)});
  dcgan.traits = {{"trainer", "gan"}};
  registerModel(registry, dcgan, [](const Settings& s, const ModelContext& c) -> ModelDescBasePtr {
    DcganOptions o;
    o.image = c.input;
    o.numTargets = c.numTargets;
    o.noiseDim = s.integer("noise_dim");
    o.generatorChannels = s.integer("generator_channels");
    o.discriminatorChannels = s.integer("discriminator_channels");
    o.schedule = {s.integer("d_steps"), s.integer("g_steps")};
    return std::make_shared<DcganModel>(o, c.optimizer);
  });
}

}  // namespace tbench
