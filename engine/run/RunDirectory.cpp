#include "engine/run/RunDirectory.h"

#include <ctime>
#include <filesystem>

namespace tbench {
namespace fs = std::filesystem;
namespace {

bool holdsFiles(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec));
}

fs::path firstFreeBeside(const fs::path& dir) {
  for (int i = 1;; ++i) {
    fs::path candidate = dir.string() + "-" + std::to_string(i);
    if (!fs::exists(candidate)) return candidate;
  }
}

/// The run id: local time to the second (runIdTime reads it back).
constexpr const char* kRunIdFormat = "%Y%m%d-%H%M%S";
constexpr size_t kRunIdLength = 15;  // "20250314-101010"

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, kRunIdFormat, &tm);
  return buffer;
}

}  // namespace

std::string newRunDirectoryPath(const std::string& runRoot, const std::string& projectName) {
  fs::path dir = fs::path(runRoot) / projectName / timestamp();
  if (fs::exists(dir)) dir = firstFreeBeside(dir);
  return dir.string();
}

std::string newRunId() { return timestamp(); }

std::optional<std::time_t> runIdTime(const std::string& runId) {
  if (runId.size() < kRunIdLength) return std::nullopt;
  if (runId.size() > kRunIdLength && runId[kRunIdLength] != '-') return std::nullopt;
  const std::string id = runId.substr(0, kRunIdLength);
  std::tm tm{};
  const char* end = ::strptime(id.c_str(), kRunIdFormat, &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  tm.tm_isdst = -1;  // local time, whatever the season
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return t;
}

std::string prepareRunDirectory(const std::string& requested, const std::string& runRoot,
                                const std::string& projectName, ExistingRunDir policy) {
  fs::path dir;
  if (requested.empty()) {
    dir = newRunDirectoryPath(runRoot, projectName);
  } else {
    dir = requested;
    if (holdsFiles(dir)) {
      if (policy == ExistingRunDir::Fail) {
        throw RunDirectoryExists(str("run directory ", dir.string(),
                                     " already exists; pass --resume to continue that run or "
                                     "--new-run to start a new one beside it"));
      }
      if (policy == ExistingRunDir::NewBeside) dir = firstFreeBeside(dir);
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(str("cannot create run directory ", dir.string(), ": ", ec.message()));
  if (!fs::is_directory(dir)) throw InputError(str(dir.string(), " is not a directory"));
  return dir.string();
}

}  // namespace tbench
