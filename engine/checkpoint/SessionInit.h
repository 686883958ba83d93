#pragma once
// Session initialisation: start training from weights users have (tensorpack's SessionInit /
// SmartInit, PyTorch Lightning's load_from_checkpoint(strict=False), DIGITS' "pretrained
// model"), for example to fine-tune. Only the model's tensors are taken; the optimizer,
// counters and random state start afresh. The file is any kind readWeightsFile reads.
//
// Names: the file's names are first rewritten by init.rename's rules, in order
// ("REGEX=>REPLACEMENT", std::regex ECMAScript, as re.sub); then matched to the model's
// exactly; the rest with the wrappers' prefixes removed ("module." of DataParallel/DDP,
// "_orig_mod." of torch.compile, "model." of a Lightning module); the rest with leading
// components of the model's name dropped ("backbone.conv1.weight" takes a file's
// "conv1.weight") when that names one tensor only. The report says how many matched each way.
//
// A tensor of another shape (a new head for a different number of classes) keeps its initial
// value unless `strict`, which refuses any missing, unexpected or mismatched tensor, as
// load_state_dict(strict=True).

#include <string>
#include <vector>

#include "engine/checkpoint/Checkpoint.h"

namespace tbench {

struct InitOptions {
  std::string path;                 ///< a file or run directory (readWeightsFile)
  std::vector<std::string> ignore;  ///< model or file names (or "prefix.") not restored
  std::vector<std::string> rename;  ///< "REGEX=>REPLACEMENT" rules for the file's names
  bool strict = false;
};

/// How the file's names were matched to the model's (matchWeightNames).
struct NameMatch {
  /// Model name -> file name (the file's own, before renaming), for every match.
  std::vector<std::pair<std::string, std::string>> pairs;
  /// "12 after removing \"module.\"", "3 renamed by init.rename"...
  std::vector<std::string> notes;
};

/// Matches `fileNames` to `modelNames` as the header says. InputError for a rule that is not
/// "REGEX=>REPLACEMENT" or not a regular expression, or that gives two file names one name.
NameMatch matchWeightNames(const std::vector<std::string>& modelNames,
                           const std::vector<std::string>& fileNames,
                           const std::vector<std::string>& rename);

/// Reads `options.path` and copies its tensors into `module` (no gradient, onto each tensor's
/// device and dtype). Logs the report: Info when everything matched, Warning otherwise.
/// InputError naming the file when it cannot be read, when not a single tensor could be
/// restored from it, or (strict) when anything did not match.
RestoreReport initFromWeights(torch::nn::Module& module, const InitOptions& options);

/// initFromWeights with `ignore` only.
RestoreReport initFromCheckpoint(torch::nn::Module& module, const std::string& path,
                                 const std::vector<std::string>& ignore = {});

}  // namespace tbench
