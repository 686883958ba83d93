#include "engine/sweep/Sweep.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "engine/project/JsonReader.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectFiles.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/SearchModels.h"
#include "engine/sweep/SweepDetail.h"
#include "engine/sweep/SweepYaml.h"

namespace tbench {
using namespace sweep_detail;
namespace {

using nlohmann::json;

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

/// W&B's old log distributions take base-e exponents as bounds (log_uniform's min -9.2 and
/// max -2.3 for 1e-4 .. 0.1); W&B has since deprecated them for the *_values ones, and bounds
/// written as the values themselves quietly give exp(1e-4) .. exp(0.1) = 1.0001 .. 1.105. The
/// plan says what range each draws from.
void noteExponentBounds(SweepSpec& s) {
  for (const SweepParameter& p : s.parameters) {
    const std::string& d = p.distribution;
    if (d != "log_uniform" && d != "q_log_uniform" && d != "inv_log_uniform") continue;
    const double lo = d == "inv_log_uniform" ? std::exp(-p.max) : std::exp(p.min);
    const double hi = d == "inv_log_uniform" ? std::exp(-p.min) : std::exp(p.max);
    std::string note =
        str(p.path, ": ", d, " takes base-e exponents (W&B's older form): values ", lo, " to ", hi);
    if (p.min > 0 && p.max <= 1) {
      note += str("; for values from ", p.min, " to ", p.max, " write ", d, "_values");
    }
    s.notes.push_back(note);
  }
}

/// The sweep of a validated `doc`.
SweepSpec sweepOf(const json& doc, const std::string& source, const std::string& baseProject) {
  SweepSpec s;
  s.name = doc.value("name", std::string());
  s.method = doc.value("method", std::string("grid"));
  if (doc.contains("metric")) {
    s.metric.name = doc["metric"]["name"].get<std::string>();
    s.metric.maximize = doc["metric"].value("goal", std::string("minimize")) == "maximize";
    if (doc["metric"].contains("target")) s.metric.target = doc["metric"]["target"].get<double>();
    s.metric.impute = doc["metric"].value("impute", std::string("worst"));
  } else {
    s.notes.push_back(
        "no metric: every trial runs, and none is ranked, pruned or named best "
        "(compare their curves in the window's Run History, or give metric.name)");
  }
  std::vector<std::pair<std::string, json>> parameters;
  std::vector<ProjectIssue> unused;
  flattenParameters(doc["parameters"], "", parameters, unused);
  std::sort(parameters.begin(), parameters.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [name, p] : parameters) s.parameters.push_back(parameterOf(name, p));
  noteExponentBounds(s);
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
  if (sweep.metric.name.empty() || scalars.named(sweep.metric.name) || scalars.unknown.empty())
    return "";
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
  if (valid && !sweep.metric.name.empty()) {
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

namespace {

/// SweepPlan::epochWork of `trial` against `base`.
double epochWork(const Project& trial, const Project& base) {
  if (trial.data.train.type != base.data.train.type ||
      trial.data.train.settings.values() != base.data.train.settings.values()) {
    return std::nan("");
  }
  if (trial.stepsPerEpoch == 0 && base.stepsPerEpoch == 0) return 1.0;  // one pass each
  if (trial.stepsPerEpoch == 0 || base.stepsPerEpoch == 0) return std::nan("");
  const auto samples = [](const Project& p) {
    return double(p.stepsPerEpoch) * double(p.data.batchSize) *
           double(std::max<size_t>(1, p.devices().size()));
  };
  return samples(trial) / samples(base);
}

}  // namespace

SweepPlan planSweep(const SweepSpec& sweep, const json& baseProject) {
  SweepPlan plan;
  plan.trials = sweepTrials(sweep, baseProject);
  std::optional<Project> base;
  for (const SweepTrial& t : plan.trials) {
    const Project trial = projectFromJson(t.project, sweep.projectPath());
    if (!base) base = projectFromJson(baseProject, sweep.projectPath());
    plan.maxEpochs.push_back(trial.maxEpoch);
    plan.epochWork.push_back(epochWork(trial, *base));
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
