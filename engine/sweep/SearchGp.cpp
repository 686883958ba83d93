// proposeBayes (SearchModels.h): W&B's Gaussian-process search.
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

constexpr double kMinNoise = 1e-6;  ///< the smallest noise variance the GP fits

// ---------------------------------------------------------------------------------------------
// Linear algebra (small dense matrices)

/// Cholesky factor L (lower, row-major) of `a` in place; false when `a` is not positive definite.
bool choleskyInPlace(Matrix& a, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double s = a[j * n + j];
    for (size_t k = 0; k < j; ++k) s -= a[j * n + k] * a[j * n + k];
    if (!(s > 0) || !std::isfinite(s)) return false;
    const double ljj = std::sqrt(s);
    a[j * n + j] = ljj;
    for (size_t i = j + 1; i < n; ++i) {
      double t = a[i * n + j];
      for (size_t k = 0; k < j; ++k) t -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = t / ljj;
    }
    for (size_t i = 0; i < j; ++i) a[i * n + j] = 0;  // upper triangle
  }
  return true;
}

/// Cholesky with jitter: 0, then 1e-10 .. 1e-2 of the mean diagonal added until it succeeds.
bool cholesky(Matrix& a, size_t n) {
  const Matrix original = a;
  double meanDiag = 0;
  for (size_t i = 0; i < n; ++i) meanDiag += original[i * n + i] / static_cast<double>(n);
  if (!(meanDiag > 0)) meanDiag = 1;
  for (double jitter = 0; jitter <= 1e-2 * meanDiag;
       jitter = jitter == 0 ? 1e-10 * meanDiag : jitter * 10) {
    a = original;
    for (size_t i = 0; i < n; ++i) a[i * n + i] += jitter;
    if (choleskyInPlace(a, n)) return true;
  }
  return false;
}

/// b <- L^-1 b.
void solveLower(const Matrix& l, size_t n, std::vector<double>& b) {
  for (size_t i = 0; i < n; ++i) {
    double t = b[i];
    for (size_t k = 0; k < i; ++k) t -= l[i * n + k] * b[k];
    b[i] = t / l[i * n + i];
  }
}

/// b <- L^-T b.
void solveUpper(const Matrix& l, size_t n, std::vector<double>& b) {
  for (size_t i = n; i-- > 0;) {
    double t = b[i];
    for (size_t k = i + 1; k < n; ++k) t -= l[k * n + i] * b[k];
    b[i] = t / l[i * n + i];
  }
}

/// K^-1 from its Cholesky factor: column by column.
Matrix inverseFromCholesky(const Matrix& l, size_t n) {
  Matrix inv(n * n);
  std::vector<double> e(n);
  for (size_t c = 0; c < n; ++c) {
    std::fill(e.begin(), e.end(), 0.0);
    e[c] = 1;
    solveLower(l, n, e);
    solveUpper(l, n, e);
    for (size_t r = 0; r < n; ++r) inv[r * n + c] = e[r];
  }
  return inv;
}

// ---------------------------------------------------------------------------------------------
// Minimization (BFGS with backtracking), for the GP's hyper-parameters

using Objective = std::function<double(const Point&, Point&)>;  ///< value, gradient out

double dot(const Point& a, const Point& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

/// H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T.
void bfgsUpdate(Matrix& h, const Point& s, const Point& y) {
  const size_t p = s.size();
  const double sy = dot(s, y);
  if (!(sy > 1e-12)) return;
  const double rho = 1.0 / sy;
  Point hy(p, 0.0);
  for (size_t i = 0; i < p; ++i)
    for (size_t k = 0; k < p; ++k) hy[i] += h[i * p + k] * y[k];
  const double yhy = dot(y, hy);
  for (size_t i = 0; i < p; ++i) {
    for (size_t k = 0; k < p; ++k) {
      h[i * p + k] += -rho * (hy[i] * s[k] + s[i] * hy[k]) + (rho * rho * yhy + rho) * s[i] * s[k];
    }
  }
}

/// A direction of descent from the inverse Hessian estimate, its largest step capped at 2.
Point descentDirection(Matrix& h, const Point& g) {
  const size_t p = g.size();
  Point dir(p, 0.0);
  for (size_t i = 0; i < p; ++i)
    for (size_t k = 0; k < p; ++k) dir[i] -= h[i * p + k] * g[k];
  if (dot(dir, g) >= 0) {  // lost positive definiteness: restart from steepest descent
    std::fill(h.begin(), h.end(), 0.0);
    for (size_t i = 0; i < p; ++i) h[i * p + i] = 1;
    for (size_t i = 0; i < p; ++i) dir[i] = -g[i];
  }
  double largest = 0;
  for (double v : dir) largest = std::max(largest, std::abs(v));
  if (largest > 2) {
    for (double& v : dir) v *= 2 / largest;
  }
  return dir;
}

/// A local minimum of `f` from `x` (at most `iterations` steps); returns {x, f(x)}.
std::pair<Point, double> minimizeBfgs(const Objective& f, Point x, int iterations) {
  const size_t p = x.size();
  Point g(p), gNew(p);
  double fx = f(x, g);
  if (!std::isfinite(fx)) return {x, kInf};
  Matrix h(p * p, 0.0);
  for (size_t i = 0; i < p; ++i) h[i * p + i] = 1;
  for (int it = 0; it < iterations; ++it) {
    const Point dir = descentDirection(h, g);
    const double slope = dot(dir, g);
    double step = 1, fNew = kInf;
    Point xNew(p);
    for (int tries = 0; tries < 30; ++tries, step *= 0.5) {
      for (size_t i = 0; i < p; ++i) xNew[i] = x[i] + step * dir[i];
      fNew = f(xNew, gNew);
      if (std::isfinite(fNew) && fNew <= fx + 1e-4 * step * slope) break;
    }
    if (!std::isfinite(fNew) || fNew > fx + 1e-4 * step * slope) break;
    Point s(p), y(p);
    for (size_t i = 0; i < p; ++i) s[i] = xNew[i] - x[i], y[i] = gNew[i] - g[i];
    bfgsUpdate(h, s, y);
    const double decrease = fx - fNew;
    x = xNew, fx = fNew, g = gNew;
    if (decrease < 1e-9 * (1 + std::abs(fx))) break;
  }
  return {x, fx};
}

/// Squared distance in one dimension: coordinates for a continuous one, 0/1 for a categorical.
double dimDistance2(const Dimension& dim, double a, double b) {
  if (dim.choices > 0) return cellOf(a, dim.choices) == cellOf(b, dim.choices) ? 0.0 : 1.0;
  return (a - b) * (a - b);
}

double matern52(double r2, double s2) {
  const double a = std::sqrt(5.0 * r2);
  return s2 * (1 + a + a * a / 3) * std::exp(-a);
}

/// d matern52 / d r^2 (finite at r = 0).
double matern52DerivR2(double r2, double s2) {
  const double a = std::sqrt(5.0 * r2);
  return -s2 * (5.0 / 6.0) * (1 + a) * std::exp(-a);
}

/// Hyper-parameters theta: [log l_1 .. log l_d, log s2, log(noise - kMinNoise)].
struct Kernel {
  std::vector<double> invL2;  ///< 1 / l_j^2
  double s2 = 1, noise = 1e-3;
  explicit Kernel(const Point& theta) {
    const size_t d = theta.size() - 2;
    invL2.resize(d);
    for (size_t j = 0; j < d; ++j) invL2[j] = std::exp(-2 * theta[j]);
    s2 = std::exp(theta[d]);
    noise = kMinNoise + std::exp(theta[d + 1]);
  }
  double r2(const std::vector<Dimension>& dims, const Point& a, const Point& b) const {
    double s = 0;
    for (size_t j = 0; j < dims.size(); ++j) s += dimDistance2(dims[j], a[j], b[j]) * invL2[j];
    return s;
  }
};

struct Prior {
  double mean, sd;
};

/// The weak prior on theta[i] (see the header comment).
Prior priorOf(size_t i, size_t d) {
  if (i < d) return {std::log(0.5 * std::sqrt(static_cast<double>(d))), 1.0};
  if (i == d) return {0.0, 1.0};
  return {std::log(1e-3), 3.0};
}

/// Per-dimension squared distances between the data's points (n x n each).
std::vector<Matrix> pairwiseDistances(const GpData& g) {
  const size_t n = g.x.size();
  std::vector<Matrix> dist(g.dims.size(), Matrix(n * n, 0.0));
  for (size_t j = 0; j < g.dims.size(); ++j)
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        dist[j][a * n + b] = dimDistance2(g.dims[j], g.x[a][j], g.x[b][j]);
  return dist;
}

/// The gradient of the negative log marginal likelihood from W = K^-1 - alpha alpha^T.
Point likelihoodGradient(const std::vector<Matrix>& dist, const Kernel& k, const Matrix& r2,
                         const Matrix& w, size_t n, double noiseExcess) {
  const size_t d = dist.size();
  Point grad(d + 2, 0.0);
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = 0; b < n; ++b) {
      const size_t ab = a * n + b;
      const double dk = matern52DerivR2(r2[ab], k.s2);
      for (size_t j = 0; j < d; ++j) grad[j] += 0.5 * w[ab] * dk * (-2 * dist[j][ab] * k.invL2[j]);
      grad[d] += 0.5 * w[ab] * matern52(r2[ab], k.s2);
    }
    grad[d + 1] += 0.5 * w[a * n + a] * noiseExcess;
  }
  return grad;
}

/// Negative log posterior of theta (marginal likelihood + priors) and its gradient; +inf when the
/// kernel matrix cannot be factored or theta is out of range.
double negLogPosterior(const GpData& g, const std::vector<Matrix>& dist, const Point& theta,
                       Point& grad) {
  for (double t : theta)
    if (!(std::abs(t) < 25)) return kInf;
  const size_t n = g.x.size(), d = g.dims.size();
  const Kernel k(theta);
  Matrix r2(n * n), l(n * n);
  for (size_t ab = 0; ab < n * n; ++ab) {
    double s = 0;
    for (size_t j = 0; j < d; ++j) s += dist[j][ab] * k.invL2[j];
    r2[ab] = s;
    l[ab] = matern52(s, k.s2) + (ab % (n + 1) == 0 ? k.noise : 0.0);
  }
  if (!cholesky(l, n)) return kInf;
  std::vector<double> alpha = g.y;
  solveLower(l, n, alpha);
  solveUpper(l, n, alpha);
  double value = 0.5 * dot(g.y, alpha) + 0.5 * static_cast<double>(n) * std::log(2 * kPi);
  for (size_t i = 0; i < n; ++i) value += std::log(l[i * n + i]);
  Matrix w = inverseFromCholesky(l, n);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) w[a * n + b] -= alpha[a] * alpha[b];
  grad = likelihoodGradient(dist, k, r2, w, n, k.noise - kMinNoise);
  for (size_t i = 0; i < theta.size(); ++i) {
    const Prior p = priorOf(i, d);
    value += 0.5 * (theta[i] - p.mean) * (theta[i] - p.mean) / (p.sd * p.sd);
    grad[i] += (theta[i] - p.mean) / (p.sd * p.sd);
  }
  return value;
}

/// The MAP hyper-parameters: BFGS from the prior medians and 2 random starts, the best kept.
Point fitHyperParameters(const GpData& g, std::mt19937_64& rng) {
  const size_t d = g.dims.size();
  const std::vector<Matrix> dist = pairwiseDistances(g);
  const Objective f = [&](const Point& theta, Point& grad) {
    return negLogPosterior(g, dist, theta, grad);
  };
  Point bestTheta;
  double bestValue = kInf;
  for (int start = 0; start < 3; ++start) {
    Point theta(d + 2);
    for (size_t i = 0; i < d + 2; ++i) {
      const Prior p = priorOf(i, d);
      theta[i] = p.mean + (start == 0 ? 0.0 : 0.7 * p.sd * standardNormal(rng));
    }
    auto [x, value] = minimizeBfgs(f, theta, 60);
    if (value < bestValue || bestTheta.empty()) bestTheta = x, bestValue = value;
  }
  return bestTheta;
}

// ---------------------------------------------------------------------------------------------
// Gaussian process: posterior and expected improvement

struct Posterior {
  const GpData* data = nullptr;
  Kernel kernel;
  Matrix l;  ///< Cholesky factor of K
  std::vector<double> alpha;
  bool ok = false;

  explicit Posterior(const GpData& g, const Point& theta) : data(&g), kernel(theta) {
    const size_t n = g.x.size();
    l.assign(n * n, 0.0);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        l[a * n + b] =
            matern52(kernel.r2(g.dims, g.x[a], g.x[b]), kernel.s2) + (a == b ? kernel.noise : 0.0);
    ok = cholesky(l, n);
    if (!ok) return;
    alpha = g.y;
    solveLower(l, n, alpha);
    solveUpper(l, n, alpha);
  }

  /// The latent function's mean and variance at x (standardized units).
  std::pair<double, double> predict(const Point& x) const {
    const size_t n = data->x.size();
    std::vector<double> k(n);
    for (size_t a = 0; a < n; ++a) k[a] = matern52(kernel.r2(data->dims, x, data->x[a]), kernel.s2);
    const double mean = dot(k, alpha);
    solveLower(l, n, k);
    return {mean, std::max(0.0, kernel.s2 - dot(k, k))};
  }
};

/// log EI of a normal (mean, var) below `best`; the asymptotic tail form far below, so that
/// points with a vanishing EI still rank by it. -inf when no improvement is possible.
double logExpectedImprovement(double mean, double var, double best) {
  const double sd = std::sqrt(var);
  if (sd < 1e-12) return best > mean ? std::log(best - mean) : -kInf;
  const double z = (best - mean) / sd;
  if (z > -6) {
    const double h = z * normalCdf(z) + std::exp(normalLogPdf(z));
    return h > 0 ? std::log(sd) + std::log(h) : -kInf;
  }
  // h(z) = phi(z) (1/z^2 - 3/z^4 + 15/z^6 - ...) for z -> -inf (Mills' ratio).
  const double z2 = z * z;
  return std::log(sd) + normalLogPdf(z) + std::log(1 / z2 - 3 / (z2 * z2) + 15 / (z2 * z2 * z2));
}

struct Scored {
  double score;
  Point x;
};

/// A perturbation of x: a normal step of `scale` on continuous and level coordinates (at least
/// one level), a uniformly drawn category with probability max(1/d, 0.2) on categorical ones.
Point perturb(const std::vector<Dimension>& dims, const Point& x, double scale,
              std::mt19937_64& rng) {
  Point out = x;
  const double flip = std::max(0.2, 1.0 / static_cast<double>(dims.size()));
  for (size_t j = 0; j < dims.size(); ++j) {
    if (dims[j].choices > 0) {
      if (unit(rng) < flip)
        out[j] = cellCentre(static_cast<int>(uniformIndex(rng, dims[j].choices)), dims[j].choices);
      continue;
    }
    const double s = dims[j].levels > 1 ? std::max(scale, 1.0 / dims[j].levels) : scale;
    out[j] = snapToDimension(dims[j], x[j] + s * standardNormal(rng));
  }
  return out;
}

/// A (1+1) hill climb on the acquisition from `start`: 40 steps, the step halved after every 5
/// failures.
Scored hillClimb(const std::vector<Dimension>& dims, const std::function<double(const Point&)>& acq,
                 Scored start, std::mt19937_64& rng) {
  double scale = 0.05;
  int failures = 0;
  for (int step = 0; step < 40; ++step) {
    Point candidate = perturb(dims, start.x, scale, rng);
    const double s = acq(candidate);
    if (s > start.score) {
      start = {s, std::move(candidate)};
    } else if (++failures % 5 == 0) {
      scale *= 0.5;
    }
  }
  return start;
}

/// The point maximizing the acquisition over 1000 uniform candidates, 200 perturbations of the
/// 5 best observations, then hill climbs from the 5 best candidates.
Point maximizeAcquisition(const std::vector<Dimension>& dims, const std::vector<Observation>& obs,
                          const std::function<double(const Point&)>& acq, std::mt19937_64& rng) {
  std::vector<Scored> pool;
  for (int i = 0; i < 1000; ++i) {
    Point x = randomPoint(dims, rng);
    pool.push_back({acq(x), std::move(x)});
  }
  const std::vector<size_t> order = orderByY(obs);
  const double scales[] = {0.2, 0.05, 0.01};
  for (size_t b = 0; b < std::min<size_t>(5, order.size()); ++b) {
    for (int i = 0; i < 40; ++i) {
      Point x = perturb(dims, obs[order[b]].x, scales[i % 3], rng);
      pool.push_back({acq(x), std::move(x)});
    }
  }
  std::stable_sort(pool.begin(), pool.end(),
                   [](const Scored& a, const Scored& b) { return a.score > b.score; });
  Scored best = pool.front();
  for (size_t i = 0; i < std::min<size_t>(5, pool.size()); ++i) {
    const Scored climbed = hillClimb(dims, acq, pool[i], rng);
    if (climbed.score > best.score) best = climbed;
  }
  return best.x;
}

/// At most 120 observations for the GP: the best 40 and a random 80 of the others.
std::vector<Observation> capForGp(std::vector<Observation> obs, std::mt19937_64& rng) {
  if (obs.size() <= 120) return obs;
  const std::vector<size_t> order = orderByY(obs);
  std::vector<size_t> rest(order.begin() + 40, order.end());
  for (size_t i = 0; i < 80; ++i) std::swap(rest[i], rest[i + uniformIndex(rng, rest.size() - i)]);
  std::vector<Observation> out;
  for (size_t i = 0; i < 40; ++i) out.push_back(obs[order[i]]);
  for (size_t i = 0; i < 80; ++i) out.push_back(obs[rest[i]]);
  return out;
}

}  // namespace

std::vector<double> proposeBayes(const std::vector<Dimension>& dims,
                                 const std::vector<Observation>& done,
                                 const std::vector<std::vector<double>>& running, uint64_t seed) {
  std::mt19937_64 rng(seed);
  if (dims.empty()) return {};
  const std::vector<Observation> obs = capForGp(usable(dims, done), rng);
  if (obs.size() < 2) return randomPoint(dims, rng);
  GpData g = standardized(dims, obs);
  const Point theta = fitHyperParameters(g, rng);
  if (theta.empty()) return randomPoint(dims, rng);
  double best = *std::min_element(g.y.begin(), g.y.end());
  std::vector<Point> pending = usablePoints(dims, running);
  if (pending.size() > 60) pending.erase(pending.begin(), pending.end() - 60);  // the latest 60
  if (!pending.empty()) {  // kriging believer: the GP mean as each running trial's value
    const Posterior fitted(g, theta);
    if (!fitted.ok) return randomPoint(dims, rng);
    std::vector<double> fantasies;
    for (const Point& p : pending) fantasies.push_back(fitted.predict(p).first);
    for (size_t i = 0; i < pending.size(); ++i) {
      g.x.push_back(pending[i]);
      g.y.push_back(fantasies[i]);
      best = std::min(best, fantasies[i]);
    }
  }
  const Posterior post(g, theta);
  if (!post.ok) return randomPoint(dims, rng);
  const auto acq = [&](const Point& x) {
    const auto [mean, var] = post.predict(x);
    return logExpectedImprovement(mean, var, best);
  };
  return maximizeAcquisition(dims, obs, acq, rng);
}

}  // namespace tbench::search
