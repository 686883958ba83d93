#pragma once
// Note [Non-finite scalars]: JSON has no NaN or infinity. The run directory's files
// (stats.json, scalars.jsonl) write such a scalar as the string "nan", "inf" or "-inf" rather
// than dropping it (a diverged cost must stay visible). scalarToJson writes them and
// scalarFromJson reads them back (the run directory's readers, engine/run/RunScalars.h, which
// the window uses through the bridge): nothing else encodes or decodes them.

#include <cmath>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

namespace tbench {

/// `value` as it is written into the run directory's JSON files.
inline nlohmann::json scalarToJson(double value) {
  if (std::isfinite(value)) return value;
  return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
}

/// A scalar as the run directory's JSON files hold it: a number, or "nan", "inf", "-inf";
/// nullopt for anything else.
inline std::optional<double> scalarFromJson(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

}  // namespace tbench
