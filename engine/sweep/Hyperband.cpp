#include "engine/sweep/Hyperband.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tbench {

std::vector<int64_t> hyperbandBands(const HyperbandSpec& spec, int64_t maxEpoch) {
  std::vector<int64_t> bands;
  if (spec.maxIter > 0) {
    // W&B's max_iter form: band = max_iter, s times band /= eta, each int(band) kept while
    // band >= 1; sorted. Duplicates (int() of close bands) judge nothing twice: kept once.
    double band = static_cast<double>(spec.maxIter);
    for (int64_t i = 0; i < spec.s; ++i) {
      band /= spec.eta;
      if (band < 1) break;
      const auto b = static_cast<int64_t>(band);
      if (b <= maxEpoch) bands.push_back(b);
    }
    std::sort(bands.begin(), bands.end());
    bands.erase(std::unique(bands.begin(), bands.end()), bands.end());
    return bands;
  }
  double band = static_cast<double>(spec.minIter);
  // W&B's bands are int(min_iter · eta^k): cut on the integer, so that with a non-integer eta a
  // band that truncates to the longest history (eta 2.5: int(6.25) = 6) is kept.
  while (static_cast<int64_t>(band) <= maxEpoch) {
    const auto b = static_cast<int64_t>(band);
    if (bands.empty() || b > bands.back()) bands.push_back(b);
    band *= spec.eta;
  }
  return bands;
}

HyperbandDecision hyperbandStops(const std::vector<TrialMetrics>& trials, const HyperbandSpec& spec,
                                 bool maximize) {
  // In "smaller is better" terms; a non-finite value is the worst there is.
  const auto score = [&](double v) {
    if (!std::isfinite(v)) return std::numeric_limits<double>::infinity();
    return maximize ? -v : v;
  };
  int64_t longest = 0;
  for (const auto& t : trials) longest = std::max<int64_t>(longest, t.values.size());
  HyperbandDecision d;
  d.bands = hyperbandBands(spec, longest);
  for (int64_t band : d.bands) {
    std::vector<double> reached;
    for (const auto& t : trials) {
      if (static_cast<int64_t>(t.values.size()) >= band)
        reached.push_back(score(t.values[band - 1]));
    }
    std::sort(reached.begin(), reached.end());
    // W&B's index, int(r · n) with r = 1/eta: for eta 1.1 or 1.3 it differs from int(n / eta)
    // at some n (33, 39, ...).
    const double r = 1.0 / spec.eta;
    const auto at = static_cast<size_t>(r * static_cast<double>(reached.size()));
    d.thresholds.push_back(reached[std::min(at, reached.size() - 1)]);
  }
  for (const auto& t : trials) {
    if (!t.running) continue;
    // The latest band the trial has passed.
    int64_t closest = -1;
    size_t index = 0;
    for (size_t i = 0; i < d.bands.size(); ++i) {
      if (static_cast<int64_t>(t.values.size()) >= d.bands[i]) {
        closest = d.bands[i];
        index = i;
      }
    }
    if (closest < 0) continue;
    // strict (W&B's default): the value at the band; otherwise W&B's conservative condition,
    // the best value so far (min(history) in W&B's smaller-is-better terms). A diverged value
    // is the worst there is: stopped even where the threshold is one too.
    double value = t.values[static_cast<size_t>(closest - 1)];
    if (!spec.strict) {
      for (double v : t.values) {
        if (score(v) < score(value)) value = v;
      }
    }
    if (!std::isfinite(value) || score(value) > d.thresholds[index]) {
      d.stop.push_back(t.trial);
      d.stoppedAt.push_back(closest);
    }
  }
  for (double& threshold : d.thresholds) {
    if (maximize) threshold = -threshold;  // back in the metric's own sign (+inf -> -inf)
  }
  return d;
}

}  // namespace tbench
