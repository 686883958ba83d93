#pragma once
// One way to prepare and run a training run, for every front end (the CLI, the window's
// bridge, later distributed workers): request in, prepared run out. The resume and new-run
// rules live here and only here.
//
//   auto run = prepareRun(request);   // InputError: bad project, data, devices, directory
//   RecordedState outcome = trainPreparedRun(*run);
//
// prepareRun: picks the run directory (a new <run_root>/<name>/<run-id>, the one requested,
// `DIR-1` beside it with newRunBeside, or for resume the requested or newest run with its
// latest loadable checkpoint), opens log.log and writes its first line (the origin), freezes
// project.json (kept when resuming), starts run.json (RunStatus.h), sets the threads, builds
// the TrainConfig and trainer and sets the trainer up. A failure after the run directory was
// chosen is recorded in run.json as "failed" before the InputError propagates.
//
// Threads: both functions run on the thread that will train (the engine thread). The log file
// stays open until trainPreparedRun returns (or the PreparedRun is destroyed).
//
// Note [One run, one directory]: a strategy whose towers are processes (StrategyMaker::join,
// the `distributed` strategy) joins its group first. Rank 0 then chooses the run directory (and
// for resume its checkpoint) by the rules above and publishes both through the group's store;
// it alone writes log.log, project.json, run.json, stats.json, TensorBoard files and
// checkpoints. Every other rank takes the published directory, logs to log-rank<N>.log in it
// (created when the directory is not shared), writes nothing else, and resumes from the same
// checkpoint file (resuming needs the directory on a shared file system). The checkpoints are
// those of one process; a run resumes another only on the same topology (processes, towers,
// batch size: the checkpoint's "topology", refused otherwise, TrainConfig.cpp). A process that
// torchrun's variables (or `launch`'s) make one of several ranks is refused when its strategy
// trains in one process (it would train alone in the same directory); SLURM's variables only warn.

#include <memory>
#include <string>
#include <vector>

#include "engine/project/Project.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/run/RunStatus.h"

namespace tbench {

struct RunRequest {
  Project project;      ///< already validated
  std::string runDir;   ///< empty: a new directory under run_root (or, for resume, the newest)
  bool resume = false;  ///< continue runDir from its latest checkpoint
  bool newRunBeside = false;  ///< an existing runDir with files: use DIR-1, DIR-2, ... instead
  /// What started the run, for log.log's first line and run.json ("towerbench-cli train ...",
  /// "started from the GUI (path)").
  std::string origin;
  /// Monitors to add to the project's (the window's BridgeMonitor).
  std::vector<TrainingMonitorPtr> extraMonitors;
};

struct PreparedRun {
  PreparedRun() = default;
  PreparedRun(const PreparedRun&) = delete;
  PreparedRun& operator=(const PreparedRun&) = delete;
  ~PreparedRun();  ///< closes log.log if trainPreparedRun did not

  Project project;
  std::string runDir;
  BuiltRun built;    ///< built.trainer is set up; train with trainPreparedRun
  LoopOptions loop;  ///< what train() runs
  /// Samples a step will take, as the trainer counts them once it runs
  /// (TowerTrainer::takeBatches): batch_size × batchesPerStep() × worldSize(), known before the
  /// first step (the window's samples/s from the start).
  int64_t samplesPerStep() const;
  std::shared_ptr<RunStatusWriter> status;  ///< null on the non-zero ranks
  bool logOpen = false;
  /// The process group of a multi-process run, or null (Note [One run, one directory]).
  std::shared_ptr<DistributedGroup> group;
  int rank = 0;
};

/// See the file comment. Throws InputError (RunDirectoryExists for an existing directory).
std::unique_ptr<PreparedRun> prepareRun(RunRequest request);

/// Trains `run` and records how it ended in run.json and log.log: Finished, Stopped (a stop was
/// requested) or Failed. A failure is logged and returned as Failed with its message in `error`
/// (never thrown); closes the log file.
RecordedState trainPreparedRun(PreparedRun& run, std::string* error = nullptr);

}  // namespace tbench
