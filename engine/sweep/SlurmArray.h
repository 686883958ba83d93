#pragma once
// A sweep on a SLURM cluster (Note [Sweeps on SLURM]): the job array script whose tasks each run
// one trial of the sweep.
//
// Note [Sweeps on SLURM]
// `towerbench-cli sweep SWEEP --slurm` checks the sweep and writes its state as the local queue
// does (sweep-state.json, every trial pending, their run directories), then DIR/slurm-array.sh:
// one array task per pending trial (task id = trial index), at most --slots at once (`%N`),
// --cpus-per-trial cores and --gpus-per-trial GPUs (`--gres=gpu:N`) each, the user's own
// --sbatch options after ours. Task K runs `towerbench-cli sweep SWEEP --sweep-dir DIR --trial
// K`: SweepQueue with onlyTrial (Note [The sweep queue]), which shares sweep-state.json with the
// other tasks under an flock, so hyperband's decisions see every trial's metric so far and each
// task stops its own trial. DIR must be on a filesystem every node sees (and on which flock
// works: local, NFSv4, Lustre, GPFS). --submit runs sbatch itself; the job's id is appended to
// DIR/slurm-jobs. Cancel with scancel; run the same command again to submit what is left
// (--retry-failed resumes failed trials from their checkpoints).

#include <cstdint>
#include <string>
#include <vector>

namespace tbench {

struct SlurmArrayOptions {
  std::string cli;              ///< towerbench-cli, as the nodes find it (absolute)
  std::string sweepFile;        ///< absolute
  std::string baseProject;      ///< absolute; --base-project (empty: the sweep file's project)
  std::string sweepDir;         ///< absolute, shared by the nodes
  std::string workDir;          ///< the tasks' working directory (--chdir; empty: sbatch's)
  std::vector<int64_t> trials;  ///< the trials to run (sorted)
  int maxAtOnce = 0;            ///< `%N` (0: as many as SLURM schedules)
  int cpusPerTask = 0;          ///< 0: SLURM's default
  int gpusPerTask = 0;          ///< `--gres=gpu:N` (0: none)
  std::string jobName;
  std::vector<std::string> sbatchArgs;  ///< the user's options, written after ours
};

/// `trials` (sorted) as SLURM's array index list, runs joined: {0,1,2,5,7,8} -> "0-2,5,7-8".
std::string slurmArrayIndices(const std::vector<int64_t>& trials);

/// The batch script's text. Throws InputError for a sweep directory that #SBATCH lines cannot
/// carry (whitespace, or % which SLURM reads as a file name pattern).
std::string slurmArrayScript(const SlurmArrayOptions& options);

/// `text` as one single-quoted shell word.
std::string shellQuoted(const std::string& text);

}  // namespace tbench
