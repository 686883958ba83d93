// validateSweepJson (Sweep.h): every problem of a sweep document's own keys, at its path, as
// W&B's schema would refuse it (Note [Sweeps]).
#include "engine/sweep/Sweep.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "engine/sweep/SweepDetail.h"

namespace tbench {
using nlohmann::json;
using namespace sweep_detail;

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

}  // namespace

namespace sweep_detail {

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

}  // namespace sweep_detail

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
  if (!doc.contains("metric")) {
    // As W&B's: a grid or random sweep without a metric runs its trials and ranks none; what
    // searches or prunes by a metric needs one.
    const std::string method = doc.value("method", json("grid")).is_string()
                                   ? doc.value("method", std::string("grid"))
                                   : std::string();
    if (method == "bayes" || method == "tpe") {
      issues.push_back({"$.metric.name", method + " search proposes trials by a metric: required"});
    } else if (doc.contains("early_terminate")) {
      issues.push_back({"$.metric.name", "early_terminate prunes trials by a metric: required"});
    }
    return;
  }
  if (!doc["metric"].is_object() || !doc["metric"].contains("name") ||
      !doc["metric"]["name"].is_string() || doc["metric"]["name"].get<std::string>().empty()) {
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
  for (const auto& parameter : parameters) {
    const json& p = parameter.second;  // a name, not a binding: C++17 lambdas cannot take those
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

}  // namespace tbench
