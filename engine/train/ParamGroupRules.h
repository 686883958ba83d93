#pragma once
// ParamGroupRules: the project's "optimizer.param_groups", which parameters train and how
// (docs/PROJECT-FORMAT.md, issue 37). Torch-free: the project layer, the CLI's summary and the
// window's Model panel use it on parameter names alone; ParamGroups.h applies it to a module and
// an optimizer.
//
// Every rule whose regular expression is found in a parameter's name (std::regex_search, as
// Python's re.search: anchor with ^ and $) applies, in the order written; a later rule overrides
// the fields an earlier one set and leaves the others. So
//   [{"match": ".", "lr_multiplier": 0.1}, {"match": "^fc\\.", "lr_multiplier": 1}]
// gives the backbone a tenth of the rate and the head the full rate. A parameter no rule sets:
// trainable, multiplier 1, the optimizer's own weight_decay.
//
// Groups: the trainable parameters with the same (multiplier, weight decay) form one optimizer
// parameter group, in the order of their first parameter (PyTorch's param_groups). A frozen
// parameter is in none: the optimizer never sees it, so weight decay does not touch it either.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tbench {

struct ParamGroupRule {
  std::string match;                   ///< a regular expression (ECMAScript)
  std::optional<bool> freeze;          ///< true: not trained
  std::optional<double> lrMultiplier;  ///< the group's rate = learning_rate × this (>= 0)
  std::optional<double> weightDecay;   ///< overrides optimizer.weight_decay (>= 0)

  bool operator==(const ParamGroupRule& other) const {
    return match == other.match && freeze == other.freeze && lrMultiplier == other.lrMultiplier &&
           weightDecay == other.weightDecay;
  }
};

/// What the rules decide for one parameter.
struct ParamAssignment {
  std::string name;
  bool frozen = false;
  double lrMultiplier = 1.0;
  std::optional<double> weightDecay;  ///< unset: the optimizer's own
  int group = -1;                     ///< optimizer parameter group; -1 when frozen
  std::vector<int> rules;             ///< the indices of the rules that matched
};

/// The optimizer parameter groups the rules make, in order.
struct ParamGroupLayout {
  std::vector<ParamAssignment> params;  ///< in the order of `names`
  struct Group {
    double lrMultiplier = 1.0;
    std::optional<double> weightDecay;
    int64_t count = 0;  ///< parameters (tensors) in the group
  };
  std::vector<Group> groups;
  int64_t frozen = 0;
};

/// A rule's expression that std::regex cannot compile, as "why" (empty when it compiles).
std::string regexProblem(const std::string& expression);

/// Applies `rules` to `names` (a model's parameter names, in its order). InputError naming
/// "optimizer.param_groups[i].match" when an expression does not compile or matches no name
/// (a typo would otherwise freeze nothing, silently); or when every parameter is frozen.
ParamGroupLayout assignParamGroups(const std::vector<std::string>& names,
                                   const std::vector<ParamGroupRule>& rules);

}  // namespace tbench
