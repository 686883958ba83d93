#include "engine/sweep/Sweep.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "engine/project/JsonReader.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectFiles.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/SearchModels.h"
#include "engine/sweep/SweepYaml.h"

namespace tbench {
namespace {

using nlohmann::json;

const std::set<std::string> kSweepKeys = {
    "format", "name", "description", "project", "method", "metric", "parameters", "run_cap", "seed",
    "early_terminate",
    // W&B's keys for how W&B runs a trial: recognised, noted (Note [Sweeps]).
    "program", "command", "entity", "controller"};
/// W&B Launch's keys: a trial here is always towerbench-cli train of the base project.
const std::set<std::string> kLaunchKeys = {"job",        "image_uri", "scheduler",
                                           "apiVersion", "kind",      "metrics"};
const std::vector<std::string> kDistributions = {"constant",
                                                 "categorical",
                                                 "categorical_w_probabilities",
                                                 "int_uniform",
                                                 "uniform",
                                                 "q_uniform",
                                                 "log_uniform",
                                                 "log_uniform_values",
                                                 "q_log_uniform",
                                                 "q_log_uniform_values",
                                                 "inv_log_uniform",
                                                 "inv_log_uniform_values",
                                                 "normal",
                                                 "q_normal",
                                                 "log_normal",
                                                 "q_log_normal",
                                                 "beta",
                                                 "q_beta"};

/// The most trials a grid may enumerate.
constexpr int64_t kMaxGridTrials = 100000;

bool known(const std::string& distribution) {
  return std::find(kDistributions.begin(), kDistributions.end(), distribution) !=
         kDistributions.end();
}

bool isRange(const std::string& d) {
  return d == "int_uniform" || d == "uniform" || d == "q_uniform" || d == "log_uniform" ||
         d == "log_uniform_values" || d == "q_log_uniform" || d == "q_log_uniform_values" ||
         d == "inv_log_uniform" || d == "inv_log_uniform_values";
}
bool isNormal(const std::string& d) {
  return d == "normal" || d == "q_normal" || d == "log_normal" || d == "q_log_normal";
}
bool isBeta(const std::string& d) { return d == "beta" || d == "q_beta"; }
bool isQuantized(const std::string& d) { return d.rfind("q_", 0) == 0; }
bool boundsAreValues(const std::string& d) {
  return d == "log_uniform_values" || d == "q_log_uniform_values" || d == "inv_log_uniform_values";
}

/// The keys each distribution takes (W&B's schema: additionalProperties false).
std::set<std::string> keysOf(const std::string& d) {
  std::set<std::string> keys = {"distribution"};
  if (d == "constant") keys.insert("value");
  if (d == "categorical") keys.insert("values");
  if (d == "categorical_w_probabilities") keys.insert({"values", "probabilities"});
  if (isRange(d)) keys.insert({"min", "max"});
  if (isNormal(d)) keys.insert({"mu", "sigma"});
  if (isBeta(d)) keys.insert({"a", "b"});
  if (isQuantized(d)) keys.insert("q");
  return keys;
}

/// W&B's inference: value -> constant, values -> categorical (with probabilities:
/// categorical_w_probabilities), integer bounds -> int_uniform, other bounds -> uniform.
/// Everything else needs its distribution named ("" here).
std::string distributionOf(const json& p) {
  if (p.contains("distribution") && p["distribution"].is_string()) return p["distribution"];
  if (p.contains("value")) return "constant";
  if (p.contains("values")) {
    return p.contains("probabilities") ? "categorical_w_probabilities" : "categorical";
  }
  if (p.contains("min") || p.contains("max")) {
    const bool ints =
        p.value("min", json(0)).is_number_integer() && p.value("max", json(0)).is_number_integer();
    return ints ? "int_uniform" : "uniform";
  }
  return "";
}

std::string at(const std::string& path, const std::string& key) { return path + "." + key; }

std::string distributionList() {
  std::string list;
  for (const auto& k : kDistributions) list += (list.empty() ? "" : ", ") + k;
  return list;
}

void checkParameter(const std::string& name, const json& p, const std::string& method,
                    std::vector<ProjectIssue>& issues) {
  const std::string path = "$.parameters." + name;
  const auto problem = [&](const std::string& where, const std::string& message) {
    issues.push_back({where, message});
  };
  if (name.empty()) problem("$.parameters", "a parameter needs a key path of the project");
  if (!p.is_object()) {
    problem(path, "expected an object with value, values, min/max or a distribution");
    return;
  }
  for (const char* key : {"min", "max", "mu", "sigma", "q", "a", "b"}) {
    if (p.contains(key) && !p[key].is_number()) problem(at(path, key), "must be a number");
  }
  if (p.contains("distribution") && !p["distribution"].is_string()) {
    problem(at(path, "distribution"), "must be a distribution's name");
    return;
  }
  const std::string d = distributionOf(p);
  if (d.empty()) {
    if (p.contains("mu") || p.contains("sigma") || p.contains("a") || p.contains("b")) {
      problem(at(path, "distribution"),
              "required with mu/sigma or a/b (normal, log_normal, beta, ...), as in W&B");
    } else if (p.contains("q")) {
      problem(at(path, "q"), "q needs a q_ distribution (q_uniform, q_log_uniform_values, ...)");
    } else {
      problem(path, "give value, values, min and max, or a distribution");
    }
    return;
  }
  if (!known(d)) {
    problem(at(path, "distribution"),
            "unknown distribution \"" + d + "\" (" + distributionList() + ")");
    return;
  }
  const std::set<std::string> allowed = keysOf(d);
  for (const auto& [key, value] : p.items()) {
    if (allowed.count(key)) continue;
    std::string list;
    for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
    problem(at(path, key), key == "q" ? "q needs a q_ distribution (" + d + " takes " + list + ")"
                                      : "not a key of " + d + " (it takes " + list + ")");
  }
  const auto number = [&](const char* key) -> std::optional<double> {
    if (!p.contains(key) || !p[key].is_number()) return std::nullopt;  // reported above
    return p[key].get<double>();
  };
  if (d == "constant" && !p.contains("value")) problem(path, "constant needs \"value\"");
  if (d == "categorical" || d == "categorical_w_probabilities") {
    if (!p.contains("values") || !p["values"].is_array() || p["values"].empty()) {
      problem(at(path, "values"), "must be a non-empty list");
    }
  }
  if (d == "categorical_w_probabilities") {
    const json& pr = p.value("probabilities", json());
    if (!pr.is_array() || !p.value("values", json()).is_array() ||
        pr.size() != p["values"].size()) {
      problem(at(path, "probabilities"), "must be a list of numbers, one per value");
    } else {
      double sum = 0;
      bool ok = true;
      for (const json& x : pr) {
        ok = ok && x.is_number() && x.get<double>() >= 0;
        sum += x.is_number() ? x.get<double>() : 0;
      }
      if (!ok || std::abs(sum - 1.0) > 1e-6) {
        problem(at(path, "probabilities"), "must be numbers >= 0 that sum to 1");
      }
    }
  }
  if (isRange(d)) {
    const auto lo = number("min");
    const auto hi = number("max");
    if (!p.contains("min")) problem(at(path, "min"), d + " needs min and max");
    if (!p.contains("max")) problem(at(path, "max"), d + " needs min and max");
    if (lo && hi && *lo >= *hi) problem(at(path, "min"), "must be less than max (W&B's rule)");
    if (d == "int_uniform") {
      for (const char* key : {"min", "max"}) {
        if (p.contains(key) && !p[key].is_number_integer()) {
          problem(at(path, key), "int_uniform needs integer bounds");
        }
      }
    }
    if (boundsAreValues(d) && lo && *lo <= 0) {
      problem(at(path, "min"), d + " needs min > 0 (its values are the bounds, not exponents)");
    }
  }
  if (isNormal(d)) {
    if (const auto sigma = number("sigma"); sigma && *sigma <= 0) {
      problem(at(path, "sigma"), "must be > 0");
    }
  }
  if (isBeta(d)) {
    for (const char* key : {"a", "b"}) {
      if (const auto v = number(key); v && *v <= 0) problem(at(path, key), "must be > 0");
    }
  }
  if (const auto q = number("q"); q && *q <= 0) problem(at(path, "q"), "must be > 0");
  if (method == "grid" && d != "constant" && d != "categorical" && d != "int_uniform" &&
      d != "q_uniform") {
    problem(path,
            "grid search enumerates values (value, values, int_uniform or q_uniform, as "
            "W&B's grid); " +
                d + " needs method random, bayes or tpe");
  }
}

/// W&B's parameters with nested ones ({"model": {"parameters": {"hidden": ...}}}) flattened to
/// their key paths ("model.hidden"), in W&B's order (sorted at each level). Problems to `issues`.
void flattenParameters(const json& parameters, const std::string& prefix,
                       std::vector<std::pair<std::string, json>>& out,
                       std::vector<ProjectIssue>& issues) {
  for (const auto& [key, p] : parameters.items()) {
    const std::string name = prefix + key;
    if (p.is_object() && p.contains("parameters")) {
      const std::string path = "$.parameters." + name;
      for (const auto& [k, v] : p.items()) {
        if (k != "parameters") {
          issues.push_back({at(path, k), "a nested parameter takes \"parameters\" alone"});
        }
      }
      if (!p["parameters"].is_object() || p["parameters"].empty()) {
        issues.push_back({at(path, "parameters"), "must be an object of parameters"});
        continue;
      }
      flattenParameters(p["parameters"], name + ".", out, issues);
      continue;
    }
    for (const auto& [seen, unused] : out) {
      if (seen == name) {
        issues.push_back({"$.parameters." + name, "given twice (nested and with dots)"});
      }
    }
    out.emplace_back(name, p);
  }
}

/// Uniform in [0, 1) from the generator's raw output (53 bits), the same on every platform.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// W&B's rounding: numpy.round (half to even), integers when q is one.
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

/// What grid enumerates of `p`.
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

std::string trialList(const std::vector<int64_t>& trials, int64_t total) {
  if (static_cast<int64_t>(trials.size()) == total && total > 1) {
    return "all " + std::to_string(total) + " trials";
  }
  std::string text = trials.size() == 1 ? "trial " : "trials ";
  for (size_t i = 0; i < trials.size() && i < 8; ++i) {
    text += (i ? ", " : "") + std::to_string(trials[i]);
  }
  if (trials.size() > 8) text += ", ... (" + std::to_string(trials.size()) + ")";
  return text;
}

}  // namespace

SweepError::SweepError(const std::string& source, std::vector<ProjectIssue> issues)
    : InputError([&] {
        std::string text = source + ": invalid sweep:";
        for (const auto& issue : issues) text += "\n  " + issue.toString();
        return text;
      }()),
      issues_(std::move(issues)) {}

std::string SweepSpec::projectPath() const {
  const std::filesystem::path p(project);
  if (p.is_absolute() || baseDir.empty()) return project;
  return (std::filesystem::path(baseDir) / p).lexically_normal().string();
}

bool SweepSpec::sequential() const {
  return method == "bayes" || method == "tpe" || (method == "random" && runCap == 0);
}

bool SweepMetric::reaches(double value) const {
  if (!target || !std::isfinite(value)) return false;
  return maximize ? value >= *target : value <= *target;
}

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

namespace {

/// The problems of the top-level keys, the metric and early_terminate.
void checkSweepKeys(const json& doc, const std::string& method, std::vector<ProjectIssue>& issues) {
  for (const auto& [key, value] : doc.items()) {
    if (kLaunchKeys.count(key)) {
      issues.push_back({"$." + key,
                        "W&B Launch's key: not used here (a trial is towerbench-cli "
                        "train of the base project, Note [The sweep queue])"});
    } else if (!kSweepKeys.count(key)) {
      issues.push_back({"$." + key, "unknown key"});
    }
  }
  for (const char* key : {"name", "description", "program", "entity", "project"}) {
    if (doc.contains(key) && !doc[key].is_string()) {
      issues.push_back({std::string("$.") + key, "must be a string"});
    }
  }
  if (doc.contains("command") && !doc["command"].is_array()) {
    issues.push_back({"$.command", "must be a list (W&B's command)"});
  }
  if (doc.contains("format") && doc["format"] != 1) {
    issues.push_back({"$.format", "must be 1"});
  }
  if (method != "grid" && method != "random" && method != "bayes" && method != "tpe") {
    issues.push_back(
        {"$.method",
         "must be \"grid\", \"random\", \"bayes\" or \"tpe\"" +
             std::string(method == "custom" ? " (W&B's custom needs W&B's server)" : "")});
  }
}

void checkMetric(const json& doc, std::vector<ProjectIssue>& issues) {
  if (!doc.contains("metric") || !doc["metric"].is_object() || !doc["metric"].contains("name") ||
      !doc["metric"]["name"].is_string()) {
    issues.push_back({"$.metric.name", "the metric that ranks trials is required"});
    return;
  }
  const json& m = doc["metric"];
  for (const auto& [key, value] : m.items()) {
    if (key != "name" && key != "goal" && key != "target" && key != "impute" &&
        key != "impute_while_running") {
      issues.push_back({"$.metric." + key, "unknown key (name, goal, target, impute)"});
    }
  }
  const json goal = m.value("goal", json("minimize"));
  if (goal != "minimize" && goal != "maximize") {
    issues.push_back({"$.metric.goal", "must be \"minimize\" or \"maximize\""});
  }
  if (m.contains("target") && !m["target"].is_number()) {
    issues.push_back({"$.metric.target", "must be a number"});
  }
  const json impute = m.value("impute", json("worst"));
  if (impute != "worst" && impute != "best" && impute != "latest") {
    issues.push_back({"$.metric.impute", "must be \"worst\", \"best\" or \"latest\""});
  }
  // bayes and tpe already count a running trial (W&B's impute_while_running appends a value to
  // its history; here the model imputes it, SweepSearch.h): only its default is taken.
  if (m.contains("impute_while_running") && m["impute_while_running"] != "false" &&
      m["impute_while_running"] != false) {
    issues.push_back({"$.metric.impute_while_running",
                      "only \"false\": bayes and tpe impute a running trial from their model"});
  }
}

void checkEarlyTerminate(const json& e, std::vector<ProjectIssue>& issues) {
  if (!e.is_object() || e.value("type", json()) != "hyperband") {
    issues.push_back({"$.early_terminate.type", "must be \"hyperband\""});
    return;
  }
  for (const auto& [key, value] : e.items()) {
    if (key != "type" && key != "min_iter" && key != "eta" && key != "max_iter" && key != "s" &&
        key != "strict") {
      issues.push_back({"$.early_terminate." + key, "unknown key"});
    }
  }
  const auto positiveInt = [&](const char* key) {
    if (e.contains(key) && (!e[key].is_number_integer() || e[key].get<int64_t>() < 1)) {
      issues.push_back({std::string("$.early_terminate.") + key, "must be an integer >= 1"});
    }
  };
  positiveInt("min_iter");
  positiveInt("max_iter");
  if (e.contains("s") && (!e["s"].is_number() || e["s"].get<double>() < 1 ||
                          std::floor(e["s"].get<double>()) != e["s"].get<double>())) {
    issues.push_back({"$.early_terminate.s", "must be a whole number >= 1"});
  }
  if (!e.contains("min_iter") && !e.contains("max_iter")) {
    issues.push_back({"$.early_terminate.min_iter",
                      "give min_iter (the first band), or max_iter and s (bands below it)"});
  }
  if (e.contains("max_iter") && !e.contains("s")) {
    issues.push_back({"$.early_terminate.s", "max_iter needs s, the number of bands below it"});
  }
  if (e.contains("eta") && (!e["eta"].is_number() || e["eta"].get<double>() <= 1)) {
    issues.push_back({"$.early_terminate.eta", "must be a number > 1"});
  }
  if (e.contains("strict") && !e["strict"].is_boolean()) {
    issues.push_back({"$.early_terminate.strict", "must be true or false"});
  }
  // W&B: "Bands must be an array of length at least 1".
  if (e.contains("max_iter") && e["max_iter"].is_number_integer() && e.contains("s") &&
      e.value("eta", json(3.0)).is_number() &&
      e["max_iter"].get<double>() / e.value("eta", 3.0) < 1) {
    issues.push_back({"$.early_terminate.max_iter",
                      "max_iter / eta < 1 gives no band: raise max_iter or lower eta"});
  }
}

/// grid's product, counted without enumerating it (an int_uniform range may be huge).
double gridCombinations(const std::vector<std::pair<std::string, json>>& parameters) {
  double combinations = 1;
  for (const auto& [name, p] : parameters) {
    if (!p.is_object()) continue;
    const std::string d = distributionOf(p);
    const auto num = [&](const char* key) { return p.value(key, json()).is_number(); };
    if (d == "categorical" && p.contains("values") && p["values"].is_array()) {
      combinations *= static_cast<double>(std::max<size_t>(1, p["values"].size()));
    } else if (d == "int_uniform" && p.value("min", json()).is_number_integer() &&
               p.value("max", json()).is_number_integer()) {
      combinations *= std::max(1.0, p["max"].get<double>() - p["min"].get<double>() + 1);
    } else if (d == "q_uniform" && num("min") && num("max") && p.value("q", 1.0) > 0) {
      combinations *= std::max(
          1.0, std::ceil((p["max"].get<double>() - p["min"].get<double>()) / p.value("q", 1.0)));
    }
  }
  return combinations;
}

}  // namespace

std::vector<ProjectIssue> validateSweepJson(const json& doc) {
  std::vector<ProjectIssue> issues;
  if (!doc.is_object()) return {{"$", "a sweep is an object (JSON or YAML)"}};
  const std::string method = doc.value("method", json("grid")).is_string()
                                 ? doc.value("method", std::string("grid"))
                                 : std::string();
  checkSweepKeys(doc, method, issues);
  checkMetric(doc, issues);
  std::vector<std::pair<std::string, json>> parameters;
  if (!doc.contains("parameters") || !doc["parameters"].is_object() || doc["parameters"].empty()) {
    issues.push_back({"$.parameters", "at least one parameter to vary is required"});
  } else {
    flattenParameters(doc["parameters"], "", parameters, issues);
    for (const auto& [name, p] : parameters) checkParameter(name, p, method, issues);
  }
  if (method == "grid" && gridCombinations(parameters) > static_cast<double>(kMaxGridTrials)) {
    issues.push_back(
        {"$.parameters", "grid search of " + std::to_string(gridCombinations(parameters)) +
                             " combinations: at most " + std::to_string(kMaxGridTrials) +
                             " (use method \"random\", \"bayes\" or \"tpe\")"});
  }
  if (doc.contains("run_cap") &&
      (!doc["run_cap"].is_number_integer() || doc["run_cap"].get<int64_t>() < 1)) {
    issues.push_back({"$.run_cap", "must be an integer >= 1"});
  }
  if (doc.contains("seed") &&
      (!doc["seed"].is_number_integer() ||
       (!doc["seed"].is_number_unsigned() && doc["seed"].get<int64_t>() < 0))) {
    issues.push_back({"$.seed", "must be an integer >= 0"});
  }
  if (doc.contains("early_terminate")) checkEarlyTerminate(doc["early_terminate"], issues);
  return issues;
}

namespace {

SweepParameter parameterOf(const std::string& name, const json& p) {
  SweepParameter parameter;
  parameter.path = name;
  parameter.distribution = distributionOf(p);
  if (p.contains("value")) parameter.values = {p["value"]};
  if (p.contains("values")) parameter.values = p["values"].get<std::vector<json>>();
  if (p.contains("probabilities")) {
    parameter.probabilities = p["probabilities"].get<std::vector<double>>();
  }
  parameter.min = p.value("min", 0.0);
  parameter.max = p.value("max", 0.0);
  parameter.mu = p.value("mu", 0.0);
  parameter.sigma = p.value("sigma", 1.0);
  parameter.a = p.value("a", 1.0);
  parameter.b = p.value("b", 1.0);
  parameter.q = p.value("q", 1.0);
  return parameter;
}

/// W&B's keys that change nothing here, said (Note [Sweeps]).
void noteWandbKeys(const json& doc, SweepSpec& s) {
  if (doc.contains("program")) {
    s.notes.push_back("program \"" + doc["program"].get<std::string>() +
                      "\" is W&B's way to start a trial; here each trial is towerbench-cli "
                      "train of the base project with the trial's values");
  }
  if (doc.contains("command")) {
    s.notes.push_back(
        "command is W&B's command line for a trial; here each trial is "
        "towerbench-cli train of the base project with the trial's values");
  }
  if (doc.contains("entity")) {
    s.notes.push_back("entity \"" + doc["entity"].get<std::string>() +
                      "\" names a W&B account: nothing is sent to W&B");
  }
  if (doc.contains("controller")) {
    s.notes.push_back("controller: trials are always run by this machine's queue");
  }
}

/// The sweep of a validated `doc`.
SweepSpec sweepOf(const json& doc, const std::string& source, const std::string& baseProject) {
  SweepSpec s;
  s.name = doc.value("name", std::string());
  s.method = doc.value("method", std::string("grid"));
  s.metric.name = doc["metric"]["name"].get<std::string>();
  s.metric.maximize = doc["metric"].value("goal", std::string("minimize")) == "maximize";
  if (doc["metric"].contains("target")) s.metric.target = doc["metric"]["target"].get<double>();
  s.metric.impute = doc["metric"].value("impute", std::string("worst"));
  std::vector<std::pair<std::string, json>> parameters;
  std::vector<ProjectIssue> unused;
  flattenParameters(doc["parameters"], "", parameters, unused);
  std::sort(parameters.begin(), parameters.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [name, p] : parameters) s.parameters.push_back(parameterOf(name, p));
  s.runCap = doc.value("run_cap", int64_t{0});
  s.seed = doc.value("seed", uint64_t{0});
  if (doc.contains("early_terminate")) {
    const json& e = doc["early_terminate"];
    HyperbandSpec h;
    h.minIter = e.value("min_iter", int64_t{1});
    h.eta = e.value("eta", 3.0);
    h.maxIter = e.value("max_iter", int64_t{0});
    h.s = static_cast<int64_t>(e.value("s", 0.0));
    h.strict = e.value("strict", true);
    s.earlyTerminate = h;
  }
  noteWandbKeys(doc, s);
  std::error_code error;
  if (std::filesystem::is_regular_file(source, error)) {
    s.baseDir = std::filesystem::absolute(source, error).parent_path().string();
  }
  s.project = baseProject.empty() ? doc.value("project", std::string()) : baseProject;
  if (!baseProject.empty()) {
    s.baseDir.clear();  // as given on the command line: relative to the working directory
    if (doc.contains("project")) {
      s.notes.push_back("project \"" + doc["project"].get<std::string>() +
                        "\" is not used: the base project is " + baseProject);
    }
  }
  return s;
}

/// Whether the sweep's `project` names a file (else, a W&B project name or nothing).
void checkProject(const json& doc, const SweepSpec& s, const std::string& baseProject,
                  std::vector<ProjectIssue>& issues) {
  if (!baseProject.empty()) return;  // the command line's
  if (s.project.empty()) {
    issues.push_back({"$.project", "the base project's file is required (or --base-project)"});
    return;
  }
  const std::filesystem::path path(s.projectPath());
  std::error_code error;
  if (s.baseDir.empty() || std::filesystem::exists(path, error)) return;  // read later
  const bool looksLikeFile = path.has_extension() || s.project.find('/') != std::string::npos;
  issues.push_back(
      {"$.project", looksLikeFile ? "cannot read the base project " + path.string()
                                  : "\"" + s.project +
                                        "\" is not a project file beside the sweep (a W&B project "
                                        "name?): give the base project with --base-project FILE"});
}

}  // namespace

SweepSpec sweepFromJson(const json& doc, const std::string& source,
                        const std::string& baseProject) {
  std::vector<ProjectIssue> issues = validateSweepJson(doc);
  if (!issues.empty()) throw SweepError(source, std::move(issues));
  try {
    SweepSpec s = sweepOf(doc, source, baseProject);
    checkProject(doc, s, baseProject, issues);
    if (!issues.empty()) throw SweepError(source, std::move(issues));
    return s;
  } catch (const nlohmann::json::exception& e) {
    // validateSweepJson checks every key read below; this is a bug, said with the file's name.
    throw SweepError(source, {{"$", e.what()}});
  }
}

json parseSweepText(const std::string& text, const std::string& path,
                    std::vector<ProjectIssue>& issues) {
  const std::string ext = std::filesystem::path(path).extension().string();
  const bool yamlName = ext == ".yaml" || ext == ".yml";
  if (!yamlName) {
    std::vector<ProjectIssue> jsonIssues;
    json doc = parseJsonText(text, jsonIssues);
    if (jsonIssues.empty()) return doc;
    if (ext == ".json") {
      issues = std::move(jsonIssues);
      return json();
    }
    // Neither named JSON nor YAML: YAML is tried too, and when both fail both are said.
    std::vector<ProjectIssue> yamlIssues;
    doc = yamlToJson(text, yamlIssues);
    if (yamlIssues.empty() && doc.is_object()) return doc;
    std::string why =
        "neither JSON nor YAML (sweep files are read as JSON, or as YAML when "
        "named .yaml or .yml): as JSON, " +
        jsonIssues.front().message;
    if (!yamlIssues.empty()) why += "; as YAML, " + yamlIssues.front().message;
    issues.push_back({"$", why});
    return json();
  }
  json doc = yamlToJson(text, issues);
  return doc;
}

SweepSpec loadSweepFile(const std::string& path, const std::string& baseProject) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    throw InputError("cannot read sweep file \"" + path +
                     "\": " + (in ? "it is a directory" : std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<ProjectIssue> issues;
  const json doc = parseSweepText(text.str(), path, issues);
  if (!issues.empty()) throw SweepError(path, std::move(issues));
  return sweepFromJson(doc, path, baseProject);
}

int64_t gridSize(const SweepSpec& sweep) {
  if (sweep.method != "grid") return 0;
  int64_t n = 1;
  for (const auto& p : sweep.parameters) n *= static_cast<int64_t>(gridValues(p).size());
  return n;
}

namespace {

std::string joinNames(const ScalarNames& scalars) {
  std::string text;
  for (const auto& name : scalars.names) text += (text.empty() ? "" : ", ") + name;
  for (const auto& prefix : scalars.prefixes) text += (text.empty() ? "" : ", ") + prefix + "*";
  return text;
}

}  // namespace

std::string sweepMetricNote(const SweepSpec& sweep, const Project& base) {
  const ScalarNames scalars = scalarNamesOf(base);
  if (scalars.named(sweep.metric.name) || scalars.unknown.empty()) return "";
  std::string unknown;
  for (const auto& u : scalars.unknown) unknown += (unknown.empty() ? "" : ", ") + u;
  return str("no built-in part of the project puts the metric \"", sweep.metric.name,
             "\"; it can only come from ", unknown,
             ", which cannot be checked before a trial runs (the built-in parts put ",
             joinNames(scalars), ")");
}

json randomTrialValues(const SweepSpec& sweep, int64_t index) {
  // The index-th draw of the seed's sequence: every trial takes one uniform per parameter, so
  // trial k is the same whether the sweep lists its trials ahead (run_cap) or makes them one
  // at a time.
  std::mt19937_64 rng(sweep.seed);
  const auto perTrial = static_cast<unsigned long long>(sweep.parameters.size());
  rng.discard(perTrial * static_cast<unsigned long long>(index));
  json values = json::object();
  for (const auto& p : sweep.parameters) values[p.path] = p.valueAt(unit(rng));
  return values;
}

namespace {

/// The problems of trials, each said once with the trials that have it.
class TrialProblems {
 public:
  void add(const std::string& text, int64_t trial) {
    auto [it, inserted] = problems_.try_emplace(text);
    if (inserted) order_.push_back(text);
    it->second.push_back(trial);
  }
  bool empty() const { return problems_.empty(); }
  /// Throws the SweepError of every problem (trial counts out of `total`).
  void raise(const SweepSpec& sweep, int64_t total) {
    if (problems_.empty()) return;
    std::vector<ProjectIssue> issues;
    for (const auto& text : order_) issues.push_back({trialList(problems_[text], total), text});
    throw SweepError(sweep.name.empty() ? "sweep" : sweep.name, std::move(issues));
  }

 private:
  std::map<std::string, std::vector<int64_t>> problems_;  // "path: message" -> trials
  std::vector<std::string> order_;
};

/// Trial `index` with `values`, its problems to `problems` (validated as `towerbench-cli
/// validate` would).
SweepTrial buildTrial(const SweepSpec& sweep, const json& baseProject, int64_t index,
                      const json& values, TrialProblems& problems) {
  SweepTrial t;
  t.index = index;
  t.values = values;
  t.project = baseProject;
  bool applied = true;
  for (const auto& p : sweep.parameters) {
    try {
      applyProjectOverride(t.project, p.path + "=" + t.values[p.path].dump());
    } catch (const InputError& e) {
      problems.add("$.parameters." + p.path + ": not a key path of the project (" + e.what() + ")",
                   t.index);
      applied = false;
    }
  }
  if (!applied) return t;
  bool valid = true;
  for (const ProjectIssue& issue : validateProjectJson(t.project)) {
    std::string text = issue.toString();
    for (const auto& p : sweep.parameters) {
      const std::string keyPath = "$." + p.path;
      const bool within = issue.path.rfind(keyPath, 0) == 0 &&
                          (issue.path.size() == keyPath.size() ||
                           issue.path[keyPath.size()] == '.' || issue.path[keyPath.size()] == '[');
      if (within) text += " (from $.parameters." + p.path + ")";
    }
    problems.add(text, t.index);
    valid = false;
  }
  // Issue 34: a metric nothing puts ranks nothing and prunes nothing; refused when the
  // project's scalars are all known (Note [Scalars a project puts]).
  if (valid) {
    const ScalarNames scalars = scalarNamesOf(projectFromJson(t.project, sweep.projectPath()));
    if (!scalars.named(sweep.metric.name) && scalars.unknown.empty()) {
      problems.add(
          str("$.metric.name: no part of the project puts \"", sweep.metric.name,
              "\", so no trial could be ranked or pruned; its scalars are ", joinNames(scalars)),
          t.index);
    }
  }
  return t;
}

}  // namespace

SweepTrial makeTrial(const SweepSpec& sweep, const json& baseProject, int64_t index,
                     const json& values) {
  TrialProblems problems;
  SweepTrial t = buildTrial(sweep, baseProject, index, values, problems);
  problems.raise(sweep, index + 1);
  return t;
}

std::vector<SweepTrial> sweepTrials(const SweepSpec& sweep, const json& baseProject,
                                    int64_t firstOfSequential) {
  // The values of every trial.
  std::vector<json> chosen;
  if (sweep.method == "grid") {
    std::vector<std::vector<json>> axes;
    for (const auto& p : sweep.parameters) axes.push_back(gridValues(p));
    const int64_t total = gridSize(sweep);
    const int64_t count = sweep.runCap > 0 ? std::min(total, sweep.runCap) : total;
    for (int64_t i = 0; i < count; ++i) {
      json values = json::object();
      int64_t rest = i;  // mixed radix, the last parameter varies fastest
      std::vector<size_t> digits(axes.size());
      for (size_t a = axes.size(); a-- > 0;) {
        const auto n = static_cast<int64_t>(axes[a].size());
        digits[a] = static_cast<size_t>(rest % n);
        rest /= n;
      }
      for (size_t a = 0; a < axes.size(); ++a)
        values[sweep.parameters[a].path] = axes[a][digits[a]];
      chosen.push_back(std::move(values));
    }
  } else {
    // random with run_cap: all of them; a sequential sweep: the first ones, random in all three
    // methods (bayes and tpe start from random trials, SweepSearch.h).
    // bayes and tpe: their random start only (what follows depends on the results).
    int64_t count = !sweep.sequential() ? sweep.runCap
                    : sweep.method == "random"
                        ? firstOfSequential
                        : static_cast<int64_t>(std::min<size_t>(
                              firstOfSequential, search::searchStartupTrials(sweep.method)));
    if (sweep.runCap > 0) count = std::min(count, sweep.runCap);
    for (int64_t i = 0; i < count; ++i) chosen.push_back(randomTrialValues(sweep, i));
  }
  // Each trial's project, validated; problems are gathered over all trials and reported once
  // each, with the trials that have them.
  TrialProblems problems;
  std::vector<SweepTrial> trials;
  for (size_t i = 0; i < chosen.size(); ++i) {
    trials.push_back(buildTrial(sweep, baseProject, static_cast<int64_t>(i), chosen[i], problems));
  }
  problems.raise(sweep, static_cast<int64_t>(trials.size()));
  return trials;
}

SweepPlan planSweep(const SweepSpec& sweep, const json& baseProject) {
  SweepPlan plan;
  plan.trials = sweepTrials(sweep, baseProject);
  for (const SweepTrial& t : plan.trials) {
    plan.maxEpochs.push_back(projectFromJson(t.project, sweep.projectPath()).maxEpoch);
    plan.longestEpochs = std::max(plan.longestEpochs, plan.maxEpochs.back());
  }
  plan.gridCombinations = gridSize(sweep);
  plan.totalTrials = !sweep.sequential() ? static_cast<int64_t>(plan.trials.size())
                     : sweep.runCap > 0  ? sweep.runCap
                                         : -1;
  if (sweep.earlyTerminate) plan.bands = hyperbandBands(*sweep.earlyTerminate, plan.longestEpochs);
  if (!plan.trials.empty()) {
    const std::string note =
        sweepMetricNote(sweep, projectFromJson(plan.trials.front().project, sweep.projectPath()));
    if (!note.empty()) plan.notes.push_back(note);
  }
  plan.notes.insert(plan.notes.end(), sweep.notes.begin(), sweep.notes.end());
  if (sweep.sequential()) {
    std::string how = sweep.method == "random"
                          ? "random search without run_cap"
                          : sweep.method + " makes each trial from the results so far";
    how += sweep.runCap > 0 ? ", up to run_cap" : ", until stopped";
    if (sweep.metric.target) how += " or until a trial reaches metric.target";
    plan.notes.push_back(
        how + "; " +
        (sweep.method == "random"
             ? "the first " + std::to_string(plan.trials.size()) + " trial(s) are listed"
             : "its first " + std::to_string(plan.trials.size()) +
                   " trial(s) are random search's, listed"));
  } else if (sweep.metric.target) {
    plan.notes.push_back("no trial starts after one reaches metric.target");
  }
  if (sweep.earlyTerminate && !sweep.earlyTerminate->strict) {
    plan.notes.push_back("hyperband strict: false: a trial is judged by its best value so far");
  }
  return plan;
}

}  // namespace tbench
