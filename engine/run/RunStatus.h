#pragma once
// run.json: a run's status as data, in its run directory (docs/ARCHITECTURE.md §6a). The
// Run History, a window following a run and scripts read it; nothing parses log text to learn
// a run's state.
//
//   {"format": 1, "state": "running" | "finished" | "stopped" | "failed",
//    "origin": "towerbench-cli train p.json" | "started from the GUI (p.json)" |
//              "resumed from the GUI (p.json)",
//    "project": "name",
//    "host": "...", "pid": 1234, "started": "2026-11-24T01:05:00Z", "updated": "...",
//    "ended": "..." | null, "epoch": 3, "global_step": 1404, "max_epoch": 10,
//    "steps_per_epoch": 468, "last_scalars": {"cost": 0.31, ...},
//    "best": {"validation_error": {"value": 0.0685, "global_step": 4212}},
//    "error": "..." (failed only)}
//
// The file is rewritten atomically at the start, after every epoch and at the end, so a kill
// at any moment leaves the previous version. A run killed outright stays "running": readers
// tell it from a live one by host and pid (RunStatusRecord::processAlive).

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

/// A run's state, as run.json records it: the one vocabulary of a run's state (the window's
/// bridge::RunState mirrors it and adds the states only a live window sees). A run killed
/// outright stays Running in its file (RunStatusRecord::processAlive tells).
enum class RecordedState { Running, Finished, Stopped, Failed };
/// "running", "finished", "stopped", "failed": the words run.json uses.
const char* toString(RecordedState state);
/// The state named `text` in run.json; nullopt for another word.
std::optional<RecordedState> recordedStateFromString(const std::string& text);

struct RunStatusRecord {
  static constexpr const char* kFileName = "run.json";
  RecordedState state = RecordedState::Running;
  std::string origin;
  std::string project;
  std::string host;
  int64_t pid = 0;
  std::string started;
  std::string updated;
  std::string ended;  ///< empty while running
  int64_t epoch = 0;
  int64_t globalStep = 0;
  int64_t maxEpoch = 0;
  int64_t stepsPerEpoch = 0;
  std::map<std::string, double> lastScalars;
  std::map<std::string, std::pair<double, int64_t>> best;  ///< stat -> (value, global step)
  std::string error;

  /// For a Running record: whether its process still exists (same host, the pid alive).
  /// Always true for another host, which cannot be checked from here.
  bool processAlive() const;
  std::string toJson() const;
};

/// This machine's name as run.json records it (its `host`; "localhost" when unknown).
std::string thisHost();

/// Whether process `pid` of this host still runs: it exists and is not a zombie (a process
/// whose parent died may be re-parented to one that never reaps it). The one process check of
/// run.json's readers and the sweep queue.
bool processRunning(int64_t pid);

/// The run.json of `runDir`; nullopt when there is none. Throws InputError naming the file
/// when it is not a valid run.json.
std::optional<RunStatusRecord> readRunStatus(const std::string& runDir);

/// Keeps run.json up to date: a monitor (it sees every scalar and the loop's hooks) and the
/// place the run's end is recorded. Every call is on the thread that trains (finish() after
/// train() returned or threw), so nothing here locks: a scalar costs one map assignment.
class RunStatusWriter : public TrainingMonitor {
 public:
  RunStatusWriter(std::string runDir, std::string origin, std::string project);
  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override;
  /// Writes the final state: Finished, Stopped, or Failed with `error`. Never throws (a failed
  /// write is logged).
  void finish(RecordedState state, const std::string& error = "");

 private:
  void onBeforeTrain() override;
  void onTriggerEpoch() override;
  void write();

  std::string runDir_;
  RunStatusRecord record_;
};

}  // namespace tbench
