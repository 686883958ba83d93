#include "engine/train/ParamGroups.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

ParamGroupLayout layoutOf(torch::nn::Module& module, const std::vector<ParamGroupRule>& rules) {
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters()) names.push_back(item.key());
  return assignParamGroups(names, rules);
}

void freezeParameters(torch::nn::Module& module, const ParamGroupLayout& layout) {
  size_t i = 0;
  for (auto& item : module.named_parameters()) {
    TB_CHECK(i < layout.params.size() && layout.params[i].name == item.key(),
             "the parameter layout is not of this module (", item.key(), ")");
    if (layout.params[i].frozen) item.value().set_requires_grad(false);
    ++i;
  }
}

std::vector<std::shared_ptr<torch::nn::Module>> frozenNormLayers(torch::nn::Module& module) {
  std::vector<std::shared_ptr<torch::nn::Module>> norms;
  for (const auto& item : module.named_modules("", /*include_self=*/false)) {
    const std::shared_ptr<torch::nn::Module>& m = item.value();
    if (m->name().find("BatchNorm") == std::string::npos) continue;
    const auto params = m->parameters(/*recurse=*/false);
    bool allFrozen = !params.empty();
    for (const auto& p : params) allFrozen = allFrozen && !p.requires_grad();
    if (allFrozen) norms.push_back(m);
  }
  return norms;
}

std::vector<torch::Tensor> trainableParameters(torch::nn::Module& module,
                                               const ParamGroupLayout& layout) {
  std::vector<torch::Tensor> trainable;
  size_t i = 0;
  for (auto& item : module.named_parameters()) {
    if (i < layout.params.size() && !layout.params[i].frozen) trainable.push_back(item.value());
    ++i;
  }
  return trainable;
}

namespace {

/// Sets `decay` on options of a known type; false when the type has no weight decay.
bool setWeightDecay(torch::optim::OptimizerOptions& options, double decay) {
  using namespace torch::optim;
  if (auto* o = dynamic_cast<SGDOptions*>(&options)) {
    o->weight_decay(decay);
  } else if (auto* o = dynamic_cast<AdamOptions*>(&options)) {
    o->weight_decay(decay);
  } else if (auto* o = dynamic_cast<AdamWOptions*>(&options)) {
    o->weight_decay(decay);
  } else if (auto* o = dynamic_cast<RMSpropOptions*>(&options)) {
    o->weight_decay(decay);
  } else if (auto* o = dynamic_cast<AdagradOptions*>(&options)) {
    o->weight_decay(decay);
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::vector<double> regroupOptimizer(torch::optim::Optimizer& optimizer, torch::nn::Module& module,
                                     const ParamGroupLayout& layout) {
  auto& groups = optimizer.param_groups();
  TB_CHECK(groups.size() == 1, "an optimizer factory made ", groups.size(),
           " parameter groups; param_groups splits one");
  const torch::optim::OptimizerOptions& base = groups.front().options();
  const double baseLr = base.get_lr();
  std::vector<std::vector<torch::Tensor>> members(layout.groups.size());
  size_t i = 0;
  for (auto& item : module.named_parameters()) {
    const ParamAssignment& a = layout.params.at(i++);
    if (!a.frozen) members.at(static_cast<size_t>(a.group)).push_back(item.value());
  }
  std::vector<torch::optim::OptimizerParamGroup> rebuilt;
  std::vector<double> multipliers;
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    std::unique_ptr<torch::optim::OptimizerOptions> options = base.clone();
    options->set_lr(baseLr * layout.groups[g].lrMultiplier);
    if (layout.groups[g].weightDecay && !setWeightDecay(*options, *layout.groups[g].weightDecay)) {
      throw InputError(
          "optimizer.param_groups: weight_decay is set, but this optimizer type "
          "has no weight decay");
    }
    rebuilt.emplace_back(std::move(members[g]), std::move(options));
    multipliers.push_back(layout.groups[g].lrMultiplier);
  }
  groups = std::move(rebuilt);
  return multipliers;
}

}  // namespace tbench
