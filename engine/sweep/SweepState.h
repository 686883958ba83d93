#pragma once
// A sweep's state on disk (Note [The sweep queue], SweepQueue.h): sweep-state.json (every
// trial's state, process, run directory, metric per epoch and times) and control.json (what is
// asked of a running queue: trials to run first, trials to cancel), with their readers and the
// requests the window and users write.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tbench {

enum class TrialState { Pending, Running, Finished, Failed, Pruned, Cancelled };
/// "pending", "running", "finished", "failed", "pruned", "cancelled".
const char* toString(TrialState state);

struct TrialRecord {
  int64_t index = 0;
  nlohmann::json values = nlohmann::json::object();
  TrialState state = TrialState::Pending;
  std::string runDir;
  int64_t pid = 0;
  std::string host;
  int slot = -1;       ///< while running
  double started = 0;  ///< seconds since the Unix epoch (0: not yet)
  double ended = 0;
  /// The sweep's metric as logged, one value per epoch that has it (Note [A sweep's metric by
  /// occurrence]).
  std::vector<double> metric;
  int64_t prunedAt = 0;        ///< the band (its metric's value count) that stopped a pruned trial
  std::string detail;          ///< why it failed, or how it ended
  bool stopRequested = false;  ///< SIGTERM sent (pruning or cancelling)
  bool resume = false;         ///< start it with --resume (a failed trial retried)
};

struct SweepState {
  static constexpr const char* kFileName = "sweep-state.json";
  static constexpr const char* kPauseFileName = "pause";
  std::string sweepFile;
  std::string baseProject;  ///< --base-project, when the sweep file's project is a W&B name
  /// The queue running the sweep (0: none, or it ended): a second queue on the same directory is
  /// refused while this one lives, and the window shows a sweep running outside it.
  int64_t queuePid = 0;
  std::string queueHost;
  std::string sweepId;
  std::string metric;  ///< the sweep's metric, so that the file is whole
  bool maximize = false;
  std::vector<std::string> parameters;  ///< the parameter paths, in the sweep's order
  std::vector<TrialRecord> trials;
  nlohmann::json toJson() const;
  static SweepState fromJson(const nlohmann::json& doc);
};

/// Where a sweep's state goes unless told (the CLI's and the window's default): sweeps/<name>
/// beside the sweep file, <name> its file name without the last extension.
std::string defaultSweepDir(const std::string& sweepFile);

/// The trials best first (the one ranking of a sweep, for the CLI, the window and the search):
/// finished trials by their metric's last value, then pruned ones by theirs (a trial stopped at a
/// band has a value of fewer epochs: it does not outrank one that ran to its end), then the
/// others (running, failed, cancelled, pending) by index. A non-finite last value ranks last of
/// its group.
std::vector<int64_t> rankTrials(const SweepState& state, bool maximize);
/// The best trial: the first of rankTrials with a finite result; nullopt when none has one.
std::optional<int64_t> bestTrial(const SweepState& state, bool maximize);

/// What is asked of a running sweep (control.json).
struct SweepControl {
  static constexpr const char* kFileName = "control.json";
  std::vector<int64_t> runFirst;
  std::vector<int64_t> cancel;
};
/// The requests in `sweepDir` (none when it has no control.json). Throws InputError naming the
/// file when it is damaged.
SweepControl readSweepControl(const std::string& sweepDir);
/// Asks the queue to start `trial` before the other pending ones (the latest asked first).
void requestTrialNext(const std::string& sweepDir, int64_t trial);
/// Asks the queue to cancel `trial` (pending, or running: stopped at a step, cancelled).
void requestTrialCancel(const std::string& sweepDir, int64_t trial);

/// The state in `sweepDir`; nullopt when there is none. Throws InputError naming the file when
/// it is damaged.
std::optional<SweepState> readSweepState(const std::string& sweepDir);
/// An exclusive flock of DIR/sweep-state.lock while it lives: the processes that share a sweep's
/// state (SLURM array tasks) read and write it one at a time. Throws InputError when the
/// directory's filesystem cannot lock.
class SweepStateLock {
 public:
  explicit SweepStateLock(const std::string& sweepDir);
  ~SweepStateLock();  // closing releases the lock
  SweepStateLock(const SweepStateLock&) = delete;
  SweepStateLock& operator=(const SweepStateLock&) = delete;

 private:
  int fd_ = -1;
};

/// Withdraws an earlier request to cancel `trial` (a trial retried is asked anew).
void withdrawTrialCancel(const std::string& sweepDir, int64_t trial);

}  // namespace tbench
