#pragma once
// Note [Non-finite scalars]: JSON has no NaN or infinity. The run directory's files
// (stats.json, scalars.jsonl) write such a scalar as the string "nan", "inf" or "-inf" rather
// than dropping it (a diverged cost must stay visible); the window decodes them in one place
// (app/gui/rundir/RunStats.h, scalarValue).

#include <cmath>

#include <nlohmann/json.hpp>

namespace tbench {

/// `value` as it is written into the run directory's JSON files.
inline nlohmann::json scalarToJson(double value) {
  if (std::isfinite(value)) return value;
  return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}

}  // namespace tbench
