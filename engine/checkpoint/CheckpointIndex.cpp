#include "engine/checkpoint/CheckpointIndex.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace fs = std::filesystem;

namespace tbench {
namespace {

// The index names files that savers later delete: a name must stay inside the run directory.
std::string checkedName(const std::string& path, const std::string& field,
                        const nlohmann::json& value) {
  if (!value.is_string()) {
    throw InputError(str(path, ": ", field, " must be a file name string, got ", value.dump()));
  }
  const std::string name = value.get<std::string>();
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    throw InputError(str(path, ": ", field, " must be a file name inside the run directory, got \"",
                         name, "\""));
  }
  return name;
}

std::vector<std::string> nameList(const std::string& path, const nlohmann::json& doc,
                                  const char* key) {
  std::vector<std::string> names;
  if (!doc.contains(key)) return names;
  const auto& list = doc.at(key);
  if (!list.is_array()) throw InputError(str(path, ": \"", key, "\" must be a list"));
  for (size_t i = 0; i < list.size(); ++i) {
    names.push_back(checkedName(path, str("\"", key, "\"[", i, "]"), list[i]));
  }
  return names;
}

CheckpointIndex parse(const std::string& path, const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(str(path, ": not valid JSON (", e.what(), ")"));
  }
  if (!doc.is_object()) throw InputError(str(path, ": must be a JSON object"));
  CheckpointIndex index;
  if (doc.contains("latest") && !doc.at("latest").is_null()) {
    index.latest = checkedName(path, "\"latest\"", doc.at("latest"));
  }
  index.all = nameList(path, doc, "all");
  index.kept = nameList(path, doc, "kept");
  index.manual = nameList(path, doc, "manual");
  if (doc.contains("best")) {
    const auto& best = doc.at("best");
    if (!best.is_object()) throw InputError(str(path, ": \"best\" must be an object"));
    for (const auto& [stat, entry] : best.items()) {
      const std::string field = str("\"best\".\"", stat, "\"");
      if (!entry.is_object() || !entry.contains("file") || !entry.contains("value") ||
          !entry.at("value").is_number()) {
        throw InputError(str(path, ": ", field,
                             " must be {\"file\": ..., \"value\": number, \"global_step\": int}"));
      }
      BestCheckpoint b;
      b.file = checkedName(path, field + ".file", entry.at("file"));
      b.value = entry.at("value").get<double>();
      if (entry.contains("global_step")) {
        if (!entry.at("global_step").is_number_integer()) {
          throw InputError(str(path, ": ", field, ".global_step must be an integer"));
        }
        b.globalStep = entry.at("global_step").get<int64_t>();
      }
      index.best[stat] = b;
    }
  }
  return index;
}

/// model-<step>.pt files of `runDir`, highest step first.
std::vector<std::pair<int64_t, std::string>> modelFilesNewestFirst(const std::string& runDir) {
  static const std::regex pattern("model-([0-9]{1,18})\\.pt");
  std::vector<std::pair<int64_t, std::string>> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(runDir, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (std::regex_match(name, match, pattern) && entry.is_regular_file(ec)) {
      files.emplace_back(std::stoll(match[1].str()), name);
    }
  }
  std::sort(files.rbegin(), files.rend());
  return files;
}

}  // namespace

std::string CheckpointIndex::pathIn(const std::string& runDir) {
  return (fs::path(runDir) / kFileName).string();
}

std::optional<CheckpointIndex> CheckpointIndex::read(const std::string& runDir) {
  const std::string path = pathIn(runDir);
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  return parse(path, readFile(path));
}

void CheckpointIndex::write(const std::string& runDir) const {
  nlohmann::json doc;
  doc["latest"] = latest.empty() ? nlohmann::json(nullptr) : nlohmann::json(latest);
  doc["all"] = all;
  if (!kept.empty()) doc["kept"] = kept;
  if (!manual.empty()) doc["manual"] = manual;
  doc["best"] = nlohmann::json::object();
  for (const auto& [stat, b] : best) {
    doc["best"][stat] = {{"file", b.file}, {"value", b.value}, {"global_step", b.globalStep}};
  }
  writeFileAtomically(pathIn(runDir), doc.dump(2) + "\n");
}

bool CheckpointIndex::isManual(const std::string& name) const {
  return std::find(manual.begin(), manual.end(), name) != manual.end();
}

void CheckpointIndex::addManual(const std::string& name) {
  for (auto* list : {&all, &kept, &manual}) {
    if (std::find(list->begin(), list->end(), name) == list->end()) list->push_back(name);
  }
  latest = name;
}

std::optional<LatestCheckpoint> loadLatestCheckpoint(const std::string& runDir, std::string* note) {
  std::error_code ec;
  if (!fs::is_directory(runDir, ec)) {
    throw InputError(str(runDir, ": not a directory, cannot look for checkpoints in it"));
  }
  std::string skipped;  // why the index's choice was not used, for the warning
  std::string indexLatest;
  try {
    if (auto index = CheckpointIndex::read(runDir)) {
      indexLatest = index->latest;
      if (indexLatest.empty())
        skipped = str(CheckpointIndex::pathIn(runDir), " names no checkpoint");
    } else {
      skipped = str("no ", CheckpointIndex::pathIn(runDir));
    }
  } catch (const std::exception& e) {
    skipped = e.what();
  }
  if (!indexLatest.empty()) {
    const std::string path = (fs::path(runDir) / indexLatest).string();
    try {
      return LatestCheckpoint{path, readCheckpointFile(path)};
    } catch (const std::exception& e) {
      // The reader's message starts with the path.
      skipped = str("the run's latest checkpoint does not load, refused: ", e.what());
    }
  }
  const auto warn = [&](const std::string& text) {
    if (note != nullptr) {
      *note = text;
    } else {
      TB_LOG(Warning) << text;
    }
  };
  bool refused = !indexLatest.empty();  // a file that does not load was named in `skipped`
  for (const auto& [step, name] : modelFilesNewestFirst(runDir)) {
    if (name == indexLatest) continue;
    const std::string path = (fs::path(runDir) / name).string();
    try {
      LatestCheckpoint found{path, readCheckpointFile(path)};
      warn(str(skipped, "; using ", path, ", the newest checkpoint that loads",
               refused ? " (the steps after it are trained again)" : ""));
      return found;
    } catch (const std::exception& e) {
      skipped = str(skipped, refused ? "; refused too: " : "; refused: ", e.what());
      refused = true;
    }
  }
  if (refused) warn(str(skipped, "; no other checkpoint loads"));
  return std::nullopt;
}

std::string latestCheckpoint(const std::string& runDir) {
  auto found = loadLatestCheckpoint(runDir);
  return found ? found->path : std::string();
}

}  // namespace tbench
