#pragma once
// A sweep of the synthetic project written for a test: base.json (projects/synthetic-mlp.json
// with its runs under the test's directory) and sweep.json beside it.

#include <QString>

#include <cstdint>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace tbench::testing {

/// base.json and sweep.json in `dir`: a grid sweep of `parameters` over validation_error, each
/// trial `maxEpoch` epochs with the inference callback (and a checkpoint every epoch when
/// `saveCheckpoints`); `extra` is merged into the sweep. Returns sweep.json's path.
inline std::string writeSyntheticSweep(const QString& dir, const nlohmann::json& parameters,
                                       int64_t maxEpoch,
                                       const nlohmann::json& extra = nlohmann::json::object(),
                                       bool saveCheckpoints = false) {
  using nlohmann::json;
  const std::string root = dir.toStdString();
  std::ifstream in(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
  json base = json::parse(in);
  base["run_root"] = root + "/runs";
  base["max_epoch"] = maxEpoch;
  base["callbacks"] = {{{"type", "inference"}}};  // validation_error every epoch
  if (saveCheckpoints) base["callbacks"].push_back({{"type", "model_saver"}});
  base["monitors"] = {{"tensorboard", false}};
  std::ofstream(root + "/base.json") << base.dump(2);
  json sweep = {{"format", 1},
                {"name", "s"},
                {"project", "base.json"},
                {"method", "grid"},
                {"metric", {{"name", "validation_error"}, {"goal", "minimize"}}},
                {"parameters", parameters}};
  sweep.update(extra);
  std::ofstream(root + "/sweep.json") << sweep.dump(2);
  return root + "/sweep.json";
}

}  // namespace tbench::testing
