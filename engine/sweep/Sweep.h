#pragma once
// A sweep: many trials of one project (Note [Sweeps]). The description uses the key names of
// W&B sweeps, so that a user who knows them can write one:
//
//   {"format": 1, "name": "lr-width",
//    "project": "fashion-mnist-mlp.json",           // the base project, relative to this file
//    "method": "grid" | "random",
//    "metric": {"name": "validation_error", "goal": "minimize" | "maximize"},
//    "parameters": {
//      "optimizer.learning_rate": {"min": 1e-4, "max": 1e-1,
//                                  "distribution": "log_uniform_values"},
//      "model.hidden": {"values": [[64], [128], [256]]},
//      "seed": {"value": 7}},
//    "run_cap": 12, "seed": 1,
//    "early_terminate": {"type": "hyperband", "min_iter": 1, "eta": 3}}
//
// A parameter is any key path of the project ("data.batch_size", "callbacks[0].every"), with
// `value` (constant), `values` (categorical), or `min`/`max` (and `mu`/`sigma`, `q`) with a
// `distribution` as W&B names them: constant, categorical, int_uniform, uniform, q_uniform,
// log_uniform (min/max are exponents), log_uniform_values, q_log_uniform_values,
// inv_log_uniform_values, normal, q_normal, log_normal, q_log_normal. Without a distribution,
// integer bounds mean int_uniform and others uniform (W&B's inference). W&B's nested
// "parameters" objects are not read: paths are written with dots.
//
// Note [Sweeps]
// The sweep is checked whole before anything runs: its own keys (each problem at its JSON
// path, "$.parameters.optimizer.learning_rate.min: ..."), then every trial's project through
// the registry as `towerbench-cli validate` checks one (an unknown key path or a value out of
// range is refused naming the path and the trial). grid enumerates the product of the values
// in order, parameters in key order (a JSON object has no other; the first varies slowest), up
// to run_cap; random draws run_cap trials
// from `seed` with a generator of our own over std::mt19937_64 (whose output the standard
// fixes), so a sweep's trials are the same on every machine.

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
  double min = 0, max = 0;             ///< range distributions
  double mu = 0, sigma = 1;            ///< normal and log_normal families
  double q = 1;                        ///< q_* distributions: values are multiples of q
};

struct SweepMetric {
  std::string name;       ///< a scalar of the runs ("validation_error", "cost")
  bool maximize = false;  ///< goal "maximize"; default "minimize"
};

struct HyperbandSpec {
  int64_t minIter = 1;  ///< the first band, in epochs
  double eta = 3;       ///< bands grow by eta; a band keeps about the best 1/eta
};

struct SweepSpec {
  std::string name;
  std::string project;  ///< the base project's path as written (relative to baseDir)
  std::string method = "grid";
  SweepMetric metric;
  std::vector<SweepParameter> parameters;  ///< in key order
  int64_t runCap = 0;                      ///< 0: grid's full product (random requires one)
  uint64_t seed = 0;
  std::optional<HyperbandSpec> earlyTerminate;
  /// The directory of the sweep file (not written): `project` is relative to it.
  std::string baseDir;
  /// The base project's path, resolved against baseDir.
  std::string projectPath() const;
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
/// is baseDir. Throws SweepError with every issue.
SweepSpec sweepFromJson(const nlohmann::json& doc, const std::string& source = "sweep");
/// Reads and parses a sweep file (throws SweepError, or InputError when it cannot be read).
SweepSpec loadSweepFile(const std::string& path);

/// The trials of `sweep` over `baseProject` (a project document), each validated through the
/// registry. Throws SweepError listing every problem ("trial 3: $.optimizer.learning_rate: must
/// be > 0 (from $.parameters.optimizer.learning_rate)") before any trial is returned.
std::vector<SweepTrial> sweepTrials(const SweepSpec& sweep, const nlohmann::json& baseProject);

/// The number of trials grid search gives before run_cap (the product of the value counts);
/// 0 for random.
/// Issue 34: "" when the sweep's metric is put by a built-in part of `base` (trial 0's
/// project); otherwise a note saying that only a part whose scalars cannot be known ahead (a
/// TorchScript model, a plugin's callback) could put it. A metric that nothing puts at all is
/// refused by sweepTrials (Note [Scalars a project puts]).
std::string sweepMetricNote(const SweepSpec& sweep, const Project& base);

int64_t gridSize(const SweepSpec& sweep);

}  // namespace tbench
