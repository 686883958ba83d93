#pragma once
// TorchScript models: a module scripted in Python (torch.jit.script(m).save(path)) trained as a
// tower replica (Note [TorchScript replicas], ScriptModel.cpp).
//
//  - ScriptNet: a torch::nn::Module whose parameters and buffers ARE the TorchScript module's
//    tensors, under the same dotted names, so the trainers, checkpoints, `init`, eval and
//    export treat it as any built-in network.
//  - ScriptModel: the ModelDesc. Every replica is a deep copy of the loaded module. The cost is
//    cross-entropy on class labels, mean squared error on targets, or the scalar that
//    forward(input, label) returns itself (Loss.h).
// The module is checked when the model is built, against the data it will see: a traced
// module with train/eval-dependent layers, a forward taking the wrong number or kind of
// arguments, or one that fails or returns the wrong shape on a batch of the data's shape is
// refused with an InputError naming the file and both sides.

#include <torch/csrc/jit/api/module.h>

#include <string>

#include "engine/models/SupervisedModel.h"

namespace tbench {

class ScriptNet : public ClassifierNet {
 public:
  /// Takes `module` as it is (callers pass a deep copy).
  explicit ScriptNet(torch::jit::Module module);
  /// forward(input) of the module, which must return a tensor.
  torch::Tensor forward(torch::Tensor input) override;
  /// forward(inputs...) of the module.
  torch::IValue call(std::vector<torch::IValue> inputs);
  /// Sets train/eval mode on the module too (dropout, BatchNorm).
  void train(bool on = true) override;
  const torch::jit::Module& script() const { return module_; }

 private:
  torch::jit::Module module_;
};

/// Loads the TorchScript file at `path`. InputError naming the file when it is missing, not
/// TorchScript, or traced (torch.jit.trace) with layers whose behaviour depends on train/eval
/// mode (BatchNorm, Dropout, InstanceNorm), which a trace freezes.
torch::jit::Module loadScriptModule(const std::string& path);

class ScriptModel : public LossModel {
 public:
  struct Options {
    std::string path;
    Loss loss = Loss::CrossEntropy;
    /// The shape of one input sample; a [1, 1, D] sample (a table row) is given to the module
    /// as a vector [D], so a batch is [N, D].
    ImageShape input;
    int64_t numClasses = 0;  ///< CrossEntropy: the data's classes
    int64_t numTargets = 0;  ///< MeanSquaredError: the data's targets
    OptimizerFactory optimizer;
    /// Where the data comes from, for messages ("data.train (csv)").
    std::string dataName = "the data";
  };

  /// Loads and checks the module (see the file comment); throws InputError.
  explicit ScriptModel(Options options);

  std::vector<InputSpec> inputs() const override;
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext& tower) override;

  /// The module as loaded (untrained weights).
  const torch::jit::Module& prototype() const { return prototype_; }
  /// The input of the module for a batch of samples [N, C, H, W]: [N, D] for table rows.
  torch::Tensor moduleInput(const torch::Tensor& samples) const;

 private:
  torch::Tensor predict(torch::nn::Module& net, const Batch& batch) override;
  /// forward(input, label) of the module: Loss::Scalar's cost.
  torch::Tensor scalarCost(torch::nn::Module& net, const Batch& batch) override;
  void checkAgainstData() const;

  Options options_;
  torch::jit::Module prototype_;
  bool vectors_ = false;
};

}  // namespace tbench
