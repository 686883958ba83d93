#pragma once
// Model-based search for sweeps: W&B's `method: bayes` (a Gaussian process and expected
// improvement), Optuna's default TPESampler as `method: tpe`, and W&B's parameter importance
// panel (random-forest importance and correlation). Standard library only: the sweep code maps
// each parameter to a coordinate in [0, 1] (log-scaled where its distribution is log, a
// categorical parameter's k-th of n values at (k + 0.5) / n) and back; nothing here sees JSON.
// y is always "smaller is better": the caller negates a maximize goal.
//
// Every function is deterministic given its seed: the only generator is std::mt19937_64 (whose
// output the standard fixes), read through our own uniform ((rng() >> 11) * 2^-53), Box-Muller
// normals and tie-broken sorts, so a proposal is the same on every platform up to libm's last
// bit. Pass a seed per proposal (trialSeed(sweepSeed, trialIndex)), not the sweep's seed alone.
//
// Coordinates. A continuous dimension is [0, 1]. A categorical one with n choices takes the
// centres (k + 0.5) / n; the caller reads the category as floor(x * n) (clamped). A dimension with
// `levels` = L > 1 (int_uniform, q_uniform) takes the same centres (k + 0.5) / L: the models
// propose exactly those (snapToDimension), and the caller reads the level as floor(x * L).
//
// Startup (searchStartsRandom): bayes and tpe propose uniform random points until 5 observations
// are done (tpe: Optuna's n_startup_trials is 10, which spends half of a 20-trial training
// sweep on random trials; on the MLP sweep of bench/sweep_search_mlp.py 10 reached random's
// best-after-20 in 0.90 N, 5 in 0.50 N); random always; other methods never. Running
// trials do not count. Below its startup count a model still proposes (it falls back to random
// only below 2 observations for bayes, 1 for tpe) so the policy is the caller's choice.
//
// proposeBayes (W&B's bayes_search.py, with the differences listed):
//   - model: a Gaussian process on y standardized (mean 0, sd 1; sd 1 when all y are equal),
//     constant mean = mean of y, kernel s2 * Matern-5/2(r) + noise, r^2 = sum_j d_j^2 / l_j^2
//     with one length scale per dimension (ARD); d_j is the coordinate difference for a
//     continuous dimension and 0 (same) / 1 (different) for a categorical one.
//   - hyper-parameters (l_j, s2, noise) by maximizing the log marginal likelihood plus weak
//     log-normal priors (log l_j ~ N(log(0.5 sqrt(d)), 1), log s2 ~ N(0, 1), log noise ~
//     N(log 1e-3, 3); noise >= 1e-6): BFGS with analytic gradients from 3 starts (the prior
//     medians and 2 random ones from the seed), the best kept. Cholesky with growing jitter.
//   - more than 120 observations: the best 40 and a random 80 of the rest (W&B: a random 100).
//   - running trials (kriging believer / constant liar): once fitted, each running point (the
//     last 60 given) gets the GP mean there as a fantasy observation (same hyper-parameters) and
//     the incumbent is the best of the observed and fantasy values, so parallel proposals differ.
//   - acquisition: expected improvement over the incumbent (no xi), compared as log EI (an
//     asymptotic form far in the tail, so flat regions still rank), maximized over 1000 uniform
//     candidates + 200 perturbations of the 5 best observations, then a (1+1) hill climb from the
//     5 best candidates (40 steps each, step shrinking on failure). Categorical and level
//     dimensions are snapped to their centres in every candidate.
//   - fewer than 2 observations: a uniform random point (as W&B).
//   Differences from W&B: W&B uses sklearn's isotropic Matern nu = 1.5 without a signal variance,
//   a fixed 1e-7 nugget, L-BFGS-B with 2 restarts and no priors, 1000 uniform candidates and no
//   local search; it refits the hyper-parameters after adding the running fantasies; it treats a
//   categorical value as a continuous coordinate; and it falls back to a random point when a
//   fitted length scale sits at its bound. We use Matern 5/2 ARD, a fitted noise, priors, a
//   categorical (Hamming) distance, local refinement, and keep the hyper-parameters for fantasies.
//
// proposeTpe (Optuna's TPESampler defaults: n_ei_candidates 24, gamma(n) = min(ceil(0.1 n), 25),
// default weights, prior_weight 1, consider_magic_clip, no endpoints, univariate):
//   - the done observations sorted by y (ties by index): the gamma(n) best are "good", the rest
//     "bad". Running trials count as bad (Optuna's constant_liar = True; its default ignores
//     them): two proposals made while the first trial runs then differ.
//   - per dimension, a Parzen estimator of the good points, l(x), and of the bad ones, g(x): a
//     truncated-normal kernel on each observation (weights 1, or for more than 25 observations
//     Optuna's ramp from 1/n to 1 over the oldest n - 25 in the order given), plus a prior kernel
//     (mean 0.5, sigma 1, weight 1). Bandwidth: the larger gap to the sorted neighbours (prior and
//     0/1 as endpoints, the outermost use the inner gap), clipped to [1 / min(100, n + 2), 1].
//     Level dimensions use Optuna's discrete form (mass of the level's bin, [0, 1] is the
//     extended range); categorical ones Optuna's weighted counts plus prior_weight / (n + 1).
//   - 24 candidates are drawn from l per dimension and the one maximizing log l - log g kept,
//     each dimension independently (Optuna's default sample_independent).
//     TpeOptions::multivariate is Optuna's multivariate = True instead: l and g are mixtures of
//     product kernels (one kernel index for all dimensions, bandwidth 0.2 n^(-1/(d+4)) with the
//     magic clip), 24 joint draws from l ranked by the joint log l - log g.
//   - no observations: a uniform random point.
//   Differences from Optuna: running trials are "bad" (its constant_liar option); no pruned or
//   failed trials (the caller imputes them or leaves them out); the ramp's order is the order of
//   `done`, the running points last.
//
// parameterImportance (W&B's parameter importance panel): a random forest regressor of y on the
// coordinates (100 trees, each on a bootstrap sample of n, every feature tried at every split as
// sklearn's RandomForestRegressor default, at least 2 samples per leaf (1 below 6 observations, so
// that 3 can split), grown until pure or too small); a categorical dimension splits on categories
// ordered by their mean y in the node (Breiman's optimal partition for regression). Importance =
// the variance reduction each dimension's splits bring, normalized per tree, averaged, normalized
// to sum 1 (sklearn's feature_importances_). Correlation: Pearson's of the coordinate with y (W&B's
// panel); for a categorical dimension the signed correlation of y with the one-hot of the category
// that correlates most in absolute value. All 0 with fewer than 3 observations or constant y.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tbench::search {

struct Dimension {
  /// 0: continuous in [0,1]; n > 0: categorical with n values, coordinate (k + 0.5) / n.
  int choices = 0;
  /// > 1: the coordinate takes only `levels` values, at (k + 0.5) / levels (int_uniform, q_*):
  /// any x may be given, the models snap to these.
  int levels = 0;
};

struct Observation {
  std::vector<double> x;  ///< one coordinate per dimension
  double y = 0;           ///< smaller is better (the caller negates maximize goals); finite
};

/// Trials that bayes and tpe propose at random before their models take over (5 and 10); every
/// trial for "random"; 0 for any other method.
size_t searchStartupTrials(const std::string& method);
/// Whether the next proposal of `method` is uniform random, given the number of finished
/// observations (running trials do not count): random always, bayes below 5, tpe below 10.
bool searchStartsRandom(const std::string& method, size_t observations);

/// A seed per proposal from the sweep's seed and the trial's index (splitmix64 of both).
uint64_t trialSeed(uint64_t sweepSeed, uint64_t trialIndex);

/// A coordinate moved to what `dim` can take: clamped to [0,1], categorical and level dimensions
/// to the centre of their cell.
double snapToDimension(const Dimension& dim, double x);

/// A uniform random point (categorical and level coordinates at their centres).
std::vector<double> proposeRandom(const std::vector<Dimension>& dims, uint64_t seed);

/// W&B's bayes: see the header comment. Returns a point in [0,1]^d (snapped).
std::vector<double> proposeBayes(const std::vector<Dimension>& dims,
                                 const std::vector<Observation>& done,
                                 const std::vector<std::vector<double>>& running, uint64_t seed);

struct TpeOptions {
  int candidates = 24;        ///< Optuna's n_ei_candidates
  bool multivariate = false;  ///< Optuna's multivariate = True (see above)
};

/// Optuna's TPE: see the header comment. Returns a point in [0,1]^d (snapped).
std::vector<double> proposeTpe(const std::vector<Dimension>& dims,
                               const std::vector<Observation>& done,
                               const std::vector<std::vector<double>>& running, uint64_t seed,
                               const TpeOptions& options = {});

struct Importance {
  /// Per dim, >= 0, sums to 1 (all 0 when fewer than 3 observations or y constant).
  std::vector<double> importance;
  /// Per dim, Pearson's correlation of the coordinate with y, in [-1,1]; a categorical dim: the
  /// signed correlation of y with the one-hot of the category that correlates most in absolute
  /// value; 0 when undefined.
  std::vector<double> correlation;
};

/// W&B's parameter importance panel: see the header comment.
Importance parameterImportance(const std::vector<Dimension>& dims,
                               const std::vector<Observation>& obs, uint64_t seed);

}  // namespace tbench::search
