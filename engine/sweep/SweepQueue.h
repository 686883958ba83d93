#pragma once
// The sweep's queue (Note [The sweep queue]): runs a sweep's trials as `towerbench-cli train`
// processes on device slots, stops the ones hyperband says to, and keeps the state of every
// trial in the sweep's directory.
//
// Note [The sweep queue]
// - A trial is `towerbench-cli train BASE --set path=value ... --run-dir DIR`: the base
//   project's own file with the trial's values applied by the CLI's --set (so its relative data
//   paths still mean the base project's folder), in an ordinary run directory
//   <run_root>/<name>/<sweep id>-t<NN> beside the project's other runs (Run History, overlays,
//   export and resume work on trials unchanged). A crashing trial takes nothing else down and
//   its memory (a GPU's too) is freed when its process ends.
// - Slots: at most `slotCount` trials at once. On the CPU each trial gets cores / slots intra-op
//   threads (--set num_threads); a project whose devices are CUDA gets as many GPUs per slot as
//   it uses (CUDA_VISIBLE_DEVICES, slot k = the k-th group; gpuSlots), seen as cuda:0, ...
// - sweep-state.json in the sweep's directory holds every trial's state (pending, running,
//   finished, failed, pruned, cancelled), process, run directory, metric per epoch and times;
//   it is rewritten atomically on every change. The trials do not die with the queue (their own
//   process groups): a queue started again on the same directory adopts the trials still
//   running, records those that ended meanwhile from their run.json (a trial whose process is
//   gone and whose run.json still says running failed), and goes on with the pending ones.
// - Pausing: while the file `pause` exists in the sweep's directory (the window's Pause Sweep,
//   or `touch DIR/pause`), no trial starts; the running ones go on. Removing it resumes.
// - Requests (control.json in the sweep's directory, written by the window's Run Next and
//   Cancel Trial, or by hand): {"run_first": [trial, ...], "cancel": [trial, ...]}, read every
//   poll. Pending trials start in run_first's order, then by index; a cancelled trial that has
//   not started is cancelled, a running one gets SIGTERM and ends cancelled. A shared sweep's
//   task honours the cancel of its own trial (the order is SLURM's there).
// - Sequential sweeps (random without run_cap, bayes, tpe; Note [Sweep search]): a trial is made
//   when a slot is free, from the results so far, until run_cap, a stop, or metric.target; a
//   queue started again goes on from the trials in sweep-state.json. metric.target (any sweep):
//   once a trial's value reaches it, no trial starts (pending ones end cancelled, saying why).
// - A running trial whose cost is no longer finite (stats.json) is stopped and ends failed,
//   saying where it diverged.
// - Early termination: after every poll, W&B's hyperband rule (Hyperband.h) over the metric of
//   every trial's stats.json; a trial to stop gets SIGTERM (the CLI stops at the next step
//   boundary and saves) and is recorded as pruned with the band that stopped it.
// - One trial of a shared sweep (Options::onlyTrial: a SLURM array task, `towerbench-cli sweep
//   SWEEP --trial K`): the process runs trial K alone, and sweep-state.json is shared with the
//   other tasks, on any node that sees the directory. Every poll, under an flock of
//   sweep-state.lock, it reads the others' records from the file and writes its own only, so
//   hyperband judges trial K against every trial's metric so far and each task stops its own
//   trial. Its train process stays in the task's process group (SLURM's job teardown reaches
//   it). A task run again on a trial that was running elsewhere (a requeued task) resumes it
//   from its checkpoint; one whose trial has ended does nothing.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/sweep/Sweep.h"
#include "engine/sweep/SweepState.h"

namespace tbench {

struct Project;

/// "path=value, ..." of a trial's values, as the queue's lines say them.
std::string trialValuesText(const nlohmann::json& values);

/// The project's CUDA devices, each once (towers may share one), in order of first use: what a
/// slot's GPUs stand for (the queue, the CLI's default slots and --gpus-per-trial).
std::vector<std::string> projectGpus(const Project& project);

/// The CUDA_VISIBLE_DEVICES of each slot: `gpus` in groups of `towers` (one per CUDA tower of
/// the project), at most `slots` groups; empty when fewer GPUs than towers.
std::vector<std::string> gpuSlots(const std::vector<std::string>& gpus, int towers, int slots);

class SweepQueue {
 public:
  struct Options {
    std::string cli;       ///< the towerbench-cli to run trials with
    std::string sweepDir;  ///< where sweep-state.json and the trials' output go
    int slotCount = 1;
    int pollMs = 200;
    std::function<void(const std::string&)> log;  ///< progress lines (may be empty)
    /// Failed trials of an existing sweep (and those cancelled after they started) that saved
    /// a checkpoint run again, resumed from it (train --resume in their run directory); those
    /// without one stay as they are, saying so.
    bool retryFailed = false;
    /// >= 0: run this trial only, sharing sweep-state.json with other processes (above).
    int64_t onlyTrial = -1;
    /// No process of this sweep is alive elsewhere (squeue lists no job of it): trials still
    /// recorded running failed (killed without recording an end); --retry-failed resumes them.
    bool noLiveTasks = false;
    /// The GPUs this machine has, when known (without CUDA_VISIBLE_DEVICES, slots get GPUs
    /// 0 .. visibleGpus-1; 0: slots x the project's GPUs are assumed to exist).
    int visibleGpus = 0;
    /// The base project, when the sweep file's `project` is a W&B project name (--base-project).
    std::string baseProject;
  };

  /// `sweepFile` as given (recorded in the state). Throws SweepError for a sweep whose trials do
  /// not validate, before anything runs.
  SweepQueue(const std::string& sweepFile, Options options);

  /// Runs every trial to its end (or until stop()). Returns the final state.
  SweepState run();
  /// Cancels: running trials get SIGTERM and end cancelled, pending ones are cancelled. Any
  /// thread.
  void stop() { stopRequested_ = true; }
  const SweepSpec& sweep() const { return sweep_; }
  /// The state as last saved (run() returns the final one).
  const SweepState& state() const { return state_; }
  /// Whether the last save wrote sweep-state.json (false: it said why through the log).
  bool saved() const { return !saved_.empty() && saveError_.empty(); }

 private:
  /// Whether this queue runs `trial` (every trial, or its onlyTrial).
  bool mine(const TrialRecord& trial) const {
    return options_.onlyTrial < 0 || trial.index == options_.onlyTrial;
  }
  /// The state for a new sweep directory.
  void initialState(const std::string& sweepFile, const Project& base);
  void start(TrialRecord& trial, int slot);
  void retryFailed();
  /// A trial of a shared sweep whose task runs again: pending, from its checkpoint if any.
  void restartTrial(TrialRecord& trial);
  void reap();
  /// Reads the sweep's metric of `trial` from its stats.json.
  void readMetric(TrialRecord& trial) const;
  void readMetrics();
  /// control.json's cancels; returns its run_first order.
  std::vector<int64_t> applyRequests();
  void prune();
  /// Stops the running trials whose cost is no longer finite; they end failed, saying so.
  void stopDiverged();
  /// Writes sweep-state.json when the state changed since the last write; a shared sweep's
  /// queue takes the other trials' records from the file first and writes its own only.
  void save(bool locked = false);
  void say(const std::string& line) const;
  std::string trialRunDir(int64_t index) const;
  /// Whether a sequential sweep makes another trial now (not stopped, capped or at its target).
  bool canAddTrial() const;
  /// Makes the next trial of a sequential sweep (Note [Sweep search]): pending, or failed when
  /// its project is invalid.
  void addTrial();
  /// Whether some trial has reached metric.target (targetTrial_).
  void checkTarget();

  SweepSpec sweep_;
  std::vector<SweepTrial> trials_;
  nlohmann::json base_;
  Options options_;
  SweepState state_;
  std::string saved_;       // the text last written
  std::string badControl_;  // the damaged control.json's message, said once
  std::string saveError_;   // why the last save failed (empty: it did not)
  bool cuda_ = false;
  std::vector<std::string> gpus_;         ///< each slot's CUDA_VISIBLE_DEVICES (gpuSlots)
  std::vector<std::string> slotDevices_;  ///< trainer.devices within a slot's GPUs
  std::vector<int64_t> maxEpochs_;        ///< per trial (max_epoch may be a parameter)
  /// Per trial index, the last epoch its stats.json has (readMetric).
  mutable std::map<int64_t, int64_t> lastEpoch_;
  /// Per trial index, why it diverged (a cost that is not finite), seen by readMetric.
  mutable std::map<int64_t, std::string> diverged_;
  /// Whether the trial's stats.json has reached its max_epoch.
  bool reachedMaxEpoch(const TrialRecord& t) const;
  std::atomic<bool> stopRequested_{false};
  std::string runRoot_;                 ///< where trials' run directories go
  std::optional<int64_t> targetTrial_;  ///< the first trial that reached metric.target
  static constexpr int kMostInvalidInARow = 3;
  int invalidInARow_ = 0;  ///< proposals in a row the project refused
};

}  // namespace tbench
