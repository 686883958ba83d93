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
namespace detail {

// ---------------------------------------------------------------------------------------------
// Random numbers and coordinates

/// Uniform in [0, 1) from the generator's raw output (53 bits), the same on every platform.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double standardNormal(std::mt19937_64& rng) {
  // Box-Muller; 1 - u keeps the logarithm finite.
  const double u = 1.0 - unit(rng);
  const double v = unit(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * kPi * v);
}

size_t uniformIndex(std::mt19937_64& rng, size_t n) {
  return std::min(n - 1, static_cast<size_t>(unit(rng) * static_cast<double>(n)));
}

/// Index of a draw from unnormalized non-negative weights.
size_t drawWeighted(std::mt19937_64& rng, const std::vector<double>& weights) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  double u = unit(rng) * total;
  for (size_t k = 0; k < weights.size(); ++k) {
    if (u < weights[k]) return k;
    u -= weights[k];
  }
  return weights.size() - 1;
}

/// The number of cells of a discrete dimension (categories or levels); 0 when continuous.
int cellsOf(const Dimension& dim) {
  if (dim.choices > 0) return dim.choices;
  return dim.levels > 1 ? dim.levels : 0;
}

int cellOf(double x, int cells) {
  return std::clamp(static_cast<int>(std::floor(x * cells)), 0, cells - 1);
}

double cellCentre(int cell, int cells) { return (cell + 0.5) / cells; }

Point randomPoint(const std::vector<Dimension>& dims, std::mt19937_64& rng) {
  Point x(dims.size());
  for (size_t j = 0; j < dims.size(); ++j) x[j] = snapToDimension(dims[j], unit(rng));
  return x;
}

bool finitePoint(const Point& x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
}

/// The observations that fit `dims` (right size, finite), their coordinates snapped.
std::vector<Observation> usable(const std::vector<Dimension>& dims,
                                const std::vector<Observation>& done) {
  std::vector<Observation> out;
  for (const Observation& o : done) {
    if (o.x.size() != dims.size() || !finitePoint(o.x) || !std::isfinite(o.y)) continue;
    Observation s{o.x, o.y};
    for (size_t j = 0; j < dims.size(); ++j) s.x[j] = snapToDimension(dims[j], s.x[j]);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Point> usablePoints(const std::vector<Dimension>& dims,
                                const std::vector<Point>& points) {
  std::vector<Point> out;
  for (const Point& p : points) {
    if (p.size() != dims.size() || !finitePoint(p)) continue;
    Point s = p;
    for (size_t j = 0; j < dims.size(); ++j) s[j] = snapToDimension(dims[j], s[j]);
    out.push_back(std::move(s));
  }
  return out;
}

/// Indices of `obs` ordered by y, ties by index (a total order: the same on every platform).
std::vector<size_t> orderByY(const std::vector<Observation>& obs) {
  std::vector<size_t> order(obs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return obs[a].y != obs[b].y ? obs[a].y < obs[b].y : a < b; });
  return order;
}

// ---------------------------------------------------------------------------------------------
// Normal distribution

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normalLogPdf(double z) { return -0.5 * z * z - 0.5 * std::log(2.0 * kPi); }

/// Phi(b) - Phi(a) for a <= b, computed in the tail where it does not cancel.
double normalMass(double a, double b) {
  if (a > 0) return normalCdf(-a) - normalCdf(-b);
  return normalCdf(b) - normalCdf(a);
}

double logSumExp(const std::vector<double>& v) {
  const double m = *std::max_element(v.begin(), v.end());
  if (!std::isfinite(m)) return m;
  double s = 0;
  for (double e : v) s += std::exp(e - m);
  return m + std::log(s);
}

/// A draw from N(mu, sigma^2) truncated to [0, 1] (rejection; clamped after 1000 misses).
double truncatedNormal(std::mt19937_64& rng, double mu, double sigma) {
  double x = mu;
  for (int i = 0; i < 1000; ++i) {
    x = mu + sigma * standardNormal(rng);
    if (x >= 0 && x <= 1) return x;
  }
  return std::clamp(x, 0.0, 1.0);
}

/// The data with y standardized (sd 1 when y is constant).
GpData standardized(const std::vector<Dimension>& dims, const std::vector<Observation>& obs) {
  GpData g{dims, {}, {}};
  double mean = 0, var = 0;
  for (const Observation& o : obs) mean += o.y / static_cast<double>(obs.size());
  for (const Observation& o : obs)
    var += (o.y - mean) * (o.y - mean) / static_cast<double>(obs.size());
  const double sd = std::sqrt(var) > 1e-12 * (1 + std::abs(mean)) ? std::sqrt(var) : 1.0;
  for (const Observation& o : obs) {
    g.x.push_back(o.x);
    g.y.push_back((o.y - mean) / sd);
  }
  return g;
}

}  // namespace detail

using namespace detail;

// ---------------------------------------------------------------------------------------------
// Public

size_t searchStartupTrials(const std::string& method) {
  if (method == "bayes") return 5;
  // Optuna's n_startup_trials is 10; a training sweep of 20 trials would spend half its
  // budget on random ones: 5, as bayes (bench/sweep_search_mlp.py: 0.50 N vs 0.90 N).
  if (method == "tpe") return 5;
  if (method == "random") return std::numeric_limits<size_t>::max();
  return 0;
}

bool searchStartsRandom(const std::string& method, size_t observations) {
  return observations < searchStartupTrials(method);
}

uint64_t trialSeed(uint64_t sweepSeed, uint64_t trialIndex) {
  const auto splitmix = [](uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return splitmix(sweepSeed ^ splitmix(trialIndex));
}

double snapToDimension(const Dimension& dim, double x) {
  if (!std::isfinite(x)) x = 0.5;
  x = std::clamp(x, 0.0, 1.0);
  const int cells = cellsOf(dim);
  return cells > 0 ? cellCentre(cellOf(x, cells), cells) : x;
}

std::vector<double> proposeRandom(const std::vector<Dimension>& dims, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return randomPoint(dims, rng);
}

}  // namespace tbench::search
