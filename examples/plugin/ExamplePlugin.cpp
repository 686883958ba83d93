// An example Towerbench plugin (docs/ARCHITECTURE.md §6d): a model type, "linear", and a
// callback type, "weight_norm". Built with towerbench_add_plugin (CMakeLists.txt beside it);
// load it with `towerbench-cli --plugin libexample_plugin.so ...`, from a plugin folder, or from
// the window's Tools ▸ Plugins. Its types then validate, build, appear in the form and in
// `towerbench-cli types` like the built-in ones (synthetic-linear.json uses both).

#include <torch/nn/modules/linear.h>
#include <torch/utils.h>

#include <cmath>

#include "engine/callbacks/Callback.h"
#include "engine/models/ClassifierNet.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/project/Plugin.h"

namespace example {

using namespace tbench;

/// Softmax regression: one Linear layer from the flattened input to the classes (or targets).
class LinearNet : public ClassifierNet {
 public:
  LinearNet(const ImageShape& input, int64_t outputs, bool bias)
      : fc_(register_module(
            "fc", torch::nn::Linear(torch::nn::LinearOptions(input.numel(), outputs).bias(bias)))),
        bias_(bias) {}

  torch::Tensor forward(torch::Tensor images) override { return fc_(images.flatten(1)); }

  // The same forward in TorchScript: `towerbench-cli export --format torchscript` compiles it.
  std::string scriptForward() const override {
    return std::string("def forward(self, x: Tensor) -> Tensor:\n") +
           (bias_ ? "    return torch.linear(x.flatten(1), self.fc.weight, self.fc.bias)\n"
                  : "    return torch.linear(x.flatten(1), self.fc.weight)\n");
  }

 private:
  torch::nn::Linear fc_;
  bool bias_;
};

/// Puts the L2 norm of the model's parameters as a scalar after every epoch (a plain Callback:
/// the whole callback API is open to plugins).
class WeightNorm : public Callback {
 public:
  explicit WeightNorm(std::string scalar) : scalar_(std::move(scalar)) {}

 private:
  void onTriggerEpoch() override {
    torch::NoGradGuard noGrad;
    double squares = 0;
    for (const auto& named : context().parameters()) {
      squares += named.second.to(torch::kDouble).pow(2).sum().item<double>();
    }
    context().monitors().putScalar(scalar_, std::sqrt(squares));
  }

  std::string scalar_;
};

ComponentType linearType() {
  ComponentType type;
  type.name = "linear";
  type.summary = "A linear classifier (softmax regression), from the example plugin";
  type.keys = {key::boolean("bias", true).label("Bias").help("Learn a bias per output")};
  return type;
}

ComponentType weightNormType() {
  ComponentType type;
  type.name = "weight_norm";
  type.summary = "Puts the L2 norm of all weights after every epoch, from the example plugin";
  type.keys = {key::string("scalar", "weight_norm")
                   .label("Scalar")
                   .help("The name the norm is put under")
                   .notEmpty()};
  return type;
}

}  // namespace example

TOWERBENCH_PLUGIN(context) {
  using namespace tbench;
  registerModel(context.registry, example::linearType(),
                [](const Settings& s, const ModelContext& c) -> ModelDescPtr {
                  const ImageShape input = c.input;
                  const int64_t outputs = c.outputs();
                  const bool bias = s.boolean("bias");
                  const bool classes = c.numClasses > 0;
                  return std::make_shared<SupervisedModel>(
                      input,
                      [=] { return std::make_shared<example::LinearNet>(input, outputs, bias); },
                      c.optimizer, classes ? Loss::CrossEntropy : Loss::MeanSquaredError,
                      classes ? 1 : c.numTargets);
                });
  registerCallback(context.registry, example::weightNormType(),
                   [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
                     return std::make_shared<example::WeightNorm>(s.string("scalar"));
                   });
}
