#pragma once
// The command line of towerbench-cli, parsed into a value. No LibTorch here.
//
//   towerbench-cli train PROJECT [--run-dir DIR] [--max-epoch N] [--steps-per-epoch N]
//                                [--set json.path=value]... [--new-run | --resume]
//   towerbench-cli launch --nproc-per-node N [--nnodes K --node-rank R --master-addr A
//                         --master-port P] PROJECT [train options]
//   towerbench-cli validate PROJECT
//   towerbench-cli find-lr PROJECT [--start X] [--end Y] [--steps N] [--out FILE]
//   towerbench-cli eval PROJECT [--checkpoint FILE]
//   towerbench-cli export CHECKPOINT --format pt|safetensors --out FILE
//   towerbench-cli devices
//   towerbench-cli types [KIND] [--markdown]
//   towerbench-cli --help | --version
// Any command also takes --plugin FILE (repeatable) and --no-plugin-folders.

#include <optional>
#include <string>
#include <vector>

#include "engine/core/Check.h"

namespace tbench::cli {

struct CliArgs {
  std::string command;  ///< "train", "validate", "eval", "export", "devices", "types", "help",
                        ///< "version"
  std::string project;  ///< the PROJECT (or, for export, the CHECKPOINT) argument
  std::string runDir;
  std::optional<int64_t> maxEpoch;
  std::optional<int64_t> stepsPerEpoch;
  std::vector<std::string> overrides;  ///< "path=value", applied in order
  bool newRun = false;
  bool resume = false;
  std::string checkpoint;    ///< eval
  std::string format;        ///< export: "pt" or "safetensors"
  std::string out;           ///< export; find-lr: the result as JSON
  bool ema = false;          ///< export: the weight average (trainer.ema_decay)
  bool raw = false;          ///< eval: the trained weights, not the checkpoint's weight average
  double lrStart = 1e-7;     ///< find-lr: the first rate
  double lrEnd = 10;         ///< find-lr: the rate the range grows toward
  int64_t lrSteps = 100;     ///< find-lr: steps of the range test
  std::string kind;          ///< types: only this kind ("callback"); empty: all
  bool markdown = false;     ///< types: the key reference as Markdown
  bool json = false;         ///< summary: the model as JSON (the window's Model panel)
  bool dryRun = false;       ///< sweep: check the sweep and list its trials, run nothing
  int sweepSlots = 0;        ///< sweep: trials at once (0: one per GPU, else 1)
  std::string sweepDir;      ///< sweep: its state and the trials' output (empty: the default)
  bool retryFailed = false;  ///< sweep: resume failed trials from their checkpoints
  bool report = false;       ///< sweep: print the sweep's trials and importance, run nothing
  std::string baseProject;   ///< sweep: the base project (the file's project is a W&B name)
  bool slurm = false;        ///< sweep: write a SLURM job array instead of running trials
  bool submit = false;       ///< sweep --slurm: and submit it with sbatch
  int64_t trial = -1;        ///< sweep: run this trial only (a SLURM array task)
  int cpusPerTrial = 0;      ///< sweep --slurm: --cpus-per-task (0: cores here / slots)
  int gpusPerTrial = -1;     ///< sweep --slurm: --gres=gpu:N (-1: 1 for a CUDA project)
  std::vector<std::string> sbatchArgs;  ///< sweep --slurm: the user's sbatch options
  /// --plugin FILE, in order: loaded before the command runs
  /// (engine/project/registry/PluginLoader.h).
  std::vector<std::string> plugins;
  /// --no-plugin-folders: only the --plugin files load, not $TOWERBENCH_PLUGIN_PATH's or the
  /// user's plugin folder (reproducible listings: scripts/update-key-reference.sh).
  bool noPluginFolders = false;
  // launch (LaunchCommand.h): the local workers and where they meet.
  int nprocPerNode = 0;
  int nnodes = 1;
  int nodeRank = 0;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 0;  ///< 0: a free port (one node) or 29500 (several)
  /// launch: each worker's arguments ("train", PROJECT, the train options, the plugin options).
  std::vector<std::string> workerArgs;
};

/// Bad usage; main prints it with the usage text and exits with 2.
class UsageError : public InputError {
 public:
  using InputError::InputError;
};

/// Parses argv (without argv[0]); --plugin and --no-plugin-folders may stand anywhere. Throws
/// UsageError.
CliArgs parseCliArgs(const std::vector<std::string>& args);

/// The usage text printed by --help and after a usage error.
std::string usageText();

}  // namespace tbench::cli
