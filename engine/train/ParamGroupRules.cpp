#include "engine/train/ParamGroupRules.h"

#include <regex>

#include "engine/core/Check.h"

namespace tbench {

std::string regexProblem(const std::string& expression) {
  try {
    std::regex compiled(expression);
  } catch (const std::regex_error& e) {
    return e.what();
  }
  return {};
}

ParamGroupLayout assignParamGroups(const std::vector<std::string>& names,
                                   const std::vector<ParamGroupRule>& rules) {
  std::vector<std::regex> compiled;
  for (size_t i = 0; i < rules.size(); ++i) {
    const std::string problem = regexProblem(rules[i].match);
    if (!problem.empty()) {
      throw InputError(str("optimizer.param_groups[", i, "].match: \"", rules[i].match,
                           "\" is not a regular expression (", problem, ")"));
    }
    compiled.emplace_back(rules[i].match);
  }
  ParamGroupLayout layout;
  std::vector<bool> used(rules.size(), false);
  for (const std::string& name : names) {
    ParamAssignment a;
    a.name = name;
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!std::regex_search(name, compiled[i])) continue;
      used[i] = true;
      a.rules.push_back(static_cast<int>(i));
      if (rules[i].freeze) a.frozen = *rules[i].freeze;
      if (rules[i].lrMultiplier) a.lrMultiplier = *rules[i].lrMultiplier;
      if (rules[i].weightDecay) a.weightDecay = rules[i].weightDecay;
    }
    if (a.frozen) {
      ++layout.frozen;
    } else {
      size_t g = 0;
      while (g < layout.groups.size() && !(layout.groups[g].lrMultiplier == a.lrMultiplier &&
                                           layout.groups[g].weightDecay == a.weightDecay)) {
        ++g;
      }
      if (g == layout.groups.size()) layout.groups.push_back({a.lrMultiplier, a.weightDecay, 0});
      ++layout.groups[g].count;
      a.group = static_cast<int>(g);
    }
    layout.params.push_back(std::move(a));
  }
  for (size_t i = 0; i < rules.size(); ++i) {
    if (used[i]) continue;
    std::string some;
    for (size_t n = 0; n < names.size() && n < 4; ++n) some += (n ? ", " : "") + names[n];
    if (names.size() > 4) some += ", ...";
    throw InputError(str("optimizer.param_groups[", i, "].match: \"", rules[i].match,
                         "\" matches none of the model's ", names.size(), " parameter names (",
                         some, "; `towerbench-cli summary` lists them all)"));
  }
  if (!names.empty() && layout.groups.empty()) {
    throw InputError(str("optimizer.param_groups freezes all ", names.size(),
                         " parameters of the model: nothing would train"));
  }
  return layout;
}

}  // namespace tbench
