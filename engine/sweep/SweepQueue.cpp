#include "engine/sweep/SweepQueue.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/ChildProcess.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/RunDirectory.h"
#include "engine/run/RunStatus.h"

extern char** environ;

namespace tbench {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string twoDigits(int64_t i) { return (i < 10 ? "0" : "") + std::to_string(i); }

/// Whether `train --resume` in `runDir` has a checkpoint to continue from: the one the resume
/// itself would load (the checkpoint index's latest, or the newest model-<step>.pt that loads),
/// not any file named like one (a truncated checkpoint is not one).
bool hasCheckpoint(const std::string& runDir) {
  std::error_code error;
  if (!fs::is_directory(runDir, error)) return false;
  try {
    return !latestCheckpoint(runDir).empty();
  } catch (const std::exception&) {
    return false;
  }
}

/// Recorded running on this host, and its process is alive.
bool runsHere(const TrialRecord& t) {
  return t.state == TrialState::Running && t.host == thisHost() && processRunning(t.pid);
}

/// Note [A requeued task's predecessor]: SLURM may start a requeued task while the task it
/// replaces is still ending: that one's trial, stopped by the job's signal, may still be saving
/// its checkpoint, its task then records how it ended. Read too early, the trial looks
/// "running here, its process alive", neither requeued nor ours, and the new task ended
/// without going on with it (test_Slurm, 1 run in 9 with the 2 cores busy). So a task first
/// waits, up to `limitS`, until its trial is no longer recorded running on this host with a
/// live process.
void waitForTheTrialsLastProcess(const std::string& sweepDir, int64_t trial, double limitS) {
  for (const double until = now() + limitS; now() < until;
       std::this_thread::sleep_for(std::chrono::milliseconds(100))) {
    std::optional<SweepState> state;
    try {
      state = readSweepState(sweepDir);
    } catch (const std::exception&) {
      continue;  // being replaced: read again
    }
    if (!state || trial >= static_cast<int64_t>(state->trials.size())) return;  // a new sweep
    if (!runsHere(state->trials[static_cast<size_t>(trial)])) return;
  }
}

}  // namespace

std::string trialValuesText(const json& values) {
  std::string text;
  for (const auto& [path, value] : values.items()) {
    text += (text.empty() ? "" : ", ") + path + "=" + value.dump();
  }
  return text;
}

std::vector<std::string> projectGpus(const Project& project) {
  std::vector<std::string> gpus;
  for (const std::string& d : project.devices()) {
    if (d.rfind("cuda", 0) == 0 && std::find(gpus.begin(), gpus.end(), d) == gpus.end()) {
      gpus.push_back(d);
    }
  }
  return gpus;
}

std::vector<std::string> gpuSlots(const std::vector<std::string>& gpus, int towers, int slots) {
  std::vector<std::string> out;
  if (towers < 1) return out;
  for (size_t first = 0; first + static_cast<size_t>(towers) <= gpus.size() &&
                         static_cast<int>(out.size()) < std::max(1, slots);
       first += static_cast<size_t>(towers)) {
    std::string group;
    for (int i = 0; i < towers; ++i) group += (i ? "," : "") + gpus[first + static_cast<size_t>(i)];
    out.push_back(group);
  }
  return out;
}

SweepQueue::SweepQueue(const std::string& sweepFile, Options options)
    : options_(std::move(options)) {
  sweep_ = loadSweepFile(sweepFile, options_.baseProject);
  base_ = readProjectJson(sweep_.projectPath());
  // Every listed trial valid, or nothing runs; a sequential sweep's first ones are checked here
  // and its trials are made as it runs (addTrial).
  SweepPlan plan = planSweep(sweep_, base_);
  if (!sweep_.sequential()) {
    trials_ = std::move(plan.trials);
    maxEpochs_ = std::move(plan.maxEpochs);
  } else if (options_.onlyTrial >= 0) {
    throw InputError(sweepFile + ": a " + sweep_.method +
                     " sweep makes its trials as it runs, so a SLURM array cannot list them: "
                     "give run_cap with method grid or random for --slurm");
  }
  const Project base = projectFromJson(base_, sweep_.projectPath());
  const std::vector<std::string> distinct = projectGpus(base);
  const std::vector<std::string> devices = base.devices();  // a copy: one list to walk
  const bool allCuda = std::all_of(devices.begin(), devices.end(), [](const std::string& device) {
    return device.rfind("cuda", 0) == 0;
  });
  cuda_ = !distinct.empty();
  options_.slotCount = std::max(1, options_.slotCount);
  if (cuda_) {
    // GPUs per slot: slot k gets the k-th group of as many GPUs as the project uses (of an
    // inherited CUDA_VISIBLE_DEVICES list, else 0 .. visibleGpus-1), seen as cuda:0, cuda:1,
    // ...; each tower keeps its place in the group (towers that shared a GPU share it). A
    // project that mixes CPU and CUDA towers, or a machine with fewer GPUs than the project
    // uses, runs the project's own devices, one trial at a time.
    std::vector<std::string> gpus;
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
      std::stringstream list(visible);
      for (std::string id; std::getline(list, id, ',');) {
        if (!id.empty()) gpus.push_back(id);
      }
    } else {
      const int count = options_.visibleGpus > 0
                            ? options_.visibleGpus
                            : options_.slotCount * static_cast<int>(distinct.size());
      for (int i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
    }
    if (allCuda) {
      gpus_ = gpuSlots(gpus, static_cast<int>(distinct.size()), options_.slotCount);
      for (const std::string& device : base.devices()) {
        const auto at = std::find(distinct.begin(), distinct.end(), device) - distinct.begin();
        slotDevices_.push_back("cuda:" + std::to_string(at));
      }
    }
    options_.slotCount = gpus_.empty() ? 1 : static_cast<int>(gpus_.size());
  }
  // Absolute: a SLURM task may start in another working directory.
  runRoot_ = fs::absolute(fs::path(base.runRoot) / base.name).string();
  fs::create_directories(options_.sweepDir);
  if (options_.onlyTrial >= static_cast<int64_t>(trials_.size())) {
    throw InputError("--trial " + std::to_string(options_.onlyTrial) + ": " + sweepFile + " has " +
                     std::to_string(trials_.size()) + " trial(s), 0 to " +
                     std::to_string(trials_.size() - 1));
  }
  if (options_.onlyTrial >= 0) {
    waitForTheTrialsLastProcess(options_.sweepDir, options_.onlyTrial, 120);
  }
  // Tasks of a shared sweep start together: one creates the state, the others read it.
  std::optional<SweepStateLock> lock;
  if (options_.onlyTrial >= 0) lock.emplace(options_.sweepDir);
  if (std::optional<SweepState> existing = readSweepState(options_.sweepDir)) {
    // A sweep started before (by this command or a window that closed): go on with it, if it
    // is the same sweep.
    bool same = existing->trials.size() == trials_.size();
    for (size_t i = 0; same && i < trials_.size(); ++i) {
      same = existing->trials[i].values == trials_[i].values;
    }
    if (sweep_.sequential()) {
      // Its trials so far are the state's: the same sweep has the same parameters and metric.
      std::vector<std::string> paths;
      for (const auto& p : sweep_.parameters) paths.push_back(p.path);
      same = existing->parameters == paths;  // the metric: below
    }
    if (!same) {
      throw InputError(options_.sweepDir + " holds another sweep than " + sweepFile +
                       " (its trials' values differ): give another --sweep-dir");
    }
    // The metric ranks the trials and prunes them: a sweep file edited since (a goal set
    // right, a metric renamed) would rank the trials so far by another rule than the one they
    // were pruned by, and the window (which ranks by the state) and the CLI (by the file)
    // would name different best trials. W&B does not let a sweep's metric change either.
    if (existing->metric != sweep_.metric.name || existing->maximize != sweep_.metric.maximize) {
      throw InputError(options_.sweepDir + " holds a sweep of metric " + existing->metric + " (" +
                       goalName(existing->maximize) + "), but " + sweepFile + " says " +
                       sweep_.metric.name + " (" + goalName(sweep_.metric.maximize) +
                       "): a sweep keeps the metric it started with; give another --sweep-dir "
                       "for the new one");
    }
    if (options_.onlyTrial < 0 && existing->queuePid > 0 && existing->queueHost == thisHost() &&
        existing->queuePid != static_cast<int64_t>(getpid()) &&
        processRunning(existing->queuePid)) {
      // Two queues would start the same pending trials twice.
      throw InputError(options_.sweepDir + ": its queue is already running (pid " +
                       std::to_string(existing->queuePid) +
                       "): stop it first (Stop Sweep, or kill -TERM " +
                       std::to_string(existing->queuePid) + ")");
    }
    state_ = std::move(*existing);
    if (sweep_.sequential()) {
      for (const TrialRecord& t : state_.trials) {
        trials_.push_back(makeTrial(sweep_, base_, t.index, t.values));
        maxEpochs_.push_back(
            projectFromJson(trials_.back().project, sweep_.projectPath()).maxEpoch);
      }
    }
    for (TrialRecord& t : state_.trials) {
      if (!mine(t)) continue;
      // Cancelled before it started: it runs now (a cancelled sweep goes on when run again).
      if (t.state == TrialState::Cancelled && t.started == 0) t.state = TrialState::Pending;
      // A shared sweep's task run again on a trial that was running elsewhere (SLURM requeued
      // it): that process is gone with its node or allocation; the trial goes on from its
      // checkpoint here.
      // A task only runs for a pending trial (a submission) or again for its own (SLURM
      // requeued it after a preemption, a time limit or a lost node): a trial that was running
      // elsewhere, or stopped by SLURM's signal (cancelled after it started), goes on.
      const bool requeued = (t.state == TrialState::Running && !runsHere(t)) ||
                            (t.state == TrialState::Cancelled && t.started > 0);
      if (options_.onlyTrial >= 0 && requeued) restartTrial(t);
    }
    if (options_.noLiveTasks) {
      // No process of the sweep is alive (squeue lists no job of it): a trial still recorded
      // running was killed without recording its end (SIGKILL, a lost node).
      for (TrialRecord& t : state_.trials) {
        if (t.state != TrialState::Running || runsHere(t)) {
          continue;
        }
        t.state = TrialState::Failed;
        t.detail = "its task ended without recording an end (killed, or its node lost)";
        say("trial " + std::to_string(t.index) + " failed: " + t.detail);
      }
    }
    if (options_.retryFailed) retryFailed();
  } else {
    initialState(sweepFile, base);
  }
  save(lock.has_value());
}

void SweepQueue::initialState(const std::string& sweepFile, const Project& base) {
  state_.sweepFile = fs::absolute(sweepFile).lexically_normal().string();  // the window's Continue
  if (!options_.baseProject.empty())
    state_.baseProject = fs::absolute(options_.baseProject).string();
  state_.metric = sweep_.metric.name;
  state_.maximize = sweep_.metric.maximize;
  for (const auto& p : sweep_.parameters) state_.parameters.push_back(p.path);
  // The directory's name and the time: two sweeps never share a trial's run directory.
  fs::path dir = fs::path(options_.sweepDir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  const std::string stamp = newRunId();
  state_.sweepId = dir.filename().string() + "-" + stamp;
  for (const SweepTrial& t : trials_) {
    TrialRecord r;
    r.index = t.index;
    r.values = t.values;
    r.runDir = trialRunDir(t.index);
    state_.trials.push_back(std::move(r));
  }
}

std::string SweepQueue::trialRunDir(int64_t index) const {
  return (fs::path(runRoot_) / (state_.sweepId + "-t" + twoDigits(index))).string();
}

void SweepQueue::say(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void SweepQueue::save(bool locked) {
  const fs::path path = fs::path(options_.sweepDir) / SweepState::kFileName;
  try {
    if (options_.onlyTrial < 0) {
      const std::string text = state_.toJson().dump(2) + "\n";
      if (text == saved_ && saveError_.empty()) return;  // nothing changed: nothing written
      writeFileAtomically(path.string(), text);
      saved_ = text;
      saveError_.clear();
      return;
    }
    // Shared: the others' records as their processes last wrote them, then ours.
    std::optional<SweepStateLock> lock;
    if (!locked) lock.emplace(options_.sweepDir);
    std::string onDisk;
    if (fs::exists(path)) {
      onDisk = readFile(path.string());
      const SweepState others = SweepState::fromJson(json::parse(onDisk));
      for (size_t i = 0; i < state_.trials.size() && i < others.trials.size(); ++i) {
        if (!mine(state_.trials[i])) state_.trials[i] = others.trials[i];
      }
    }
    const std::string text = state_.toJson().dump(2) + "\n";
    if (text != onDisk) writeFileAtomically(path.string(), text);
    saved_ = text;
    saveError_.clear();
  } catch (const std::exception& e) {
    // A full disk (or a state file being replaced by hand) must not end the queue (its trials
    // would run on unwatched): said, and written again at the next poll.
    saveError_ = e.what();
    say(std::string("cannot write the sweep's state: ") + e.what());
  }
}

void SweepQueue::start(TrialRecord& trial, int slot) {
  std::vector<std::string> args = {options_.cli, "train", sweep_.projectPath(), "--run-dir",
                                   trial.runDir};
  if (trial.resume) args.push_back("--resume");
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (gpus_.empty() || std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) != 0) env.emplace_back(*e);
  }
  // The queue's settings first: a swept key of the same name (num_threads) comes later and wins.
  if (!gpus_.empty()) {
    env.push_back("CUDA_VISIBLE_DEVICES=" + gpus_[static_cast<size_t>(slot) % gpus_.size()]);
    const json devices = slotDevices_;  // the slot's GPUs, seen as cuda:0, cuda:1, ...
    args.push_back("--set");
    args.push_back("trainer.devices=" + devices.dump());
  } else if (!cuda_) {
    // A SLURM task has the cores it asked for (--cpus-per-task); this host's are shared out.
    const char* allotted = std::getenv("SLURM_CPUS_PER_TASK");
    const unsigned cores = allotted != nullptr && std::atoi(allotted) > 0
                               ? static_cast<unsigned>(std::atoi(allotted))
                               : std::max(1u, std::thread::hardware_concurrency());
    const unsigned threads = std::max(1u, cores / static_cast<unsigned>(options_.slotCount));
    args.push_back("--set");
    args.push_back("num_threads=" + std::to_string(threads));
  }
  for (const auto& [path, value] : trial.values.items()) {
    args.push_back("--set");
    args.push_back(path + "=" + value.dump());
  }
  const std::string out =
      (fs::path(options_.sweepDir) / ("trial-" + twoDigits(trial.index) + ".out")).string();
  // Its own process group: a Ctrl-C meant for the queue reaches the queue alone, and the trial
  // outlives a queue that was killed. Not for a shared sweep's task: there the trial belongs to
  // the task, whose end (scancel, a time limit) must end it too.
  ProcessSpec spec;
  spec.argv = args;
  spec.environment = env;
  spec.output = ProcessSpec::Output::File;
  spec.outputFile = out;
  spec.ownProcessGroup = options_.onlyTrial < 0;
  ChildProcess child;
  const int error = startProcess(spec, &child);
  const pid_t pid = child.pid;
  trial.started = now();
  if (error != 0) {
    trial.state = TrialState::Failed;
    trial.ended = trial.started;
    trial.detail = "cannot start " + options_.cli + ": " + std::strerror(error);
    say("trial " + std::to_string(trial.index) + " failed: " + trial.detail);
    return;
  }
  trial.state = TrialState::Running;
  trial.pid = pid;
  trial.host = thisHost();
  trial.slot = slot;
  say("trial " + std::to_string(trial.index) + " started (" + trialValuesText(trial.values) +
      ") in " + trial.runDir);
}

void SweepQueue::restartTrial(TrialRecord& t) {
  const std::string from = t.host.empty() ? std::string("before") : "on " + t.host;
  t.state = TrialState::Pending;
  t.resume = hasCheckpoint(t.runDir);
  t.stopRequested = false;
  t.prunedAt = 0;
  t.detail.clear();
  t.ended = 0;
  if (!t.resume) {
    // Nothing to resume from: a fresh start, the partial run kept beside it (train refuses a
    // run directory that has files).
    t.metric.clear();
    std::error_code error;
    if (fs::exists(t.runDir, error)) {
      const std::string aside = t.runDir + "-partial-" + newRunId();
      fs::rename(t.runDir, aside, error);
      if (!error) say("trial " + std::to_string(t.index) + ": its partial run moved to " + aside);
    }
  }
  say("trial " + std::to_string(t.index) + " ran " + from +
      (t.resume ? ": resumes from its latest checkpoint" : ": starts again"));
}

void SweepQueue::retryFailed() {
  for (TrialRecord& t : state_.trials) {
    // Failed, or cancelled after it started (Ctrl-C, scancel, a time limit): both resumable.
    const bool stopped = t.state == TrialState::Cancelled && t.started > 0;
    if ((t.state != TrialState::Failed && !stopped) || !mine(t)) continue;
    if (!hasCheckpoint(t.runDir)) {
      say("trial " + std::to_string(t.index) + " stays failed: " + t.runDir +
          " has no checkpoint to resume from");
      continue;
    }
    t.state = TrialState::Pending;
    t.resume = true;
    t.stopRequested = false;
    t.prunedAt = 0;
    t.detail.clear();
    t.ended = 0;
    say("trial " + std::to_string(t.index) + " will resume from its latest checkpoint");
    // A cancel asked earlier (control.json) would stop it again at once: retried is asked anew.
    try {
      withdrawTrialCancel(options_.sweepDir, t.index);
    } catch (const std::exception& e) {
      say(std::string("cannot update the requests: ") + e.what());
    }
  }
}

void SweepQueue::reap() {
  for (TrialRecord& t : state_.trials) {
    if (t.state != TrialState::Running || !mine(t)) continue;
    const bool here = t.host == thisHost();
    std::optional<int> exitCode;
    std::optional<int> signal;
    bool ended = false;
    bool ours = false;
    if (here) {
      int status = 0;
      const pid_t r = waitpid(static_cast<pid_t>(t.pid), &status, WNOHANG);
      if (r == 0) continue;  // our child, still running
      if (r == static_cast<pid_t>(t.pid)) {
        ended = ours = true;
        if (WIFEXITED(status)) exitCode = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) signal = WTERMSIG(status);
      }
    }
    // Not our child (a trial adopted from an earlier queue, or one on another host): its
    // run.json says when it ended; on this host a process that is gone ended too (a pid reused
    // by another program does not keep a trial whose run.json recorded its end).
    std::optional<RunStatusRecord> record;
    if (!ours) {
      try {
        record = readRunStatus(t.runDir);
      } catch (const std::exception&) {
      }
      ended =
          (record && record->state != RecordedState::Running) || (here && !processRunning(t.pid));
    }
    if (!ended) continue;
    t.ended = now();
    t.slot = -1;
    readMetric(t);  // its last epochs, written after the last poll
    const bool complete = reachedMaxEpoch(t);
    bool clean = false;  // ended at a step boundary (finished, or stopped when told)
    bool finished = false;
    if (ours) {
      finished = exitCode && *exitCode == 0;
      // 130: the CLI stopped at a step after SIGTERM; killed by SIGTERM: told to stop before
      // its loop began (still loading), which loses nothing.
      clean = finished || (exitCode && *exitCode == 130) || (signal && *signal == SIGTERM);
    } else {
      finished = record && record->state == RecordedState::Finished;
      clean = record &&
              (record->state == RecordedState::Finished || record->state == RecordedState::Stopped);
      // Told to stop and gone without recording an end (SIGTERM before its loop began, which
      // loses nothing, as for a child of ours): what it was asked to do. Issue 35: a cancelled
      // trial adopted from an earlier queue had been labelled "failed: its process is gone".
      if (!clean && t.stopRequested && here &&
          !(record && record->state == RecordedState::Failed)) {
        clean = true;
      }
    }
    if (finished && (!t.stopRequested || complete)) {
      t.state = TrialState::Finished;  // done, even if a stop came while it saved its last epoch
    } else if (t.stopRequested && diverged_.count(t.index)) {
      t.state = TrialState::Failed;  // stopped because its cost diverged: no result
      t.detail = diverged_[t.index];
    } else if ((t.stopRequested || (stopRequested_ && options_.onlyTrial >= 0)) && clean) {
      // Told to stop (pruned or cancelled; in a SLURM task the job's signal reaches the trial
      // itself, before the queue has told it anything).
      t.state = t.prunedAt > 0 ? TrialState::Pruned : TrialState::Cancelled;
    } else {
      t.state = TrialState::Failed;
      t.detail = signal     ? "killed by signal " + std::to_string(*signal)
                 : exitCode ? "exit status " + std::to_string(*exitCode)
                 : record && record->state == RecordedState::Failed
                     ? record->error
                     : std::string("its process is gone without recording an end");
      t.detail += " (" + t.runDir + "/log.log, " + options_.sweepDir + "/trial-" +
                  twoDigits(t.index) + ".out)";
    }
    say("trial " + std::to_string(t.index) + " " + toString(t.state) +
        (t.state == TrialState::Failed ? ": " + t.detail : ""));
  }
}

SweepState SweepQueue::run() {
  if (options_.onlyTrial < 0) {  // this process runs the sweep now (a task runs one trial)
    state_.queuePid = static_cast<int64_t>(getpid());
    state_.queueHost = thisHost();
  }
  bool announcedStop = false;
  bool paused = false;
  for (;;) {
    reap();
    readMetrics();
    const std::vector<int64_t> runFirst = applyRequests();
    if (!stopRequested_) {
      stopDiverged();
      prune();
    }
    checkTarget();
    if (targetTrial_) {
      // W&B: once a trial reaches the target, no new trial is created; running ones go on.
      for (TrialRecord& t : state_.trials) {
        if (!mine(t) || t.state != TrialState::Pending) continue;
        t.state = TrialState::Cancelled;
        t.detail = "not started: trial " + std::to_string(*targetTrial_) + " reached metric.target";
      }
    }
    if (stopRequested_) {
      if (!announcedStop) say("cancelling the sweep");
      announcedStop = true;
      for (TrialRecord& t : state_.trials) {
        if (!mine(t)) continue;
        if (t.state == TrialState::Pending) t.state = TrialState::Cancelled;
        if (t.state == TrialState::Running && !t.stopRequested) {
          t.stopRequested = true;
          // A task's trial shares its process group: the signal that stops the task (scancel,
          // a time limit, Ctrl-C) has reached the trial too, and a second one would make it
          // quit without saving.
          if (t.host == thisHost() && options_.onlyTrial < 0) {
            ::kill(static_cast<pid_t>(t.pid), SIGTERM);
          }
        }
      }
    } else if (std::error_code e;
               fs::exists(fs::path(options_.sweepDir) / SweepState::kPauseFileName, e)) {
      if (!paused) say("paused: no trial starts while " + options_.sweepDir + "/pause exists");
      paused = true;
    } else {
      if (paused) say("resumed");
      paused = false;
      std::vector<bool> used(static_cast<size_t>(options_.slotCount), false);
      for (const TrialRecord& t : state_.trials) {
        if (mine(t) && t.state == TrialState::Running && t.slot >= 0 &&
            t.slot < options_.slotCount) {
          used[static_cast<size_t>(t.slot)] = true;
        }
      }
      // Pending trials in control.json's run_first order, then by index.
      std::vector<TrialRecord*> order;
      for (int64_t index : runFirst) {
        if (index >= 0 && index < static_cast<int64_t>(state_.trials.size())) {
          order.push_back(&state_.trials[static_cast<size_t>(index)]);
        }
      }
      for (TrialRecord& t : state_.trials) order.push_back(&t);
      for (TrialRecord* t : order) {
        if (t->state != TrialState::Pending || !mine(*t)) continue;
        const auto free = std::find(used.begin(), used.end(), false);
        if (free == used.end()) break;
        *free = true;
        start(*t, static_cast<int>(free - used.begin()));
      }
      // A sequential sweep makes a trial for each slot still free (Note [Sweep search]).
      for (auto free = std::find(used.begin(), used.end(), false);
           free != used.end() && canAddTrial(); free = std::find(used.begin(), used.end(), false)) {
        addTrial();
        TrialRecord& t = state_.trials.back();
        if (t.state != TrialState::Pending) continue;  // invalid: failed, saying why
        *free = true;
        start(t, static_cast<int>(free - used.begin()));
      }
    }
    save();
    const bool busy =
        canAddTrial() ||
        std::any_of(state_.trials.begin(), state_.trials.end(), [&](const auto& t) {
          return mine(t) && (t.state == TrialState::Running || t.state == TrialState::Pending);
        });
    if (!busy) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.pollMs));
  }
  if (options_.onlyTrial < 0) state_.queuePid = 0;  // ended: another queue may take it
  save();
  return state_;
}

}  // namespace tbench
