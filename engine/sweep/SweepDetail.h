#pragma once
// What Sweep.cpp, SweepParameter.cpp and SweepValidation.cpp share: reading a parameter's
// distribution, W&B's nested parameters flattened, the grid's values and the uniform draws.
// Internal to engine/sweep, not an interface.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/project/ProjectJson.h"
#include "engine/sweep/Sweep.h"

namespace tbench::sweep_detail {

/// The most trials a grid may enumerate.
constexpr int64_t kMaxGridTrials = 100000;

bool isBeta(const std::string& distribution);
/// W&B's inference: value -> constant, values -> categorical (with probabilities:
/// categorical_w_probabilities), integer bounds -> int_uniform, other bounds -> uniform.
/// Everything else needs its distribution named ("" here).
std::string distributionOf(const nlohmann::json& p);
/// W&B's parameters with nested ones ({"model": {"parameters": {"hidden": ...}}}) flattened to
/// their key paths ("model.hidden"), in W&B's order (sorted at each level). Problems to `issues`.
void flattenParameters(const nlohmann::json& parameters, const std::string& prefix,
                       std::vector<std::pair<std::string, nlohmann::json>>& out,
                       std::vector<ProjectIssue>& issues);
/// Uniform in [0, 1) from the generator's raw output (53 bits), the same on every platform.
double unit(std::mt19937_64& rng);
/// What grid enumerates of `p`.
std::vector<nlohmann::json> gridValues(const SweepParameter& p);

}  // namespace tbench::sweep_detail
