#pragma once
// Reading a run directory's scalars back: stats.json (JSONWriter: one object per flush,
// [{"cost": 0.41, ..., "epoch_num": 1, "global_step": 32}, ...]) and one line of scalars.jsonl
// (ScalarStream: {"name": "cost", "step": 12, "epoch": 1, "time": 1.7e9, "value": 0.41}),
// non-finite values as Note [Non-finite scalars] writes them. The writers' formats are read
// here and nowhere else; the window gets these through the bridge (readRunStatsView,
// parseScalarLine). Defensive: nothing here throws on a damaged file or line.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tbench {

/// One value of one scalar.
struct ScalarRecord {
  std::string name;
  int64_t epoch = 0;  ///< epoch_num (1-based)
  int64_t step = 0;   ///< global_step
  double time = 0;    ///< seconds since the Unix epoch; 0 when the file does not say (stats.json)
  double value = 0;   ///< NaN / +-inf for "nan" / "inf" / "-inf"
};

/// What a stats.json holds, read once.
struct StatsFileContents {
  static constexpr const char* kFileName = "stats.json";
  bool exists = false;  ///< the file is there (an empty `points` may still be valid)
  std::string error;    ///< why (part of) the file could not be used, naming it; empty when fine
  int64_t entries = 0;  ///< objects in the list
  std::vector<ScalarRecord> points;          ///< every scalar of every entry, in file order
  std::map<std::string, double> lastValues;  ///< the last value of each scalar
  int64_t lastEpoch = -1;                    ///< epoch_num of the last entry, -1 when none
  int64_t lastGlobalStep = -1;               ///< global_step of the last entry, -1 when none
};

/// Reads the stats.json at `path`. Entries that are not objects and values that are not
/// scalars are skipped and named in `error` (the first three, and how many more); a file that
/// does not parse as a JSON list gives no points and an error naming the file. Never throws.
StatsFileContents readStatsFile(const std::string& path);

/// One line of scalars.jsonl; nullopt when it is not a scalar (damaged, cut, another object).
std::optional<ScalarRecord> parseScalarLine(const std::string& line);

}  // namespace tbench
