#include "engine/sweep/SearchModels.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <utility>

namespace tbench::search {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
using Point = std::vector<double>;
using Matrix = std::vector<double>;  ///< row-major, square

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

// ---------------------------------------------------------------------------------------------
// Gaussian process: data, kernel, marginal likelihood

constexpr double kMinNoise = 1e-6;

struct GpData {
  std::vector<Dimension> dims;
  std::vector<Point> x;
  std::vector<double> y;  ///< standardized
};

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

// ---------------------------------------------------------------------------------------------
// Random forest importance

struct ForestData {
  std::vector<Dimension> dims;
  std::vector<Point> x;
  std::vector<double> y;  ///< standardized
  size_t minLeaf = 2;     ///< 1 below 6 observations, so that 3 can still split
};

struct Split {
  double gain = 0;
  size_t feature = 0;
  std::vector<size_t> left, right;
};

/// The ordering key of each sample of the node for `feature`: the coordinate, or for a
/// categorical dimension the mean y of its category in the node (then the category).
std::vector<std::pair<double, double>> splitKeys(const ForestData& f,
                                                 const std::vector<size_t>& idx, size_t feature) {
  std::vector<std::pair<double, double>> keys(idx.size());
  const int choices = f.dims[feature].choices;
  if (choices <= 0) {
    for (size_t i = 0; i < idx.size(); ++i) keys[i] = {f.x[idx[i]][feature], 0.0};
    return keys;
  }
  std::vector<double> sum(choices, 0.0), count(choices, 0.0);
  for (size_t i : idx) {
    const int c = cellOf(f.x[i][feature], choices);
    sum[c] += f.y[i], count[c] += 1;
  }
  for (size_t i = 0; i < idx.size(); ++i) {
    const int c = cellOf(f.x[idx[i]][feature], choices);
    keys[i] = {sum[c] / count[c], static_cast<double>(c)};
  }
  return keys;
}

/// The best split of the node on one feature (variance reduction x samples); gain 0 when none.
Split bestSplitOn(const ForestData& f, const std::vector<size_t>& idx, size_t feature) {
  const std::vector<std::pair<double, double>> keys = splitKeys(f, idx, feature);
  std::vector<size_t> order(idx.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return keys[a] != keys[b] ? keys[a] < keys[b] : idx[a] != idx[b] ? idx[a] < idx[b] : a < b;
  });
  const size_t n = idx.size();
  double total = 0, totalSq = 0;
  for (size_t i : idx) total += f.y[i], totalSq += f.y[i] * f.y[i];
  const double sse = totalSq - total * total / static_cast<double>(n);
  Split best;
  double sum = 0, sumSq = 0;
  size_t cut = 0;
  for (size_t i = 1; i < n; ++i) {
    const double y = f.y[idx[order[i - 1]]];
    sum += y, sumSq += y * y;
    if (i < f.minLeaf || n - i < f.minLeaf || keys[order[i - 1]] == keys[order[i]]) continue;
    const double ni = static_cast<double>(i), nr = static_cast<double>(n - i);
    const double gain =
        sse - (sumSq - sum * sum / ni) - ((totalSq - sumSq) - (total - sum) * (total - sum) / nr);
    if (gain > best.gain) best.gain = gain, cut = i;
  }
  if (cut == 0) return best;
  best.feature = feature;
  for (size_t i = 0; i < n; ++i) (i < cut ? best.left : best.right).push_back(idx[order[i]]);
  return best;
}

/// Grows a tree on the samples `idx` (with repeats), adding each split's gain to `importance`.
void growTree(const ForestData& f, const std::vector<size_t>& idx, std::vector<double>& importance,
              int depth) {
  if (idx.size() < 2 * f.minLeaf || depth > 64) return;
  Split best;
  for (size_t j = 0; j < f.dims.size(); ++j) {
    Split s = bestSplitOn(f, idx, j);
    if (s.gain > best.gain) best = std::move(s);
  }
  if (!(best.gain > 1e-12)) return;
  importance[best.feature] += best.gain;
  growTree(f, best.left, importance, depth + 1);
  growTree(f, best.right, importance, depth + 1);
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma),
        sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (!(saa > 1e-300) || !(sbb > 1e-300)) return 0;
  return std::clamp(sab / std::sqrt(saa * sbb), -1.0, 1.0);
}

/// Pearson's correlation of y with dimension j; for a categorical one, the category one-hot
/// that correlates most in absolute value.
double correlationOf(const ForestData& f, size_t j) {
  const int choices = f.dims[j].choices;
  std::vector<double> column(f.x.size());
  if (choices <= 0) {
    for (size_t i = 0; i < f.x.size(); ++i) column[i] = f.x[i][j];
    return pearson(column, f.y);
  }
  double best = 0;
  for (int c = 0; c < choices; ++c) {
    for (size_t i = 0; i < f.x.size(); ++i) column[i] = cellOf(f.x[i][j], choices) == c ? 1.0 : 0.0;
    const double r = pearson(column, f.y);
    if (std::abs(r) > std::abs(best)) best = r;
  }
  return best;
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

Importance parameterImportance(const std::vector<Dimension>& dims,
                               const std::vector<Observation>& obs, uint64_t seed) {
  Importance result{std::vector<double>(dims.size(), 0.0), std::vector<double>(dims.size(), 0.0)};
  const std::vector<Observation> data = usable(dims, obs);
  if (data.size() < 3 || dims.empty()) return result;
  ForestData f{dims, {}, {}, data.size() < 6 ? size_t{1} : size_t{2}};
  for (const Observation& o : data) f.x.push_back(o.x), f.y.push_back(o.y);
  GpData scaled = standardized(dims, data);  // the same standardization
  f.y = scaled.y;
  if (std::all_of(f.y.begin(), f.y.end(), [&](double v) { return v == f.y.front(); }))
    return result;
  std::mt19937_64 rng(seed);
  const size_t n = data.size();
  for (int tree = 0; tree < 100; ++tree) {
    std::vector<size_t> sample(n);
    for (size_t& i : sample) i = uniformIndex(rng, n);
    std::vector<double> treeImportance(dims.size(), 0.0);
    growTree(f, sample, treeImportance, 0);
    const double total = std::accumulate(treeImportance.begin(), treeImportance.end(), 0.0);
    if (!(total > 0)) continue;
    for (size_t j = 0; j < dims.size(); ++j) result.importance[j] += treeImportance[j] / total;
  }
  const double total = std::accumulate(result.importance.begin(), result.importance.end(), 0.0);
  for (double& v : result.importance) v = total > 0 ? v / total : 0.0;
  for (size_t j = 0; j < dims.size(); ++j) result.correlation[j] = correlationOf(f, j);
  return result;
}

}  // namespace tbench::search
