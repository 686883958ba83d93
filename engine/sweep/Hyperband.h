#pragma once
// Early termination of a sweep's trials: W&B's "hyperband" stopping (sweeps'
// hyperband_stopping.py), asynchronous successive halving on the sweep's metric at epoch ends.
//
// An iteration is one logged value of the sweep's metric (Note [A sweep's metric by
// occurrence]), as in W&B: band b reads a trial's b-th value. Bands are int(min_iter · eta^k)
// values, cut on the integer; or, with max_iter and s (W&B reads them first), the values
// int(max_iter / eta^i) for i = 1..s that are >= 1. For each band, the threshold is the value at
// position int((1/eta) · n) of the sorted values (best first) that the n trials which reached it
// recorded there. A running trial is stopped when its value at the latest band it has passed is
// worse than that band's threshold (W&B's strict: true, its code's default since 2024 and ours; its
// docs say false); with strict: false, when its best value so far is worse (W&B's min(history)).
// Trials are judged whenever a value arrives, against the trials seen so far (asynchronous: nobody
// waits for a rung to fill). This is W&B's hyperband_stopping.py since its 2023 fix (band b reads
// h[b-1] once len(h) >= b).
//
// Difference from W&B, on purpose: a non-finite value (a diverged trial) counts as the worst
// rather than being dropped, which would shift the trial's later values into earlier bands.

#include <cstdint>
#include <vector>

#include "engine/sweep/Sweep.h"

namespace tbench {

/// A trial's metric as logged (values[k - 1] is its k-th value), and whether it still runs.
struct TrialMetrics {
  int64_t trial = 0;
  std::vector<double> values;
  bool running = false;
};

struct HyperbandDecision {
  std::vector<int64_t> bands;      ///< epochs, ascending, those some trial reached
  std::vector<double> thresholds;  ///< per band, in the metric's own sign
  std::vector<int64_t> stop;       ///< running trials to stop now
  std::vector<int64_t> stoppedAt;  ///< for each of `stop`, the band that stopped it
};

/// The bands of `spec` up to `maxEpoch` (min_iter · eta^k, as integers, increasing).
std::vector<int64_t> hyperbandBands(const HyperbandSpec& spec, int64_t maxEpoch);

/// Which running trials to stop (see the file comment). `maximize`: the metric's goal.
HyperbandDecision hyperbandStops(const std::vector<TrialMetrics>& trials, const HyperbandSpec& spec,
                                 bool maximize);

}  // namespace tbench
