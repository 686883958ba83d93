#include "engine/checkpoint/SessionInit.h"

#include <torch/torch.h>

#include <map>
#include <regex>
#include <set>

#include "engine/checkpoint/CheckpointDetail.h"
#include "engine/checkpoint/WeightsFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

using checkpoint_detail::shapeString;

NameMatch matchWeightNames(const std::vector<std::string>& modelNames,
                           const std::vector<std::string>& fileNames,
                           const std::vector<std::string>& rename) {
  // The rules.
  std::vector<std::pair<std::regex, std::string>> rules;
  for (const std::string& rule : rename) {
    const size_t arrow = rule.find("=>");
    if (arrow == std::string::npos) {
      throw InputError(str("init.rename: \"", rule, "\" is not REGEX=>REPLACEMENT"));
    }
    try {
      rules.emplace_back(std::regex(rule.substr(0, arrow)), rule.substr(arrow + 2));
    } catch (const std::regex_error& e) {
      throw InputError(str("init.rename: \"", rule.substr(0, arrow),
                           "\" is not a regular expression (", e.what(), ")"));
    }
  }
  // The file's names after the rules -> their own names.
  std::map<std::string, std::string> renamed;
  int changed = 0;
  for (const std::string& name : fileNames) {
    std::string to = name;
    for (const auto& [pattern, replacement] : rules)
      to = std::regex_replace(to, pattern, replacement);
    changed += to != name ? 1 : 0;
    if (!renamed.emplace(to, name).second) {
      throw InputError(
          str("init.rename gives \"", renamed[to], "\" and \"", name, "\" one name, \"", to, "\""));
    }
  }
  NameMatch match;
  if (changed > 0) match.notes.push_back(str(changed, " renamed by init.rename"));
  std::set<std::string> wanted(modelNames.begin(), modelNames.end());
  const auto take = [&](const std::string& model, const std::string& fileName) {
    match.pairs.emplace_back(model, renamed.at(fileName));
    wanted.erase(model);
    renamed.erase(fileName);
  };
  // 1. Exactly.
  for (const std::string& m : modelNames) {
    if (renamed.count(m)) take(m, m);
  }
  // 2. Without wrappers' prefixes, in any order ("module._orig_mod." of DDP over torch.compile).
  std::map<std::string, int> removed;  // the prefixes removed -> how many
  for (auto it = renamed.begin(); it != renamed.end();) {
    const std::string name = (it++)->first;  // take() erases it
    std::string stripped = name;
    for (bool more = true; more && !wanted.count(stripped);) {
      more = false;
      for (const char* wrapper : {"module.", "_orig_mod.", "model."}) {
        const std::string p = wrapper;
        if (stripped.compare(0, p.size(), p) == 0) {
          stripped.erase(0, p.size());
          more = true;
          break;
        }
      }
    }
    if (stripped != name && wanted.count(stripped)) {
      ++removed[name.substr(0, name.size() - stripped.size())];
      take(stripped, name);
    }
  }
  for (const auto& [prefix, n] : removed) {
    match.notes.push_back(str(n, " after removing \"", prefix, "\""));
  }
  // 3. The model's name without its leading components, when one file name and one model
  // name meet that way.
  std::map<std::string, std::vector<std::string>> bySuffix;  // file name -> model names
  for (const std::string& m : wanted) {
    for (size_t dot = m.find('.'); dot != std::string::npos; dot = m.find('.', dot + 1)) {
      const std::string rest = m.substr(dot + 1);
      if (renamed.count(rest)) bySuffix[rest].push_back(m);
    }
  }
  std::map<std::string, int> added;  // the prefix added -> how many
  std::map<std::string, int> claims;
  for (const auto& [file, models] : bySuffix) {
    for (const std::string& m : models) ++claims[m];
  }
  for (const auto& [file, models] : bySuffix) {
    if (models.size() != 1 || claims[models.front()] != 1) continue;
    const std::string& m = models.front();
    ++added[m.substr(0, m.size() - file.size())];
    take(m, file);
  }
  for (const auto& [prefix, n] : added) {
    match.notes.push_back(str(n, " after adding \"", prefix, "\""));
  }
  return match;
}

RestoreReport initFromWeights(torch::nn::Module& module, const InitOptions& options) {
  const NamedWeights weights = readWeightsFile(options.path);
  torch::NoGradGuard noGrad;
  std::vector<std::pair<std::string, torch::Tensor>> targets;
  for (const auto& item : module.named_parameters()) targets.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) {
    if (item.value().defined()) targets.emplace_back(item.key(), item.value());
  }
  RestoreReport report;
  std::vector<std::string> modelNames, fileNames;
  for (const auto& [name, t] : targets) {
    if (matchesIgnoreList(name, options.ignore)) {
      report.ignored.push_back(name);
    } else {
      modelNames.push_back(name);
    }
  }
  std::map<std::string, torch::Tensor> saved;
  const std::set<std::string> ignoredInModel(report.ignored.begin(), report.ignored.end());
  for (const auto& [name, t] : weights.tensors) {
    if (matchesIgnoreList(name, options.ignore)) {
      if (!ignoredInModel.count(name)) report.ignored.push_back(name);
    } else if (saved.emplace(name, t).second) {
      fileNames.push_back(name);
    }
  }
  const NameMatch match = matchWeightNames(modelNames, fileNames, options.rename);
  std::map<std::string, std::string> fileOf(match.pairs.begin(), match.pairs.end());
  std::set<std::string> used;
  for (auto& [name, target] : targets) {
    if (matchesIgnoreList(name, options.ignore)) continue;
    const auto found = fileOf.find(name);
    if (found == fileOf.end()) {
      report.missing.push_back(name);
      continue;
    }
    used.insert(found->second);
    const torch::Tensor& source = saved.at(found->second);
    const std::string shown = found->second == name ? name : found->second + " -> " + name;
    if (source.sizes() != target.sizes()) {
      report.shapeMismatch.push_back(
          str(shown, ": file ", shapeString(source), " vs model ", shapeString(target)));
    } else {
      target.copy_(source);
      report.loaded.push_back(name);
    }
  }
  for (const std::string& name : fileNames) {
    if (!used.count(name)) report.unexpected.push_back(name);
  }
  std::string how = weights.source;
  for (const std::string& note : match.notes) how += "; " + note;
  const std::string where = str(weights.path, " (", how, ")");
  // A file that shares no tensor with the model is almost surely the wrong file; going on would
  // silently train from scratch.
  if (report.loaded.empty() && !(report.missing.empty() && report.shapeMismatch.empty())) {
    throw InputError(str(where, ": no tensor of the file fits the model\n", report.toString()));
  }
  const bool clean =
      report.missing.empty() && report.unexpected.empty() && report.shapeMismatch.empty();
  if (options.strict && !clean) {
    throw InputError(str(where, ": init.strict and not every tensor matched: ", report.toString()));
  }
  if (clean) {
    TB_LOG(Info) << "initialised from " << where << ": " << report.toString();
  } else {
    TB_LOG(Warning) << "initialised from " << where << ": " << report.toString()
                    << (report.shapeMismatch.empty()
                            ? ""
                            : " (tensors of another shape keep their initial values)");
  }
  return report;
}

RestoreReport initFromCheckpoint(torch::nn::Module& module, const std::string& path,
                                 const std::vector<std::string>& ignore) {
  return initFromWeights(module, InitOptions{path, ignore, {}, false});
}

}  // namespace tbench
