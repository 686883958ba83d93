#include "engine/run/RunStatus.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {
namespace {

std::string utcNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string pathIn(const std::string& runDir) {
  return (std::filesystem::path(runDir) / RunStatusRecord::kFileName).string();
}

// object[key] as an integer; throws for another type. A float is truncated, as nlohmann's
// get<int64_t> does, but only one that has an int64_t value: casting 1e300 would be undefined
// (found by fuzz_run_status).
int64_t integerAt(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = object.at(key);
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (!(number >= -0x1p63 && number < 0x1p63)) {
      throw InputError(str("\"", key, "\" is ", value.dump(), " (expected an integer)"));
    }
    return static_cast<int64_t>(number);
  }
  return value.get<int64_t>();
}

// An optional integer field: 0 when absent.
int64_t integerOr0(const nlohmann::json& object, const char* key) {
  return object.contains(key) ? integerAt(object, key) : 0;
}

}  // namespace

const char* toString(RecordedState state) {
  switch (state) {
    case RecordedState::Running:
      return "running";
    case RecordedState::Finished:
      return "finished";
    case RecordedState::Stopped:
      return "stopped";
    case RecordedState::Failed:
      return "failed";
  }
  return "running";
}

std::optional<RecordedState> recordedStateFromString(const std::string& text) {
  for (RecordedState s : {RecordedState::Running, RecordedState::Finished, RecordedState::Stopped,
                          RecordedState::Failed}) {
    if (text == toString(s)) return s;
  }
  return std::nullopt;
}

std::string thisHost() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

bool processRunning(int64_t pid) {
  // pid_t is narrower than run.json's integers: a larger pid is no process, not a truncated one.
  if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return errno == EPERM;  // EPERM: another user's
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t close = line.rfind(')');  // "pid (name) S ...": the state follows the name
  return !(close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z');
}

bool RunStatusRecord::processAlive() const {
  if (host != thisHost()) return true;
  return processRunning(pid);
}

std::string RunStatusRecord::toJson() const {
  nlohmann::json best = nlohmann::json::object();
  for (const auto& [stat, entry] : this->best) {
    best[stat] = {{"value", entry.first}, {"global_step", entry.second}};
  }
  nlohmann::json doc = {{"format", 1},
                        {"state", toString(state)},
                        {"origin", origin},
                        {"project", project},
                        {"host", host},
                        {"pid", pid},
                        {"started", started},
                        {"updated", updated},
                        {"ended", ended.empty() ? nlohmann::json() : nlohmann::json(ended)},
                        {"epoch", epoch},
                        {"global_step", globalStep},
                        {"max_epoch", maxEpoch},
                        {"steps_per_epoch", stepsPerEpoch},
                        {"last_scalars", lastScalars},
                        {"best", best}};
  if (!error.empty()) doc["error"] = error;
  // Non-finite scalars (a diverged cost) are written as null by nlohmann: still valid JSON.
  return doc.dump(2) + "\n";
}

std::optional<RunStatusRecord> readRunStatus(const std::string& runDir) {
  const std::string path = pathIn(runDir);
  if (!std::filesystem::exists(path)) return std::nullopt;
  try {
    const auto doc = nlohmann::json::parse(readFile(path));
    RunStatusRecord r;
    const std::string state = doc.at("state").get<std::string>();
    const std::optional<RecordedState> known = recordedStateFromString(state);
    if (!known) {
      throw InputError(
          str("\"state\" is \"", state, "\" (expected running, finished, stopped or failed)"));
    }
    r.state = *known;
    r.origin = doc.value("origin", "");
    r.project = doc.value("project", "");
    r.host = doc.value("host", "");
    r.pid = integerOr0(doc, "pid");
    r.started = doc.value("started", "");
    r.updated = doc.value("updated", "");
    if (doc.contains("ended") && doc["ended"].is_string()) r.ended = doc["ended"];
    r.epoch = integerOr0(doc, "epoch");
    r.globalStep = integerOr0(doc, "global_step");
    r.maxEpoch = integerOr0(doc, "max_epoch");
    r.stepsPerEpoch = integerOr0(doc, "steps_per_epoch");
    const nlohmann::json scalars = doc.value("last_scalars", nlohmann::json::object());
    for (const auto& [name, value] : scalars.items()) {
      if (value.is_number()) r.lastScalars[name] = value.get<double>();
    }
    const nlohmann::json best = doc.value("best", nlohmann::json::object());
    for (const auto& [stat, entry] : best.items()) {
      r.best[stat] = {entry.at("value").get<double>(), integerAt(entry, "global_step")};
    }
    r.error = doc.value("error", "");
    return r;
  } catch (const std::exception& e) {
    throw InputError(str(path, ": not a valid run.json (", e.what(), ")"));
  }
}

RunStatusWriter::RunStatusWriter(std::string runDir, std::string origin, std::string project)
    : runDir_(std::move(runDir)) {
  record_.origin = std::move(origin);
  record_.project = std::move(project);
  record_.host = thisHost();
  record_.pid = static_cast<int64_t>(::getpid());
  record_.started = utcNow();
  write();  // the run exists from here on, even if setting it up fails
}

void RunStatusWriter::processScalar(const std::string& name, double value, const MetricStamp&) {
  record_.lastScalars[name] = value;
}

void RunStatusWriter::onBeforeTrain() {
  record_.maxEpoch = context().maxEpoch();
  record_.stepsPerEpoch = context().stepsPerEpoch();
  record_.epoch = context().epochNum();
  record_.globalStep = context().globalStep();
  write();
}

void RunStatusWriter::onTriggerEpoch() {
  record_.epoch = context().epochNum();
  record_.globalStep = context().globalStep();
  write();
}

void RunStatusWriter::finish(RecordedState state, const std::string& error) {
  record_.state = state;
  record_.error = error;
  record_.ended = utcNow();
  if (isSetUp()) {
    record_.epoch = context().epochNum();
    record_.globalStep = context().globalStep();
  }
  write();
}

void RunStatusWriter::write() {
  record_.updated = utcNow();
  try {
    // The best values the savers recorded (MinSaver/MaxSaver), read from the engine's index.
    if (auto index = CheckpointIndex::read(runDir_)) {
      record_.best.clear();
      for (const auto& [stat, entry] : index->best) {
        record_.best[stat] = {entry.value, entry.globalStep};
      }
    }
  } catch (const std::exception& e) {
    TB_LOG(Warning) << "run.json: best values not updated: " << e.what();
  }
  try {
    writeFileAtomically(pathIn(runDir_), record_.toJson());
  } catch (const std::exception& e) {
    TB_LOG(Warning) << "cannot write " << pathIn(runDir_) << ": " << e.what();
  }
}

}  // namespace tbench
