#pragma once
// A sweep: many trials of one project (Note [Sweeps]). The description is W&B's sweep file, in
// JSON or YAML (W&B's command-line workflow writes YAML), so that a W&B user can bring theirs:
//
//   name: lr-width
//   project: fashion-mnist-mlp.json      # the base project, relative to this file
//   method: grid | random | bayes | tpe
//   metric: {name: validation_error, goal: minimize, target: 0.12}
//   parameters:
//     optimizer.learning_rate: {min: 1.0e-4, max: 0.1, distribution: log_uniform_values}
//     model: {parameters: {hidden: {values: [[64], [128], [256]]}}}   # W&B's nested form
//     seed: {value: 7}
//   run_cap: 12
//   seed: 1
//   early_terminate: {type: hyperband, min_iter: 1, eta: 3}   # or max_iter and s; strict
//
// A parameter is any key path of the project ("data.batch_size", "callbacks[0].every"), written
// with dots or nested as W&B nests it, with `value`, `values` (and `probabilities`), min/max,
// mu/sigma, a/b and q, and a `distribution` among W&B's 18 (kDistributions in Sweep.cpp).
// Without a distribution, W&B's inference: value -> constant, values -> categorical (with
// probabilities: categorical_w_probabilities), integer bounds -> int_uniform, other bounds ->
// uniform. Keys W&B's schema refuses are refused here too (a key the distribution does not take,
// q without a q_ distribution, min >= max, mu/sigma without a distribution).
//
// Note [Sweeps]
// The sweep is checked whole before anything runs: its own keys (each problem at its path,
// "$.parameters.optimizer.learning_rate.min: ..."), then every trial's project through the
// registry as `towerbench-cli validate` checks one (an unknown key path or a value out of range
// is refused naming the path and the trial). grid enumerates the product of the values (an
// int_uniform's integers, a q_uniform's numpy.arange(min, max, q) as W&B's grid_search.py),
// parameters in key order (W&B sorts them too; the first varies slowest), up to run_cap; random
// draws its trials from `seed` with a generator of our own over std::mt19937_64 (whose output
// the standard fixes) through each distribution's quantile function (W&B's params.py ppf), so a
// sweep's trials are the same on every machine. random without run_cap, bayes and tpe are
// sequential: their trials are made one at a time while the sweep runs (bayes and tpe from the
// results so far, SweepSearch.h), until run_cap, metric.target or a stop; the first ones are
// validated before anything runs, each later one when it is made.
//
// W&B's keys that say how W&B itself runs a trial (program, command, entity, a W&B project
// *name*) are recognised and noted: a trial here is always `towerbench-cli train` of the base
// project (Note [The sweep queue]); the base project is then given on the command line
// (--base-project). W&B Launch's keys (job, image_uri, scheduler) are refused with that reason.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/project/ProjectJson.h"

namespace tbench {

struct SweepParameter {
  std::string path;                    ///< the project key path ("optimizer.learning_rate")
  std::string distribution;            ///< W&B's name, inferred when the file gives none
  std::vector<nlohmann::json> values;  ///< constant (one) or categorical
  std::vector<double> probabilities;   ///< categorical_w_probabilities, one per value
  double min = 0, max = 0;             ///< range distributions
  double mu = 0, sigma = 1;            ///< normal and log_normal families
  double a = 1, b = 1;                 ///< beta and q_beta
  double q = 1;                        ///< q_* distributions: values are multiples of q
  /// The value at quantile u in [0, 1] (W&B's ppf): what random draws with a uniform u and
  /// what bayes and tpe propose from their coordinate.
  nlohmann::json valueAt(double u) const;
  /// The quantile of `value` (its coordinate for the search models): a categorical value and
  /// an int_uniform's integer at the centre of their cell; clamped to [0, 1].
  double coordinateOf(const nlohmann::json& value) const;
  /// The number of distinct values (categorical, int_uniform), 0 for a continuum.
  int choices() const;
};

struct SweepMetric {
  /// A scalar of the runs ("validation_error", "cost"); "" for a grid or random sweep without
  /// one (W&B's metric is optional there): its trials run and none is ranked.
  std::string name;
  bool maximize = false;  ///< goal "maximize"; default "minimize"
  /// W&B's target: once a trial's value reaches it, no new trial is started (running ones go
  /// on; pending ones of a grid are cancelled, saying why).
  std::optional<double> target;
  /// W&B's impute: the result bayes and tpe give a failed trial: "worst" (default), "best" or
  /// "latest" (its own last value; the worst when it logged none).
  std::string impute = "worst";
  /// Whether `value` reaches the target (never without one).
  bool reaches(double value) const;
};

/// W&B's word for a goal: "maximize" or "minimize".
inline const char* goalName(bool maximize) { return maximize ? "maximize" : "minimize"; }

/// W&B's hyperband (Hyperband.h): bands from min_iter up by eta, or (max_iter and s) the s
/// bands int(max_iter / eta^i), i = 1..s, that are >= 1.
struct HyperbandSpec {
  int64_t minIter = 1;  ///< the first band, in values of the metric (used without max_iter)
  double eta = 3;       ///< bands grow by eta; a band keeps about the best 1/eta
  int64_t maxIter = 0;  ///< > 0: bands from max_iter down (W&B reads it before min_iter)
  int64_t s = 0;        ///< with max_iter: how many bands below it
  /// W&B's strict (its code's default, true; its docs say false): a trial is judged by its value
  /// at the band; false: by its best value so far.
  bool strict = true;
};

struct SweepSpec {
  std::string name;
  std::string project;          ///< the base project's path as written (relative to baseDir)
  std::string method = "grid";  ///< grid, random, bayes (W&B's GP), tpe (Optuna's default)
  SweepMetric metric;
  std::vector<SweepParameter> parameters;  ///< in key order
  int64_t runCap = 0;  ///< 0: grid's full product; random, bayes, tpe: until stopped or target
  uint64_t seed = 0;
  std::optional<HyperbandSpec> earlyTerminate;
  /// The directory of the sweep file (not written): `project` is relative to it.
  std::string baseDir;
  /// W&B's keys that do not change what runs here, each with what it means here (program,
  /// command, entity, a W&B project name): shown by the dry run and the window.
  std::vector<std::string> notes;
  /// The base project's path, resolved against baseDir.
  std::string projectPath() const;
  /// Whether trials are made one at a time as the sweep runs (random without run_cap, bayes,
  /// tpe) rather than listed before it starts.
  bool sequential() const;
};

/// One trial: its values (parameter path -> value, in the sweep's order) and its project (the
/// base with the values applied).
struct SweepTrial {
  int64_t index = 0;  ///< 0-based, in enumeration order
  nlohmann::json values = nlohmann::json::object();
  nlohmann::json project;
};

/// A sweep that does not parse, validate, or whose trials do not: what() lists every problem,
/// one per line, prefixed by the sweep file.
class SweepError : public InputError {
 public:
  SweepError(const std::string& source, std::vector<ProjectIssue> issues);
  const std::vector<ProjectIssue>& issues() const { return issues_; }

 private:
  std::vector<ProjectIssue> issues_;
};

/// Every problem of a sweep document's own keys (paths like "$.parameters.x.min"). Never throws.
std::vector<ProjectIssue> validateSweepJson(const nlohmann::json& doc);
/// The sweep of `doc`; `source` names it in messages, and when it is a file path its directory
/// is baseDir. `baseProject` (a path; the CLI's --base-project) replaces the file's `project`,
/// which may then be a W&B project name. Throws SweepError with every issue.
SweepSpec sweepFromJson(const nlohmann::json& doc, const std::string& source = "sweep",
                        const std::string& baseProject = "");
/// The document of a sweep file's text: JSON, or YAML (by its extension .yaml/.yml, or when it
/// is not JSON). Problems go to `issues` ("$: ..." naming the line), saying which formats are
/// read when the text is neither.
nlohmann::json parseSweepText(const std::string& text, const std::string& path,
                              std::vector<ProjectIssue>& issues);
/// Reads and parses a sweep file (throws SweepError, or InputError when it cannot be read).
SweepSpec loadSweepFile(const std::string& path, const std::string& baseProject = "");

/// The values of trial `index` of a random search (the index-th draw from the sweep's seed):
/// random with or without run_cap, and the first trials of bayes and tpe.
nlohmann::json randomTrialValues(const SweepSpec& sweep, int64_t index);
/// Trial `index` with `values`: the base project with them applied, validated. Throws
/// SweepError naming the trial and each problem.
SweepTrial makeTrial(const SweepSpec& sweep, const nlohmann::json& baseProject, int64_t index,
                     const nlohmann::json& values);

/// The trials of `sweep` over `baseProject` (a project document), each validated through the
/// registry. Throws SweepError listing every problem ("trial 3: $.optimizer.learning_rate: must
/// be > 0 (from $.parameters.optimizer.learning_rate)") before any trial is returned. A
/// sequential sweep's: the random trials it starts with (random without run_cap: the first
/// `firstOfSequential`; bayes and tpe: their random start, search::searchStartupTrials).
std::vector<SweepTrial> sweepTrials(const SweepSpec& sweep, const nlohmann::json& baseProject,
                                    int64_t firstOfSequential = 8);

/// One analysis of a sweep over its base project, for every front end (the dry run, the queue,
/// the SLURM writer, the window).
struct SweepPlan {
  /// Every trial (grid; random with run_cap), or a sequential sweep's first ones.
  std::vector<SweepTrial> trials;
  std::vector<int64_t> maxEpochs;  ///< per listed trial (max_epoch may be swept)
  /// Per listed trial: the samples an epoch of it trains over the base project's (steps per
  /// epoch x batch per tower x towers), what a time estimate scales the base's epoch by; 1 when
  /// both are one pass over the same training data; NaN when that is not known ahead (one pass
  /// over the data against a step count, or the training data itself swept).
  std::vector<double> epochWork;
  int64_t longestEpochs = 0;  ///< the most epochs a listed trial runs
  /// The trials the sweep runs: trials.size(), or run_cap of a sequential sweep, or -1 (until
  /// stopped or metric.target).
  int64_t totalTrials = 0;
  int64_t gridCombinations = 0;  ///< grid: the product before run_cap
  std::vector<int64_t> bands;    ///< hyperband's, up to longestEpochs
  /// What a user should know before it runs: the metric's note (sweepMetricNote), W&B's keys
  /// (SweepSpec::notes), strict, how a sequential sweep ends.
  std::vector<std::string> notes;
};
/// Throws SweepError as sweepTrials does.
SweepPlan planSweep(const SweepSpec& sweep, const nlohmann::json& baseProject);

/// Issue 34: "" when the sweep's metric is put by a built-in part of `base` (trial 0's
/// project); otherwise a note saying that only a part whose scalars cannot be known ahead (a
/// TorchScript model, a plugin's callback) could put it. A metric that nothing puts at all is
/// refused by sweepTrials (Note [Scalars a project puts]).
std::string sweepMetricNote(const SweepSpec& sweep, const Project& base);

/// The number of trials grid search gives before run_cap (the product of the value counts);
/// 0 for the other methods.
int64_t gridSize(const SweepSpec& sweep);

}  // namespace tbench
