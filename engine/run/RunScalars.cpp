#include "engine/run/RunScalars.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/monitors/ScalarJson.h"

namespace tbench {
namespace {

// stats.json grows by one small object per epoch; anything this large is not one of ours and
// would only stall its reader.
constexpr std::uintmax_t kMaxStatsBytes = 256ULL * 1024 * 1024;

int64_t integerField(const nlohmann::json& entry, const char* key, int64_t fallback) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_number()) return fallback;
  if (it->is_number_integer()) return it->get<int64_t>();
  // A float such as 1e300 has no int64_t value (casting it would be undefined): not a step.
  const double value = it->get<double>();
  if (!(value >= -0x1p63 && value < 0x1p63)) return fallback;
  return static_cast<int64_t>(value);
}

}  // namespace

StatsFileContents readStatsFile(const std::string& path) {
  StatsFileContents stats;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return stats;
  stats.exists = true;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxStatsBytes) {
    stats.error = path + ": " + std::to_string(size) + " bytes, too large to be a stats file";
    return stats;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    stats.error = path + ": cannot be read";
    return stats;
  }
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    stats.error =
        path + ": not valid JSON at byte " + std::to_string(e.byte) + " (" + e.what() + ")";
    return stats;
  } catch (const nlohmann::json::exception& e) {  // a number out of range, ...
    stats.error = path + ": not valid JSON (" + e.what() + ")";
    return stats;
  }
  if (!doc.is_array()) {
    stats.error = path + ": expected a JSON list of stats";
    return stats;
  }
  std::vector<std::string> problems;
  stats.entries = static_cast<int64_t>(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& entry = doc[i];
    if (!entry.is_object()) {
      problems.push_back("entry " + std::to_string(i) + " is not an object");
      continue;
    }
    const int64_t epoch = integerField(entry, "epoch_num", stats.lastEpoch);
    const int64_t step = integerField(entry, "global_step", stats.lastGlobalStep);
    for (const auto& [key, value] : entry.items()) {
      if (key == "epoch_num" || key == "global_step") continue;
      const std::optional<double> scalar = scalarFromJson(value);
      if (!scalar) {
        problems.push_back("entry " + std::to_string(i) + ": \"" + key + "\" is not a number");
        continue;
      }
      stats.points.push_back({key, epoch, step, 0.0, *scalar});
      stats.lastValues[key] = *scalar;
    }
    stats.lastEpoch = epoch;
    stats.lastGlobalStep = step;
  }
  if (!problems.empty()) {
    // Say how many, but keep the message short enough for a tooltip.
    const size_t shown = std::min<size_t>(problems.size(), 3);
    std::string joined;
    for (size_t i = 0; i < shown; ++i) joined += (i ? "; " : "") + problems[i];
    if (problems.size() > shown) {
      joined += " (and " + std::to_string(problems.size() - shown) + " more)";
    }
    stats.error = path + ": " + joined;
  }
  return stats;
}

std::optional<ScalarRecord> parseScalarLine(const std::string& line) {
  const nlohmann::json o = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!o.is_object()) return std::nullopt;
  const auto name = o.find("name");
  const auto value = o.find("value");
  if (name == o.end() || !name->is_string() || value == o.end()) return std::nullopt;
  const std::optional<double> scalar = scalarFromJson(*value);
  if (!scalar) return std::nullopt;
  ScalarRecord r;
  r.name = name->get<std::string>();
  r.step = integerField(o, "step", 0);
  r.epoch = integerField(o, "epoch", 0);
  const auto time = o.find("time");
  r.time = time != o.end() && time->is_number() ? time->get<double>() : 0.0;
  r.value = *scalar;
  return r;
}

}  // namespace tbench
