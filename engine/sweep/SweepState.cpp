#include "engine/sweep/SweepState.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/project/ProjectFiles.h"
#include "engine/sweep/Sweep.h"

namespace tbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::vector<std::pair<TrialState, const char*>> kStates = {
    {TrialState::Pending, "pending"},   {TrialState::Running, "running"},
    {TrialState::Finished, "finished"}, {TrialState::Failed, "failed"},
    {TrialState::Pruned, "pruned"},     {TrialState::Cancelled, "cancelled"}};

std::optional<TrialState> trialStateFrom(const std::string& text) {
  for (const auto& [state, name] : kStates) {
    if (text == name) return state;
  }
  return std::nullopt;
}

}  // namespace

const char* toString(TrialState state) {
  for (const auto& [s, name] : kStates) {
    if (s == state) return name;
  }
  return "pending";
}

json SweepState::toJson() const {
  json trialsJson = json::array();
  for (const TrialRecord& t : trials) {
    trialsJson.push_back({{"index", t.index},
                          {"values", t.values},
                          {"state", toString(t.state)},
                          {"run_dir", t.runDir},
                          {"pid", t.pid},
                          {"host", t.host},
                          {"slot", t.slot},
                          {"started", t.started},
                          {"ended", t.ended},
                          {"metric", t.metric},
                          {"pruned_at", t.prunedAt},
                          {"detail", t.detail},
                          {"stop_requested", t.stopRequested},
                          {"resume", t.resume}});
  }
  return {{"format", 1},
          {"sweep_file", sweepFile},
          {"base_project", baseProject},
          {"queue", {{"pid", queuePid}, {"host", queueHost}}},
          {"sweep_id", sweepId},
          {"metric", {{"name", metric}, {"goal", goalName(maximize)}}},
          {"parameters", parameters},
          {"trials", trialsJson}};
}

SweepState SweepState::fromJson(const json& doc) {
  SweepState s;
  s.sweepFile = doc.at("sweep_file").get<std::string>();
  s.baseProject = doc.value("base_project", std::string());
  const json queue = doc.value("queue", json::object());
  if (queue.is_object()) {
    s.queuePid = queue.value("pid", int64_t{0});
    s.queueHost = queue.value("host", std::string());
  }
  s.sweepId = doc.at("sweep_id").get<std::string>();
  const json metric = doc.value("metric", json::object());
  s.metric = metric.value("name", "");
  s.maximize = metric.value("goal", "minimize") == "maximize";
  s.parameters = doc.value("parameters", std::vector<std::string>());
  for (const json& t : doc.at("trials")) {
    TrialRecord r;
    r.index = t.at("index").get<int64_t>();
    r.values = t.at("values");
    const auto state = trialStateFrom(t.at("state").get<std::string>());
    if (!state)
      throw InputError("unknown trial state \"" + t.at("state").get<std::string>() + "\"");
    r.state = *state;
    r.runDir = t.value("run_dir", "");
    r.pid = t.value("pid", int64_t{0});
    r.host = t.value("host", "");
    r.slot = t.value("slot", -1);
    r.started = t.value("started", 0.0);
    r.ended = t.value("ended", 0.0);
    for (const json& v : t.value("metric", json::array())) {
      r.metric.push_back(v.is_number() ? v.get<double>() : std::nan(""));
    }
    r.prunedAt = t.value("pruned_at", int64_t{0});
    r.detail = t.value("detail", "");
    r.stopRequested = t.value("stop_requested", false);
    r.resume = t.value("resume", false);
    s.trials.push_back(std::move(r));
  }
  return s;
}

std::optional<SweepState> readSweepState(const std::string& sweepDir) {
  const std::string path = (fs::path(sweepDir) / SweepState::kFileName).string();
  if (!fs::exists(path)) return std::nullopt;
  try {
    return SweepState::fromJson(json::parse(readFile(path)));
  } catch (const std::exception& e) {
    throw InputError(path + ": not a valid sweep state (" + e.what() + ")");
  }
}

SweepControl readSweepControl(const std::string& sweepDir) {
  const std::string path = (fs::path(sweepDir) / SweepControl::kFileName).string();
  SweepControl control;
  if (!fs::exists(path)) return control;
  try {
    const json doc = json::parse(readFile(path));
    control.runFirst = doc.value("run_first", std::vector<int64_t>());
    control.cancel = doc.value("cancel", std::vector<int64_t>());
  } catch (const std::exception& e) {
    throw InputError(path + ": not a valid sweep control file (" + e.what() +
                     "); expected {\"run_first\": [trial, ...], \"cancel\": [trial, ...]}");
  }
  return control;
}

namespace {

void writeSweepControl(const std::string& sweepDir, const SweepControl& control) {
  writeFileAtomically(
      (fs::path(sweepDir) / SweepControl::kFileName).string(),
      json{{"run_first", control.runFirst}, {"cancel", control.cancel}}.dump(2) + "\n");
}

}  // namespace

void requestTrialNext(const std::string& sweepDir, int64_t trial) {
  SweepControl control = readSweepControl(sweepDir);
  control.runFirst.erase(std::remove(control.runFirst.begin(), control.runFirst.end(), trial),
                         control.runFirst.end());
  control.runFirst.insert(control.runFirst.begin(), trial);
  writeSweepControl(sweepDir, control);
}

void requestTrialCancel(const std::string& sweepDir, int64_t trial) {
  SweepControl control = readSweepControl(sweepDir);
  if (std::find(control.cancel.begin(), control.cancel.end(), trial) != control.cancel.end()) {
    return;
  }
  control.cancel.push_back(trial);
  writeSweepControl(sweepDir, control);
}
SweepStateLock::SweepStateLock(const std::string& sweepDir) {
  const std::string path = (fs::path(sweepDir) / "sweep-state.lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    // Without the lock the tasks would overwrite each other's records (a Lustre mounted with
    // noflock says ENOSYS): refused.
    const int error = errno;
    ::close(fd_);
    throw InputError("cannot lock " + path + ": " + std::strerror(error) +
                     " (the sweep's directory must be on a filesystem with flock, shared by the "
                     "nodes: local, NFSv4, Lustre with -o flock, GPFS)");
  }
}

SweepStateLock::~SweepStateLock() { ::close(fd_); }

void withdrawTrialCancel(const std::string& sweepDir, int64_t trial) {
  SweepControl control = readSweepControl(sweepDir);
  const auto asked = std::find(control.cancel.begin(), control.cancel.end(), trial);
  if (asked == control.cancel.end()) return;
  control.cancel.erase(asked);
  writeSweepControl(sweepDir, control);
}

std::string defaultSweepDir(const std::string& sweepFile) {
  const fs::path file = fs::absolute(sweepFile);
  return (file.parent_path() / "sweeps" / file.stem()).lexically_normal().string();
}

std::vector<int64_t> rankTrials(const SweepState& state, bool maximize) {
  const auto group = [](const TrialRecord& t) {
    const bool result = !t.metric.empty();
    if (t.state == TrialState::Finished && result) return 0;
    if (t.state == TrialState::Pruned && result) return 1;
    return 2;
  };
  const auto score = [&](const TrialRecord& t) {
    if (group(t) == 2 || !std::isfinite(t.metric.back())) return HUGE_VAL;
    return maximize ? -t.metric.back() : t.metric.back();
  };
  std::vector<const TrialRecord*> order;
  for (const TrialRecord& t : state.trials) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [&](const TrialRecord* a, const TrialRecord* b) {
    if (group(*a) != group(*b)) return group(*a) < group(*b);
    if (group(*a) == 2) return a->index < b->index;
    return score(*a) < score(*b);
  });
  std::vector<int64_t> ranked;
  for (const TrialRecord* t : order) ranked.push_back(t->index);
  return ranked;
}

std::optional<int64_t> bestTrial(const SweepState& state, bool maximize) {
  // A finished trial whose last value is NaN (it diverged) ranks first of nothing: the best is
  // the first ranked trial with a finite result, also a pruned one after it.
  for (const int64_t index : rankTrials(state, maximize)) {
    const TrialRecord& t = state.trials[static_cast<size_t>(index)];
    if ((t.state == TrialState::Finished || t.state == TrialState::Pruned) && !t.metric.empty() &&
        std::isfinite(t.metric.back()))
      return t.index;
  }
  return std::nullopt;
}

}  // namespace tbench
