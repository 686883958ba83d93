// SweepParameter (Sweep.h): W&B's distributions through their quantile functions (params.py
// ppf), the coordinates the search models see, and what grid enumerates.
#include "engine/sweep/Sweep.h"

#include <algorithm>
#include <cmath>

#include "engine/sweep/SweepDetail.h"

namespace tbench {
using nlohmann::json;

namespace sweep_detail {

bool isBeta(const std::string& d) { return d == "beta" || d == "q_beta"; }

double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace sweep_detail

using namespace sweep_detail;

namespace {

/// W&B's rounding: numpy.round (half to even). A difference: here the value is an integer
/// whenever q is a whole number (q 1, 8, 8.0 or q omitted), where W&B gives an integer only for
/// a q written as an integer (its default q is 1.0, so an omitted q gives floats there): a
/// q_ distribution on an integer key (batch_size, a width) then yields what the key takes.
json quantize(double value, double q) {
  const double r = std::nearbyint(value / q) * q;
  if (std::floor(q) == q) return static_cast<int64_t>(std::llround(r));
  return r;
}

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

/// The standard normal's quantile: Acklam's rational approximation, refined by one Halley step
/// (relative error ~1e-15).
double normalQuantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  p = std::clamp(p, 1e-300, 1.0 - 1e-16);
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - 0.02425) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = normalCdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, Numerical Recipes'
/// betacf).
double incompleteBeta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const auto fraction = [](double x, double a, double b) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (std::abs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 300; ++m) {
      for (int pass = 0; pass < 2; ++pass) {
        const double num = pass == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                     : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + num * d;
        d = 1 / (std::abs(d) < tiny ? tiny : d);
        c = 1 + num / c;
        c = std::abs(c) < tiny ? tiny : c;
        h *= d * c;
        if (pass == 1 && std::abs(d * c - 1) < 1e-15) return h;
      }
    }
    return h;
  };
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * fraction(x, a, b) / a;
  return 1 - front * fraction(1 - x, b, a) / b;
}

/// Beta(a, b)'s quantile, by bisection of I_x(a, b) (60 halvings: below a double's resolution).
double betaQuantile(double u, double a, double b) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (incompleteBeta(mid, a, b) < u ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

/// numpy.arange(min, max, q): W&B's grid of a q_uniform; integers when all three are.

std::vector<json> arange(const SweepParameter& p, bool integers) {
  std::vector<json> values;
  const auto n = static_cast<int64_t>(std::ceil((p.max - p.min) / p.q));
  for (int64_t i = 0; i < n && i < kMaxGridTrials + 1; ++i) {
    const double v = p.min + static_cast<double>(i) * p.q;
    if (integers) {
      values.emplace_back(static_cast<int64_t>(std::llround(v)));
    } else {
      values.emplace_back(v);
    }
  }
  return values;
}

}  // namespace

namespace sweep_detail {

std::vector<json> gridValues(const SweepParameter& p) {
  if (p.distribution == "int_uniform") {
    std::vector<json> values;
    for (auto v = static_cast<int64_t>(p.min); v <= static_cast<int64_t>(p.max); ++v) {
      values.emplace_back(v);
    }
    return values;
  }
  if (p.distribution == "q_uniform") {
    const bool integers =
        std::floor(p.min) == p.min && std::floor(p.max) == p.max && std::floor(p.q) == p.q;
    return arange(p, integers);
  }
  return p.values;
}

}  // namespace sweep_detail

json SweepParameter::valueAt(double u) const {
  const std::string& d = distribution;
  u = std::clamp(u, 0.0, 1.0);
  if (d == "constant") return values.front();
  if (d == "categorical") {
    const auto n = static_cast<double>(values.size());
    return values[std::min(values.size() - 1, static_cast<size_t>(u * n))];
  }
  if (d == "categorical_w_probabilities") {
    double sum = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      sum += probabilities[i];
      if (u < sum) return values[i];
    }
    return values.back();
  }
  if (d == "int_uniform") {
    const auto lo = static_cast<int64_t>(min), hi = static_cast<int64_t>(max);
    const auto span = static_cast<double>(hi - lo + 1);
    return lo + std::min(hi - lo, static_cast<int64_t>(u * span));
  }
  const double inner = std::clamp(u, 1e-12, 1.0 - 1e-12);  // the unbounded ones' tails
  if (d == "uniform") return min + u * (max - min);
  if (d == "q_uniform") return quantize(min + u * (max - min), q);
  if (d == "log_uniform") return std::exp(min + u * (max - min));
  if (d == "q_log_uniform") return quantize(std::exp(min + u * (max - min)), q);
  // inv_log_uniform: W&B's exp(-uniform.ppf(1 - u, min, max - min)): log(1/X) uniform.
  if (d == "inv_log_uniform") return std::exp(-(min + (1 - u) * (max - min)));
  const double logMin = std::log(std::max(min, 1e-300)), logMax = std::log(std::max(max, 1e-300));
  if (d == "log_uniform_values") return std::exp(logMin + u * (logMax - logMin));
  if (d == "q_log_uniform_values") return quantize(std::exp(logMin + u * (logMax - logMin)), q);
  if (d == "inv_log_uniform_values") return std::exp(-(-logMax + (1 - u) * (logMax - logMin)));
  if (isBeta(d)) {
    const double x = betaQuantile(u, a, b);
    return d == "beta" ? json(x) : quantize(x, q);
  }
  const double z = mu + sigma * normalQuantile(inner);
  if (d == "normal") return z;
  if (d == "q_normal") return quantize(z, q);
  if (d == "log_normal") return std::exp(z);
  return quantize(std::exp(z), q);  // q_log_normal
}

double SweepParameter::coordinateOf(const json& value) const {
  const std::string& d = distribution;
  if (d == "constant") return 0.5;
  if (d == "categorical" || d == "categorical_w_probabilities") {
    const auto it = std::find(values.begin(), values.end(), value);
    const auto k = static_cast<double>(it == values.end() ? 0 : it - values.begin());
    if (d == "categorical") return (k + 0.5) / static_cast<double>(values.size());
    double before = 0;
    for (size_t i = 0; i < static_cast<size_t>(k); ++i) before += probabilities[i];
    return before + probabilities[static_cast<size_t>(k)] / 2;
  }
  if (!value.is_number()) return 0.5;
  const double v = value.get<double>();
  const auto ratio = [](double x, double lo, double hi) {
    return hi > lo ? std::clamp((x - lo) / (hi - lo), 0.0, 1.0) : 0.5;
  };
  const auto safeLog = [](double x) { return std::log(std::max(x, 1e-300)); };
  if (d == "int_uniform") return ratio(v + 0.5, min, max + 1);
  if (d == "uniform" || d == "q_uniform") return ratio(v, min, max);
  if (d == "log_uniform" || d == "q_log_uniform") return ratio(safeLog(v), min, max);
  if (d == "log_uniform_values" || d == "q_log_uniform_values") {
    return ratio(safeLog(v), safeLog(min), safeLog(max));
  }
  if (d == "inv_log_uniform") return 1 - ratio(-safeLog(v), min, max);
  if (d == "inv_log_uniform_values") return 1 - ratio(-safeLog(v), -safeLog(max), -safeLog(min));
  if (isBeta(d)) return incompleteBeta(v, a, b);
  if (d == "normal" || d == "q_normal") return normalCdf((v - mu) / sigma);
  return normalCdf((safeLog(v) - mu) / sigma);  // log_normal, q_log_normal
}

int SweepParameter::choices() const {
  if (distribution == "categorical" || distribution == "categorical_w_probabilities") {
    return static_cast<int>(values.size());
  }
  if (distribution == "int_uniform") return static_cast<int>(max - min + 1);
  return 0;
}

}  // namespace tbench
