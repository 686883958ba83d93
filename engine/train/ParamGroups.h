#pragma once
// ParamGroups: "optimizer.param_groups" (ParamGroupRules.h) applied to a replica and its
// optimizer (issue 37).
//
//  - freezeParameters: requires_grad off for the frozen parameters of a replica. Backward then
//    computes no gradient for them; every strategy already treats a parameter without a
//    gradient as unused (nothing to all-reduce, average or clip), and the optimizer never
//    holds them.
//  - frozenNormLayers: the BatchNorm layers (by module type name, so a TorchScript model's
//    scripted BatchNorm counts; engine/models/ScriptModel.cpp) whose parameters are all frozen.
//    TowerTrainer::enterTrainMode keeps them in eval mode, so their running statistics are
//    neither updated nor used in place of the batch's: a frozen backbone computes what it
//    computed when it was trained (PyTorch Lightning's BaseFinetuning.freeze(train_bn=False),
//    Detectron's FrozenBatchNorm2d). "optimizer.frozen_batchnorm_eval": false turns it off.
//  - regroupOptimizer: splits the one group an optimizer factory made into the layout's groups,
//    each with a copy of its options: the rate × the group's multiplier, its weight decay.
//    Returns the multipliers, in group order, which the "learning_rate" hyper-parameter keeps
//    (SingleCostTrainer.h: schedules, plateau rules and live edits set base × multiplier).
//    LibTorch's optimizer archive holds the groups and their options, so checkpoints carry them
//    and a resume into other groups is refused ("does not fit this optimizer").

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <memory>
#include <vector>

#include "engine/train/ParamGroupRules.h"

namespace tbench {

struct ParamGroupSettings {
  std::vector<ParamGroupRule> rules;
  bool frozenNormsEval = true;  ///< "optimizer.frozen_batchnorm_eval"
  bool active() const { return !rules.empty(); }
};

/// The layout of `module`'s parameters under `rules` (assignParamGroups on its names).
ParamGroupLayout layoutOf(torch::nn::Module& module, const std::vector<ParamGroupRule>& rules);

/// Turns requires_grad off for the parameters `layout` freezes.
void freezeParameters(torch::nn::Module& module, const ParamGroupLayout& layout);

/// The BatchNorm submodules of `module` that have parameters, all of them frozen.
std::vector<std::shared_ptr<torch::nn::Module>> frozenNormLayers(torch::nn::Module& module);

/// The trainable parameters of `module` under `layout`, in order.
std::vector<torch::Tensor> trainableParameters(torch::nn::Module& module,
                                               const ParamGroupLayout& layout);

/// Rebuilds `optimizer`'s groups (it holds trainableParameters(module, layout) in one group) as
/// the layout's; returns each group's multiplier. InputError when a group sets a weight decay
/// and the optimizer type has none.
std::vector<double> regroupOptimizer(torch::optim::Optimizer& optimizer, torch::nn::Module& module,
                                     const ParamGroupLayout& layout);

}  // namespace tbench
