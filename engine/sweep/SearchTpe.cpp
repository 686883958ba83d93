// proposeTpe (SearchModels.h): Optuna's tree-structured Parzen estimator.
#include "engine/sweep/SearchModels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

#include "engine/sweep/SearchDetail.h"

namespace tbench::search {
using namespace detail;
namespace {

// ---------------------------------------------------------------------------------------------
// TPE: Parzen estimators

struct Parzen {
  Dimension dim;
  std::vector<double> weights;                     ///< per kernel, normalized; the prior last
  std::vector<double> mus, sigmas;                 ///< continuous and level dimensions
  std::vector<std::vector<double>> categoryProbs;  ///< categorical: per kernel, per category
};

/// Optuna's default_weights: 1 for up to 25 observations, else a ramp 1/n .. 1 over the oldest
/// n - 25 and 1 for the newest 25.
std::vector<double> optunaWeights(size_t n) {
  if (n < 25) return std::vector<double>(n, 1.0);
  std::vector<double> w(n, 1.0);
  const size_t ramp = n - 25;
  const double first = 1.0 / static_cast<double>(n);
  for (size_t i = 0; i < ramp; ++i) {
    w[i] = ramp == 1
               ? first
               : first + (1.0 - first) * static_cast<double>(i) / static_cast<double>(ramp - 1);
  }
  return w;
}

/// Optuna's univariate bandwidths: the larger gap to the sorted neighbours (the prior's 0.5 among
/// them, 0 and 1 as endpoints, the outermost take the inner gap), clipped by the magic clip.
std::vector<double> parzenSigmas(const std::vector<double>& mus) {
  const size_t n = mus.size();
  std::vector<double> withPrior = mus;
  withPrior.push_back(0.5);
  std::vector<size_t> order(n + 1);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return withPrior[a] != withPrior[b] ? withPrior[a] < withPrior[b] : a < b;
  });
  std::vector<double> s{0.0};  // sorted with endpoints
  for (size_t i : order) s.push_back(withPrior[i]);
  s.push_back(1.0);
  std::vector<double> sorted(n + 1);
  for (size_t i = 1; i + 1 < s.size(); ++i)
    sorted[i - 1] = std::max(s[i] - s[i - 1], s[i + 1] - s[i]);
  if (s.size() >= 4) {
    sorted.front() = s[2] - s[1];
    sorted.back() = s[s.size() - 2] - s[s.size() - 3];
  }
  const double minSigma = 1.0 / std::min(100.0, 1.0 + static_cast<double>(n + 1));
  std::vector<double> sigmas(n + 1);
  for (size_t i = 0; i <= n; ++i) sigmas[order[i]] = std::clamp(sorted[i], minSigma, 1.0);
  sigmas.pop_back();  // the prior's own sigma is 1
  return sigmas;
}

/// Optuna's multivariate bandwidth: 0.2 n^(-1/(d+4)) of the range, clipped by the magic clip.
std::vector<double> multivariateSigmas(size_t n, size_t dimensions) {
  const double sigma = 0.2 * std::pow(static_cast<double>(std::max<size_t>(n, 1)),
                                      -1.0 / (static_cast<double>(dimensions) + 4));
  const double minSigma = 1.0 / std::min(100.0, 1.0 + static_cast<double>(n + 1));
  return std::vector<double>(n, std::clamp(sigma, minSigma, 1.0));
}

/// One dimension's estimator of `values` (kernel weights: Optuna's, the prior last);
/// `multivariateDims` > 0 gives Optuna's multivariate bandwidth for that many dimensions.
Parzen buildParzen(const Dimension& dim, const std::vector<double>& values,
                   size_t multivariateDims) {
  Parzen p{dim, optunaWeights(values.size()), {}, {}, {}};
  p.weights.push_back(1.0);  // prior_weight
  const double total = std::accumulate(p.weights.begin(), p.weights.end(), 0.0);
  for (double& w : p.weights) w /= total;
  if (dim.choices > 0) {
    const double fill = 1.0 / static_cast<double>(values.size() + 1);  // prior_weight / n_kernels
    for (double v : values) {
      std::vector<double> row(dim.choices, fill);
      row[cellOf(v, dim.choices)] += 1;
      const double rowSum = std::accumulate(row.begin(), row.end(), 0.0);
      for (double& r : row) r /= rowSum;
      p.categoryProbs.push_back(std::move(row));
    }
    p.categoryProbs.emplace_back(dim.choices, 1.0 / dim.choices);
    return p;
  }
  p.mus = values;
  p.sigmas = multivariateDims > 0 ? multivariateSigmas(values.size(), multivariateDims)
                                  : parzenSigmas(values);
  p.mus.push_back(0.5);
  p.sigmas.push_back(1.0);
  return p;
}

/// A draw from kernel k of the estimator.
double sampleKernel(const Parzen& p, size_t k, std::mt19937_64& rng) {
  if (p.dim.choices > 0) {
    return cellCentre(static_cast<int>(drawWeighted(rng, p.categoryProbs[k])), p.dim.choices);
  }
  return snapToDimension(p.dim, truncatedNormal(rng, p.mus[k], p.sigmas[k]));
}

/// log of kernel k's density at x (continuous), or of its mass at x's cell (discrete).
double logKernel(const Parzen& p, size_t k, double x) {
  if (p.dim.choices > 0) {
    return std::log(std::max(p.categoryProbs[k][cellOf(x, p.dim.choices)], 1e-300));
  }
  const double mu = p.mus[k], sigma = p.sigmas[k];
  const double logZ = std::log(std::max(normalMass(-mu / sigma, (1 - mu) / sigma), 1e-300));
  if (p.dim.levels > 1) {  // Optuna's discrete form: the mass of x's level bin
    const int c = cellOf(x, p.dim.levels);
    const double lo = static_cast<double>(c) / p.dim.levels, hi = (c + 1.0) / p.dim.levels;
    return std::log(std::max(normalMass((lo - mu) / sigma, (hi - mu) / sigma), 1e-300)) - logZ;
  }
  return normalLogPdf((x - mu) / sigma) - std::log(sigma) - logZ;
}

/// log of one dimension's mixture density (mass) at x.
double logPdf(const Parzen& p, double x) {
  std::vector<double> terms(p.weights.size());
  for (size_t k = 0; k < p.weights.size(); ++k)
    terms[k] = std::log(p.weights[k]) + logKernel(p, k, x);
  return logSumExp(terms);
}

/// log of the joint mixture's density (mass) at x: `estimators` share their kernels' weights and
/// each kernel is the product of theirs (Optuna's multivariate estimator).
double logPdfMixture(const std::vector<Parzen>& estimators, const Point& x) {
  const std::vector<double>& weights = estimators.front().weights;
  std::vector<double> terms(weights.size());
  for (size_t k = 0; k < weights.size(); ++k) {
    terms[k] = std::log(weights[k]);
    for (size_t j = 0; j < estimators.size(); ++j) terms[k] += logKernel(estimators[j], k, x[j]);
  }
  return logSumExp(terms);
}

/// Optuna's gamma: the number of observations that count as good.
size_t tpeGood(size_t n) {
  return std::min<size_t>(static_cast<size_t>(std::ceil(0.1 * static_cast<double>(n))), 25);
}

/// Optuna's default (independent) sampling: per dimension, the best of `candidates` draws from
/// l by log l - log g.
Point tpeIndependent(const std::vector<Parzen>& l, const std::vector<Parzen>& g, int candidates,
                     std::mt19937_64& rng) {
  Point out(l.size());
  for (size_t j = 0; j < l.size(); ++j) {
    double bestScore = -kInf;
    for (int c = 0; c < candidates; ++c) {
      const double v = sampleKernel(l[j], drawWeighted(rng, l[j].weights), rng);
      const double s = logPdf(l[j], v) - logPdf(g[j], v);
      if (c == 0 || s > bestScore) bestScore = s, out[j] = v;
    }
  }
  return out;
}

/// Optuna's multivariate sampling: `candidates` joint draws from l (one kernel for all
/// dimensions), the best by log l - log g of the joint mixtures.
Point tpeMultivariate(const std::vector<Parzen>& l, const std::vector<Parzen>& g, int candidates,
                      std::mt19937_64& rng) {
  Point out;
  double bestScore = -kInf;
  for (int c = 0; c < candidates; ++c) {
    const size_t k = drawWeighted(rng, l.front().weights);
    Point x(l.size());
    for (size_t j = 0; j < l.size(); ++j) x[j] = sampleKernel(l[j], k, rng);
    const double s = logPdfMixture(l, x) - logPdfMixture(g, x);
    if (c == 0 || s > bestScore) bestScore = s, out = std::move(x);
  }
  return out;
}

}  // namespace

std::vector<double> proposeTpe(const std::vector<Dimension>& dims,
                               const std::vector<Observation>& done,
                               const std::vector<std::vector<double>>& running, uint64_t seed,
                               const TpeOptions& options) {
  std::mt19937_64 rng(seed);
  if (dims.empty()) return {};
  const std::vector<Observation> obs = usable(dims, done);
  if (obs.empty()) return randomPoint(dims, rng);
  const std::vector<size_t> order = orderByY(obs);
  std::vector<bool> good(obs.size(), false);
  for (size_t i = 0; i < tpeGood(obs.size()); ++i) good[order[i]] = true;
  const std::vector<Point> pending = usablePoints(dims, running);  // constant liar: bad
  const size_t multivariate = options.multivariate ? dims.size() : 0;
  std::vector<Parzen> l, g;
  for (size_t j = 0; j < dims.size(); ++j) {
    std::vector<double> below, above;
    for (size_t i = 0; i < obs.size(); ++i) (good[i] ? below : above).push_back(obs[i].x[j]);
    for (const Point& p : pending) above.push_back(p[j]);
    l.push_back(buildParzen(dims[j], below, multivariate));
    g.push_back(buildParzen(dims[j], above, multivariate));
  }
  const int candidates = std::max(1, options.candidates);
  if (options.multivariate) return tpeMultivariate(l, g, candidates, rng);
  return tpeIndependent(l, g, candidates, rng);
}

}  // namespace tbench::search
