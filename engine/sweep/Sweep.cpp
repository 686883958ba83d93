#include "engine/sweep/Sweep.h"

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

namespace tbench {
namespace {

using nlohmann::json;

const std::set<std::string> kSweepKeys = {"format", "name",           "description", "project",
                                          "method", "metric",         "parameters",  "run_cap",
                                          "seed",   "early_terminate"};
const std::set<std::string> kParameterKeys = {"value", "values", "min", "max",
                                              "mu",    "sigma",  "q",   "distribution"};
const std::vector<std::string> kDistributions = {"constant",
                                                 "categorical",
                                                 "int_uniform",
                                                 "uniform",
                                                 "q_uniform",
                                                 "log_uniform",
                                                 "log_uniform_values",
                                                 "q_log_uniform_values",
                                                 "inv_log_uniform_values",
                                                 "normal",
                                                 "q_normal",
                                                 "log_normal",
                                                 "q_log_normal"};

/// The most trials a grid may enumerate.
constexpr int64_t kMaxGridTrials = 100000;

bool known(const std::string& distribution) {
  for (const auto& d : kDistributions) {
    if (d == distribution) return true;
  }
  return false;
}

bool isRange(const std::string& d) {
  return d == "int_uniform" || d == "uniform" || d == "q_uniform" || d == "log_uniform" ||
         d == "log_uniform_values" || d == "q_log_uniform_values" || d == "inv_log_uniform_values";
}
bool isNormal(const std::string& d) {
  return d == "normal" || d == "q_normal" || d == "log_normal" || d == "q_log_normal";
}
bool isQuantized(const std::string& d) { return d.rfind("q_", 0) == 0; }

/// W&B's inference: value -> constant, values -> categorical, integer bounds -> int_uniform,
/// other bounds -> uniform, mu/sigma -> normal.
std::string distributionOf(const json& p) {
  if (p.contains("distribution") && p["distribution"].is_string()) return p["distribution"];
  if (p.contains("value")) return "constant";
  if (p.contains("values")) return "categorical";
  if (p.contains("min") || p.contains("max")) {
    const bool ints =
        p.value("min", json(0)).is_number_integer() && p.value("max", json(0)).is_number_integer();
    return ints ? "int_uniform" : "uniform";
  }
  if (p.contains("mu") || p.contains("sigma")) return "normal";
  return "";
}

std::string at(const std::string& path, const std::string& key) { return path + "." + key; }

void checkParameter(const std::string& name, const json& p, const std::string& method,
                    std::vector<ProjectIssue>& issues) {
  const std::string path = "$.parameters." + name;
  const auto problem = [&](const std::string& where, const std::string& message) {
    issues.push_back({where, message});
  };
  if (name.empty()) problem("$.parameters", "a parameter needs a key path of the project");
  if (!p.is_object()) {
    problem(path, "expected an object with value, values or min/max");
    return;
  }
  for (const auto& [key, value] : p.items()) {
    if (!kParameterKeys.count(key)) {
      problem(at(path, key), "unknown key (value, values, min, max, mu, sigma, q, distribution)");
    }
  }
  for (const char* key : {"min", "max", "mu", "sigma", "q"}) {
    if (p.contains(key) && !p[key].is_number()) problem(at(path, key), "must be a number");
  }
  if (p.contains("distribution") && !p["distribution"].is_string()) {
    problem(at(path, "distribution"), "must be a distribution's name");
    return;
  }
  const std::string d = distributionOf(p);
  if (d.empty()) {
    problem(path, "give value, values, or min and max");
    return;
  }
  if (!known(d)) {
    std::string list;
    for (const auto& k : kDistributions) list += (list.empty() ? "" : ", ") + k;
    problem(at(path, "distribution"), "unknown distribution \"" + d + "\" (" + list + ")");
    return;
  }
  const auto number = [&](const char* key) -> std::optional<double> {
    if (!p.contains(key) || !p[key].is_number()) return std::nullopt;  // reported above
    return p[key].get<double>();
  };
  if (d == "constant" && !p.contains("value")) problem(path, "constant needs \"value\"");
  if (d == "categorical" &&
      (!p.contains("values") || !p["values"].is_array() || p["values"].empty())) {
    problem(at(path, "values"), "must be a non-empty list");
  }
  if (isRange(d)) {
    const auto lo = number("min");
    const auto hi = number("max");
    if (!p.contains("min")) problem(at(path, "min"), d + " needs min and max");
    if (!p.contains("max")) problem(at(path, "max"), d + " needs min and max");
    if (lo && hi && *lo > *hi) problem(at(path, "min"), "must not exceed max");
    if (d == "int_uniform") {
      for (const char* key : {"min", "max"}) {
        if (p.contains(key) && !p[key].is_number_integer()) {
          problem(at(path, key), "int_uniform needs integer bounds");
        }
      }
    }
    if ((d == "log_uniform_values" || d == "q_log_uniform_values" ||
         d == "inv_log_uniform_values") &&
        lo && *lo <= 0) {
      problem(at(path, "min"), d + " needs min > 0 (its values are the bounds, not exponents)");
    }
  }
  if (isNormal(d)) {
    if (const auto sigma = number("sigma"); sigma && *sigma <= 0) {
      problem(at(path, "sigma"), "must be > 0");
    }
    number("mu");
  }
  if (const auto q = number("q"); q && *q <= 0) problem(at(path, "q"), "must be > 0");
  if (method == "grid" && d != "constant" && d != "categorical" && d != "int_uniform") {
    problem(path, "grid search enumerates values (value, values or int_uniform); " + d +
                      " needs method \"random\"");
  }
}

/// Uniform in [0, 1) from the generator's raw output (53 bits), the same on every platform.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double standardNormal(std::mt19937_64& rng) {
  // Box-Muller; 1 - u keeps the logarithm finite.
  const double u = 1.0 - unit(rng);
  const double v = unit(rng);
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
}

json quantize(double value, double q) {
  const double r = std::round(value / q) * q;
  if (std::floor(q) == q) return static_cast<int64_t>(std::llround(r));
  return r;
}

json sample(const SweepParameter& p, std::mt19937_64& rng) {
  const std::string& d = p.distribution;
  if (d == "constant") return p.values.front();
  if (d == "categorical") {
    const auto n = static_cast<double>(p.values.size());
    return p.values[std::min(p.values.size() - 1, static_cast<size_t>(unit(rng) * n))];
  }
  if (d == "int_uniform") {
    const auto lo = static_cast<int64_t>(p.min), hi = static_cast<int64_t>(p.max);
    const auto span = static_cast<double>(hi - lo + 1);
    return lo + std::min(hi - lo, static_cast<int64_t>(unit(rng) * span));
  }
  const double u = unit(rng);
  if (d == "uniform") return p.min + u * (p.max - p.min);
  if (d == "q_uniform") return quantize(p.min + u * (p.max - p.min), p.q);
  if (d == "log_uniform") return std::exp(p.min + u * (p.max - p.min));
  const double logMin = std::log(p.min), logMax = std::log(p.max);
  if (d == "log_uniform_values") return std::exp(logMin + u * (logMax - logMin));
  if (d == "q_log_uniform_values") return quantize(std::exp(logMin + u * (logMax - logMin)), p.q);
  if (d == "inv_log_uniform_values") {
    // 1/X is log-uniform between 1/max and 1/min.
    return 1.0 / std::exp(-logMax + u * (logMax - logMin));
  }
  const double z = p.mu + p.sigma * standardNormal(rng);
  if (d == "normal") return z;
  if (d == "q_normal") return quantize(z, p.q);
  if (d == "log_normal") return std::exp(z);
  return quantize(std::exp(z), p.q);  // q_log_normal
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

std::vector<ProjectIssue> validateSweepJson(const json& doc) {
  std::vector<ProjectIssue> issues;
  if (!doc.is_object()) return {{"$", "a sweep is a JSON object"}};
  for (const auto& [key, value] : doc.items()) {
    if (!kSweepKeys.count(key)) issues.push_back({"$." + key, "unknown key"});
  }
  for (const char* key : {"name", "description"}) {
    if (doc.contains(key) && !doc[key].is_string()) {
      issues.push_back({std::string("$.") + key, "must be a string"});
    }
  }
  if (doc.contains("format") && doc["format"] != 1) {
    issues.push_back({"$.format", "must be 1"});
  }
  if (!doc.contains("project") || !doc["project"].is_string() ||
      doc["project"].get<std::string>().empty()) {
    issues.push_back({"$.project", "the base project's file is required"});
  }
  const std::string method = doc.value("method", json("grid")).is_string()
                                 ? doc.value("method", std::string("grid"))
                                 : std::string();
  if (method != "grid" && method != "random") {
    issues.push_back({"$.method", "must be \"grid\" or \"random\" (bayes is not offered)"});
  }
  if (!doc.contains("metric") || !doc["metric"].is_object() || !doc["metric"].contains("name") ||
      !doc["metric"]["name"].is_string()) {
    issues.push_back({"$.metric.name", "the metric that ranks trials is required"});
  } else {
    for (const auto& [key, value] : doc["metric"].items()) {
      if (key != "name" && key != "goal") issues.push_back({"$.metric." + key, "unknown key"});
    }
    const json goal = doc["metric"].value("goal", json("minimize"));
    if (goal != "minimize" && goal != "maximize") {
      issues.push_back({"$.metric.goal", "must be \"minimize\" or \"maximize\""});
    }
  }
  if (!doc.contains("parameters") || !doc["parameters"].is_object() || doc["parameters"].empty()) {
    issues.push_back({"$.parameters", "at least one parameter to vary is required"});
  } else {
    for (const auto& [name, p] : doc["parameters"].items()) checkParameter(name, p, method, issues);
  }
  if (method == "grid" && doc.contains("parameters") && doc["parameters"].is_object()) {
    // The product, counted without enumerating it (an int_uniform range may be huge).
    double combinations = 1;
    for (const auto& [name, p] : doc["parameters"].items()) {
      if (!p.is_object()) continue;
      const std::string d = distributionOf(p);
      if (d == "categorical" && p.contains("values") && p["values"].is_array()) {
        combinations *= static_cast<double>(std::max<size_t>(1, p["values"].size()));
      } else if (d == "int_uniform" && p.value("min", json()).is_number_integer() &&
                 p.value("max", json()).is_number_integer()) {
        combinations *= std::max(1.0, p["max"].get<double>() - p["min"].get<double>() + 1);
      }
    }
    if (combinations > static_cast<double>(kMaxGridTrials)) {
      issues.push_back({"$.parameters", "grid search of " + std::to_string(combinations) +
                                            " combinations: at most " +
                                            std::to_string(kMaxGridTrials) +
                                            " (use method \"random\" with run_cap)"});
    }
  }
  if (doc.contains("run_cap") &&
      (!doc["run_cap"].is_number_integer() || doc["run_cap"].get<int64_t>() < 1)) {
    issues.push_back({"$.run_cap", "must be an integer >= 1"});
  }
  if (method == "random" && !doc.contains("run_cap")) {
    issues.push_back({"$.run_cap", "random search needs run_cap (the number of trials)"});
  }
  if (doc.contains("seed") &&
      (!doc["seed"].is_number_integer() ||
       (!doc["seed"].is_number_unsigned() && doc["seed"].get<int64_t>() < 0))) {
    issues.push_back({"$.seed", "must be an integer >= 0"});
  }
  if (doc.contains("early_terminate")) {
    const json& e = doc["early_terminate"];
    if (!e.is_object() || e.value("type", json()) != "hyperband") {
      issues.push_back({"$.early_terminate.type", "must be \"hyperband\""});
    } else {
      for (const auto& [key, value] : e.items()) {
        if (key == "max_iter" || key == "s") {
          issues.push_back({"$.early_terminate." + key,
                            "not supported: give min_iter (and eta), as the bands' start"});
        } else if (key != "type" && key != "min_iter" && key != "eta") {
          issues.push_back({"$.early_terminate." + key, "unknown key"});
        }
      }
      if (!e.contains("min_iter") || !e["min_iter"].is_number_integer() ||
          e["min_iter"].get<int64_t>() < 1) {
        issues.push_back({"$.early_terminate.min_iter", "an integer >= 1 (epochs) is required"});
      }
      if (e.contains("eta") && (!e["eta"].is_number() || e["eta"].get<double>() <= 1)) {
        issues.push_back({"$.early_terminate.eta", "must be a number > 1"});
      }
    }
  }
  return issues;
}

namespace {
SweepSpec sweepOf(const json& doc, const std::string& source);
}  // namespace

SweepSpec sweepFromJson(const json& doc, const std::string& source) {
  std::vector<ProjectIssue> issues = validateSweepJson(doc);
  if (!issues.empty()) throw SweepError(source, std::move(issues));
  try {
    return sweepOf(doc, source);
  } catch (const nlohmann::json::exception& e) {
    // validateSweepJson checks every key read below; this is a bug, said with the file's name.
    throw SweepError(source, {{"$", e.what()}});
  }
}

namespace {

/// The sweep of a validated `doc`.
SweepSpec sweepOf(const json& doc, const std::string& source) {
  SweepSpec s;
  s.name = doc.value("name", std::string());
  s.project = doc["project"].get<std::string>();
  s.method = doc.value("method", std::string("grid"));
  s.metric.name = doc["metric"]["name"].get<std::string>();
  s.metric.maximize = doc["metric"].value("goal", std::string("minimize")) == "maximize";
  for (const auto& [name, p] : doc["parameters"].items()) {
    SweepParameter parameter;
    parameter.path = name;
    parameter.distribution = distributionOf(p);
    if (p.contains("value")) parameter.values = {p["value"]};
    if (p.contains("values")) parameter.values = p["values"].get<std::vector<json>>();
    parameter.min = p.value("min", 0.0);
    parameter.max = p.value("max", 0.0);
    parameter.mu = p.value("mu", 0.0);
    parameter.sigma = p.value("sigma", 1.0);
    parameter.q = p.value("q", 1.0);
    s.parameters.push_back(std::move(parameter));
  }
  s.runCap = doc.value("run_cap", int64_t{0});
  s.seed = doc.value("seed", uint64_t{0});
  if (doc.contains("early_terminate")) {
    HyperbandSpec h;
    h.minIter = doc["early_terminate"]["min_iter"].get<int64_t>();
    h.eta = doc["early_terminate"].value("eta", 3.0);
    s.earlyTerminate = h;
  }
  std::error_code error;
  if (std::filesystem::is_regular_file(source, error)) {
    s.baseDir = std::filesystem::absolute(source, error).parent_path().string();
  }
  return s;
}

}  // namespace

SweepSpec loadSweepFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) {
    throw InputError("cannot read sweep file \"" + path +
                     "\": " + (in ? "it is a directory" : std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<ProjectIssue> issues;
  const json doc = parseJsonText(text.str(), issues);
  if (!issues.empty()) throw SweepError(path, std::move(issues));
  return sweepFromJson(doc, path);
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

std::vector<SweepTrial> sweepTrials(const SweepSpec& sweep, const json& baseProject) {
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
    std::mt19937_64 rng(sweep.seed);
    for (int64_t i = 0; i < sweep.runCap; ++i) {
      json values = json::object();
      for (const auto& p : sweep.parameters) values[p.path] = sample(p, rng);
      chosen.push_back(std::move(values));
    }
  }
  // Each trial's project, validated as `towerbench-cli validate` would; problems are gathered
  // over all trials and reported once each, with the trials that have them.
  std::map<std::string, std::vector<int64_t>> problems;  // "path: message" -> trials
  std::vector<std::string> order;
  const auto add = [&](const std::string& text, int64_t trial) {
    auto [it, inserted] = problems.try_emplace(text);
    if (inserted) order.push_back(text);
    it->second.push_back(trial);
  };
  std::vector<SweepTrial> trials;
  for (size_t i = 0; i < chosen.size(); ++i) {
    SweepTrial t;
    t.index = static_cast<int64_t>(i);
    t.values = chosen[i];
    t.project = baseProject;
    bool applied = true;
    for (const auto& p : sweep.parameters) {
      try {
        applyProjectOverride(t.project, p.path + "=" + t.values[p.path].dump());
      } catch (const InputError& e) {
        add("$.parameters." + p.path + ": not a key path of the project (" + e.what() + ")",
            t.index);
        applied = false;
      }
    }
    if (applied) {
      for (const ProjectIssue& issue : validateProjectJson(t.project)) {
        std::string text = issue.toString();
        for (const auto& p : sweep.parameters) {
          const std::string keyPath = "$." + p.path;
          const bool within =
              issue.path.rfind(keyPath, 0) == 0 &&
              (issue.path.size() == keyPath.size() || issue.path[keyPath.size()] == '.' ||
               issue.path[keyPath.size()] == '[');
          if (within) text += " (from $.parameters." + p.path + ")";
        }
        add(text, t.index);
      }
      // Issue 34: a metric nothing puts ranks nothing and prunes nothing; refused when the
      // project's scalars are all known (Note [Scalars a project puts]).
      if (problems.empty()) {
        const ScalarNames scalars = scalarNamesOf(projectFromJson(t.project, sweep.projectPath()));
        if (!scalars.named(sweep.metric.name) && scalars.unknown.empty()) {
          add(str("$.metric.name: no part of the project puts \"", sweep.metric.name,
                  "\", so no trial could be ranked or pruned; its scalars are ",
                  joinNames(scalars)),
              t.index);
        }
      }
    }
    trials.push_back(std::move(t));
  }
  if (!problems.empty()) {
    std::vector<ProjectIssue> issues;
    for (const auto& text : order) {
      issues.push_back({trialList(problems[text], static_cast<int64_t>(trials.size())), text});
    }
    throw SweepError(sweep.name.empty() ? "sweep" : sweep.name, std::move(issues));
  }
  return trials;
}

}  // namespace tbench
