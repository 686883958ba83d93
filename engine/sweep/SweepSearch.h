#pragma once
// Search smarter than random: the next trial of a bayes or tpe sweep from the results so far,
// and what a sweep taught (parameter importance and correlation), over SearchModels.h's models.
//
// Note [Sweep search]
// - Every parameter is a coordinate in [0, 1], its quantile under the sweep's distribution
//   (SweepParameter::coordinateOf, W&B's cdf): a log-uniform's is uniform in the logarithm, an
//   integer sits at its cell's centre, and category k of n at (k + 0.5) / n whatever its
//   probability (the models treat categories as unordered). A proposal's coordinate goes back
//   through the same quantile function as random search (valueAt), so a proposal is always a
//   value the distribution can give (quantized, inside the bounds). Constants are not modelled.
// - A trial's result is the last finite value of its metric (W&B's summary: a pruned trial's is
//   its value where it was stopped); smaller is better (a maximized metric is negated). A failed
//   trial, or one that logged no finite value, gets metric.impute: the worst result so far
//   (default), the best, or its own latest. Running trials are passed to the models as running
//   (bayes imputes them from its model, tpe counts them as it says), so trials proposed while
//   others run differ.
// - Trial k's first trials are random search's trial k (randomTrialValues) until the method has
//   enough results (search::randomStartupTrials): a bayes or tpe sweep starts as random does.
//   Each proposal is reproducible: its random numbers come from the sweep's seed and the trial's
//   index, and it depends only on the results present when it was made.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/sweep/Sweep.h"

namespace tbench {

/// A trial as the search sees it.
struct TrialOutcome {
  enum class Kind { Running, Done, Failed };
  nlohmann::json values;
  std::vector<double> metric;  ///< the metric as logged
  Kind kind = Kind::Done;
};

/// The values of trial `index` of a sequential sweep (random without run_cap, bayes, tpe),
/// given the sweep's other trials.
nlohmann::json proposeTrialValues(const SweepSpec& sweep, int64_t index,
                                  const std::vector<TrialOutcome>& trials);

/// W&B's parameter importance panel for one parameter.
struct ParameterImportance {
  std::string path;
  double importance = 0;   ///< share of a random forest's variance reduction, sums to 1
  double correlation = 0;  ///< signed, with the metric itself (not its "smaller is better" form)
};
/// Importance and correlation of each non-constant parameter with the metric over the trials
/// that have a result (failed ones left out), most important first. Empty with fewer than 3.
std::vector<ParameterImportance> sweepImportance(const SweepSpec& sweep,
                                                 const std::vector<TrialOutcome>& trials);

}  // namespace tbench
