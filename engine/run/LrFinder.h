#pragma once
// The learning-rate range test (issue 37): PyTorch Lightning's Tuner.lr_find and fastai's
// lr_find. The project's model and data train for `steps` steps (init's weights loaded, nothing
// written, no callbacks, no validation) while the learning rate grows exponentially from
// `start` to `end`: step i runs with start × (end / start)^(i / steps) (Lightning's
// _ExponentialLR). Each step's cost is smoothed as Lightning does (an exponential average with
// `smoothing` = 0.98, bias-corrected); the test stops early when the smoothed cost exceeds
// `divergeFactor` (4) × the best so far, or is not finite. Param groups keep their multipliers:
// the rate tested is the base rate (optimizer.learning_rate).
//
// The suggestion is Lightning's LRFinder.suggestion(skip_begin=10, skip_end=1): the rate at the
// steepest descent of the smoothed cost (argmin of its torch.gradient, over the finite values
// after the first 10 and before the last).
//
// Used by `towerbench-cli find-lr` (which writes the result as JSON) and, through it, the
// window's Run ▸ Find Learning Rate…. Torch-free header.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tbench {

struct Project;

struct LrFinderOptions {
  double start = 1e-7;
  double end = 10;
  int64_t steps = 100;
  double divergeFactor = 4;
  double smoothing = 0.98;
};

struct LrFinderResult {
  std::vector<double> rates;     ///< the rate each step ran with
  std::vector<double> losses;    ///< its cost
  std::vector<double> smoothed;  ///< the smoothed cost (what is plotted and judged)
  int64_t suggestion = -1;       ///< index into rates; -1 when there is none
  double suggestedRate = 0;      ///< rates[suggestion]
  std::string stopped;           ///< why it ended before `steps` (empty: it ran them all)
};

/// Lightning's suggestion over `smoothed` (index into `rates`, -1 when fewer than 2 finite values
/// remain after skipping).
int64_t suggestLearningRate(const std::vector<double>& smoothed, int64_t skipBegin = 10,
                            int64_t skipEnd = 1);

/// Runs the range test on `project` (validated). `progress`, when given, is called after every
/// step with the result so far. InputError for bad options or a project that cannot train.
LrFinderResult findLearningRate(const Project& project, const LrFinderOptions& options,
                                const std::function<void(const LrFinderResult&)>& progress = {});

/// {"rates": [...], "losses": [...], "smoothed": [...], "suggestion": i or null,
///  "suggested_rate": r or null, "stopped": "..."}
nlohmann::json lrFinderJson(const LrFinderResult& result);

}  // namespace tbench
