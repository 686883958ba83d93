#include "app/cli/CliArgs.h"

#include <cstdlib>

namespace tbench::cli {
namespace {

int64_t parseCount(const std::string& option, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || n < 1) {
    throw UsageError(str(option, " expects a positive integer, got \"", value, "\""));
  }
  return n;
}

double parseRate(const std::string& option, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno != 0 || !(x > 0)) {
    throw UsageError(str(option, " expects a positive number, got \"", value, "\""));
  }
  return x;
}

}  // namespace

std::string usageText() {
  return "usage:\n"
         "  towerbench-cli train PROJECT [--run-dir DIR] [--max-epoch N] [--steps-per-epoch N]\n"
         "                               [--set json.path=value]... [--new-run | --resume]\n"
         "  towerbench-cli launch --nproc-per-node N [--nnodes K --node-rank R\n"
         "                        --master-addr A --master-port P] PROJECT [train options]\n"
         "  towerbench-cli validate PROJECT [--set json.path=value]...\n"
         "  towerbench-cli summary PROJECT [--json] [--set json.path=value]...\n"
         "  towerbench-cli find-lr PROJECT [--start X] [--end Y] [--steps N] [--out FILE]\n"
         "                         [--set json.path=value]...\n"
         "  towerbench-cli eval PROJECT [--checkpoint FILE [--raw]] [--set json.path=value]...\n"
         "  towerbench-cli export CHECKPOINT --format pt|safetensors|torchscript --out FILE\n"
         "                        [--ema]\n"
         "  towerbench-cli sweep SWEEP [--slots N] [--sweep-dir DIR] [--retry-failed]\n"
         "                             [--base-project PROJECT]\n"
         "                             [--dry-run | --report | --trial K | --slurm [--submit]\n"
         "                              [--cpus-per-trial N] [--gpus-per-trial N]\n"
         "                              [--sbatch OPTION]...]\n"
         "  towerbench-cli devices\n"
         "  towerbench-cli types [KIND] [--markdown]\n"
         "  towerbench-cli --help | --version\n"
         "every command also takes --plugin FILE (repeatable) and --no-plugin-folders\n"
         "\n"
         "train     trains PROJECT headless; the run goes to <run_root>/<name>/<run-id>/ or DIR.\n"
         "          An existing DIR is never overwritten: --new-run starts DIR-1 beside it,\n"
         "          --resume continues DIR (or the newest run of the project) from its latest\n"
         "          checkpoint, appending to its stats.json.\n"
         "          --set changes one project field before validation, e.g.\n"
         "          --set data.batch_size=64 --set 'trainer.devices=[\"cpu\"]'\n"
         "launch    starts N local workers of `train PROJECT` as ranks of one distributed run\n"
         "          (the torchrun variables RANK, WORLD_SIZE, ...; the workers run the strategy\n"
         "          \"distributed\": launch sets trainer.strategy=distributed before the train\n"
         "          options), prints their output prefixed with [rank N] and returns the worst\n"
         "          exit status. A worker also runs under torchrun --no_python or SLURM's srun.\n"
         "validate  checks PROJECT and its data files and prints every problem found, then runs\n"
         "          one training step (forward and backward) on a batch of its data\n"
         "summary   prints PROJECT's model: every parameter and buffer (name, shape, count,\n"
         "          trainable or frozen, optimizer group and learning rate), the totals, and\n"
         "          what init would load from its weights file; --json prints it as JSON\n"
         "find-lr   the learning-rate range test (Lightning's lr_find): trains N steps (100)\n"
         "          from PROJECT's initial weights while the rate grows exponentially from X\n"
         "          (1e-7) toward Y (10), prints each step's cost and the suggested rate (the\n"
         "          steepest descent of the smoothed cost); --out writes it all as JSON.\n"
         "          Nothing else is written\n"
         "eval      prints the validation metrics of a checkpoint on PROJECT's validation data;\n"
         "          without --checkpoint, of the weights a run starts from (init, step 0).\n"
         "          A checkpoint with a weight average (trainer.ema_decay) is validated with\n"
         "          it, as its run validated; --raw: with the trained weights instead\n"
         "export    writes a checkpoint's weights for PyTorch (torch.load) or safetensors, or its\n"
         "          network as TorchScript (torch.jit.load runs it; eval mode); --ema: the\n"
         "          weight average the run kept (trainer.ema_decay) instead of the raw weights\n"
         "sweep     checks SWEEP, a W&B sweep file in JSON or YAML (method grid|random|bayes|tpe,\n"
         "          metric with goal and target, parameters with W&B's distributions, nested or\n"
         "          dotted, run_cap, seed, early_terminate hyperband; docs/ARCHITECTURE.md §6f;\n"
         "          --base-project when its project is a W&B project name), validates the\n"
         "          trials' projects, then\n"
         "          runs the trials as `train` processes, N at a time (a CUDA project: each on\n"
         "          as many GPUs as it has towers, default N = GPUs / towers; else N = 1 by\n"
         "          default), stops those hyperband prunes, and prints them ranked.\n"
         "          Its state is DIR/sweep-state.json (default sweeps/<name> beside SWEEP): the\n"
         "          same command again goes on with it; --retry-failed resumes its failed (and\n"
         "          cancelled after starting) trials from their checkpoints. DIR/control.json\n"
         "          ({\"run_first\": [K, ...], \"cancel\": [K, ...]}) reorders and cancels trials\n"
         "          of a running sweep. --dry-run lists the trials only. random without run_cap,\n"
         "          bayes and tpe make trials as they run, until stopped or metric.target.\n"
         "          --report prints the trials of DIR ranked, with each parameter's importance\n"
         "          and correlation with the metric (finished or running sweep), runs nothing.\n"
         "          --slurm writes DIR/slurm-array.sh, a SLURM job array of the pending trials\n"
         "          (one task each, --slots at once, --cpus-per-trial cores (default: this\n"
         "          host's / slots), --gpus-per-trial GPUs (default: the project's CUDA towers), "
         "each\n"
         "          --sbatch OPTION added, e.g. --sbatch=--partition=gpu); --submit runs sbatch.\n"
         "          DIR must be seen by every node. --trial K runs trial K alone (what each\n"
         "          task does), sharing DIR's state with the others\n"
         "devices   lists the devices a project may use (cpu, cuda:N with name and memory),\n"
         "          the BLAS in use and whether CUDA, NCCL and NVML are there\n"
         "types     lists the component types a project may use (models, data sources,\n"
         "          optimizers, callbacks, monitors, strategies) with their keys, defaults and\n"
         "          help; KIND limits it to one kind; --markdown writes the key reference of\n"
         "          docs/PROJECT-FORMAT.md\n"
         "\n"
         "plugins   shared libraries that register component types (docs/ARCHITECTURE.md §6d):\n"
         "          the --plugin FILEs, then every *.so in the folders of $TOWERBENCH_PLUGIN_PATH\n"
         "          (colon-separated) and in ~/.local/share/towerbench/plugins ($XDG_DATA_HOME);\n"
         "          --no-plugin-folders skips the folders. A plugin that fails to load is\n"
         "          reported on stderr with its path, and the command goes on without it.\n"
         "\n"
         "exit status: 0 success, 1 training failed, 2 bad input (messages on stderr),\n"
         "130 stopped by Ctrl-C (after a clean stop)\n";
}

CliArgs parseCliArgs(const std::vector<std::string>& allArgs) {
  CliArgs out;
  // The plugin options belong to every command: taken out first, wherever they stand.
  std::vector<std::string> args;
  for (size_t i = 0; i < allArgs.size(); ++i) {
    const std::string& arg = allArgs[i];
    if (arg == "--plugin") {
      if (i + 1 >= allArgs.size()) throw UsageError("--plugin needs a FILE");
      out.plugins.push_back(allArgs[++i]);
    } else if (arg.rfind("--plugin=", 0) == 0) {
      out.plugins.push_back(arg.substr(9));
    } else if (arg == "--no-plugin-folders") {
      out.noPluginFolders = true;
    } else {
      args.push_back(arg);
    }
  }
  for (const std::string& plugin : out.plugins) {
    if (plugin.empty()) throw UsageError("--plugin needs a FILE, got an empty one");
  }
  if (args.empty()) throw UsageError("no command given");
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    out.command = "help";
    return out;
  }
  if (first == "--version") {
    out.command = "version";
    return out;
  }
  if (first == "devices") {
    if (args.size() > 1 && (args[1] == "--help" || args[1] == "-h")) {
      out.command = "help";
      return out;
    }
    if (args.size() > 1) throw UsageError(str("devices takes no argument, got \"", args[1], "\""));
    out.command = first;
    return out;
  }
  if (first == "types") {
    out.command = first;
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--help" || args[i] == "-h") {
        out.command = "help";
        return out;
      }
      if (args[i] == "--markdown") {
        out.markdown = true;
      } else if (!args[i].empty() && args[i][0] == '-') {
        throw UsageError(str("unknown option ", args[i], " for types"));
      } else if (out.kind.empty()) {
        out.kind = args[i];
      } else {
        throw UsageError(str("unexpected argument \"", args[i], "\""));
      }
    }
    if (out.markdown && !out.kind.empty()) {
      throw UsageError("types --markdown writes every kind; give no KIND");
    }
    return out;
  }
  if (first == "launch") {
    std::vector<std::string> rest{"train"};
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& arg = args[i];
      auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw UsageError(str(arg, " needs a value"));
        return args[++i];
      };
      if (arg == "--help" || arg == "-h") {
        out.command = "help";
        return out;
      } else if (arg == "--nproc-per-node" || arg == "--nproc_per_node") {
        out.nprocPerNode = static_cast<int>(parseCount(arg, value()));
      } else if (arg == "--nnodes") {
        out.nnodes = static_cast<int>(parseCount(arg, value()));
      } else if (arg == "--node-rank" || arg == "--node_rank") {
        const std::string& v = value();
        out.nodeRank = v == "0" ? 0 : static_cast<int>(parseCount(arg, v));
      } else if (arg == "--master-addr" || arg == "--master_addr") {
        out.masterAddr = value();
      } else if (arg == "--master-port" || arg == "--master_port") {
        out.masterPort = static_cast<int>(parseCount(arg, value()));
      } else {
        rest.push_back(arg);
      }
    }
    if (out.nprocPerNode < 1) throw UsageError("launch needs --nproc-per-node N");
    if (out.nodeRank >= out.nnodes) {
      throw UsageError(str("--node-rank ", out.nodeRank, " is outside --nnodes ", out.nnodes));
    }
    if (out.masterPort > 65535) throw UsageError(str("--master-port ", out.masterPort));
    CliArgs train = parseCliArgs(rest);  // the workers' options, checked here once
    if (train.command != "train") return train;
    train.command = "launch";
    train.nprocPerNode = out.nprocPerNode;
    train.nnodes = out.nnodes;
    train.nodeRank = out.nodeRank;
    train.masterAddr = out.masterAddr;
    train.masterPort = out.masterPort;
    // The workers are ranks: they run the distributed strategy whatever the project says (its
    // distributed keys kept); a --set trainer... of the user's comes later and wins.
    train.workerArgs = rest;
    train.workerArgs.insert(train.workerArgs.begin() + 1,
                            {"--set", "trainer.strategy=distributed"});
    for (const std::string& plugin : out.plugins) {
      train.workerArgs.push_back("--plugin");
      train.workerArgs.push_back(plugin);
    }
    if (out.noPluginFolders) train.workerArgs.push_back("--no-plugin-folders");
    train.plugins = out.plugins;
    train.noPluginFolders = out.noPluginFolders;
    return train;
  }
  if (first != "train" && first != "validate" && first != "summary" && first != "eval" &&
      first != "export" && first != "sweep" && first != "find-lr") {
    throw UsageError(str("unknown command \"", first, "\""));
  }
  out.command = first;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(str(arg, " needs a value"));
      return args[++i];
    };
    const bool train = out.command == "train";
    const bool eval = out.command == "eval";
    const bool exporting = out.command == "export";
    const bool findLr = out.command == "find-lr";
    if (arg == "--help" || arg == "-h") {
      out.command = "help";
      return out;
    } else if (train && arg == "--run-dir") {
      out.runDir = value();
    } else if (train && arg == "--max-epoch") {
      out.maxEpoch = parseCount(arg, value());
    } else if (train && arg == "--steps-per-epoch") {
      out.stepsPerEpoch = parseCount(arg, value());
    } else if (train && arg == "--resume") {
      out.resume = true;
    } else if (eval && arg == "--checkpoint") {
      out.checkpoint = value();
    } else if (eval && arg == "--raw") {
      out.raw = true;
    } else if (exporting && arg == "--format") {
      out.format = value();
      if (out.format != "pt" && out.format != "safetensors" && out.format != "torchscript") {
        throw UsageError(
            str("--format must be pt, safetensors or torchscript, got \"", out.format, "\""));
      }
    } else if (exporting && arg == "--ema") {
      out.ema = true;
    } else if ((exporting || findLr) && arg == "--out") {
      out.out = value();
    } else if (out.command == "summary" && arg == "--json") {
      out.json = true;
    } else if (findLr && arg == "--start") {
      out.lrStart = parseRate(arg, value());
    } else if (findLr && arg == "--end") {
      out.lrEnd = parseRate(arg, value());
    } else if (findLr && arg == "--steps") {
      out.lrSteps = parseCount(arg, value());
    } else if ((train || eval || findLr || out.command == "validate" || out.command == "summary") &&
               arg == "--set") {
      const std::string& assignment = value();
      if (assignment.find('=') == std::string::npos) {
        throw UsageError(str("--set expects path=value, got \"", assignment, "\""));
      }
      out.overrides.push_back(assignment);
    } else if (train && arg == "--new-run") {
      out.newRun = true;
    } else if (out.command == "sweep" && arg == "--dry-run") {
      out.dryRun = true;
    } else if (out.command == "sweep" && arg == "--slots") {
      out.sweepSlots = static_cast<int>(parseCount(arg, value()));
    } else if (out.command == "sweep" && arg == "--base-project") {
      out.baseProject = value();
    } else if (out.command == "sweep" && arg == "--report") {
      out.report = true;
    } else if (out.command == "sweep" && arg == "--sweep-dir") {
      out.sweepDir = value();
    } else if (out.command == "sweep" && arg == "--retry-failed") {
      out.retryFailed = true;
    } else if (out.command == "sweep" && arg == "--slurm") {
      out.slurm = true;
    } else if (out.command == "sweep" && arg == "--submit") {
      out.submit = true;
    } else if (out.command == "sweep" && arg == "--trial") {
      const std::string& v = value();
      out.trial = v == "0" ? 0 : parseCount(arg, v);
    } else if (out.command == "sweep" && arg == "--cpus-per-trial") {
      out.cpusPerTrial = static_cast<int>(parseCount(arg, value()));
    } else if (out.command == "sweep" && arg == "--gpus-per-trial") {
      const std::string& v = value();
      out.gpusPerTrial = v == "0" ? 0 : static_cast<int>(parseCount(arg, v));
    } else if (out.command == "sweep" && arg.rfind("--sbatch=", 0) == 0) {
      out.sbatchArgs.push_back(arg.substr(9));
    } else if (out.command == "sweep" && arg == "--sbatch") {
      out.sbatchArgs.push_back(value());
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError(str("unknown option ", arg, " for ", out.command));
    } else if (out.project.empty()) {
      out.project = arg;
    } else {
      throw UsageError(str("unexpected argument \"", arg, "\""));
    }
  }
  if (out.project.empty()) {
    throw UsageError(str(out.command, out.command == "export"  ? " needs a CHECKPOINT file"
                                      : out.command == "sweep" ? " needs a SWEEP file"
                                                               : " needs a PROJECT file"));
  }
  if (out.newRun && out.resume) throw UsageError("--new-run and --resume exclude each other");
  if (out.raw && out.checkpoint.empty()) {
    throw UsageError("--raw goes with --checkpoint (the trained weights instead of its average)");
  }
  if (out.submit && !out.slurm) throw UsageError("--submit goes with --slurm");
  if (!out.slurm && (out.cpusPerTrial > 0 || out.gpusPerTrial >= 0 || !out.sbatchArgs.empty())) {
    throw UsageError("--cpus-per-trial, --gpus-per-trial and --sbatch go with --slurm");
  }
  // Issue 34: options that ask for different things are refused by name (--slurm with
  // --dry-run had run the dry run and ignored --slurm).
  const std::vector<std::pair<const char*, bool>> modes = {{"--dry-run", out.dryRun},
                                                           {"--report", out.report},
                                                           {"--trial", out.trial >= 0},
                                                           {"--slurm", out.slurm}};
  const std::vector<std::pair<const char*, bool>> queueOnly = {{"--retry-failed", out.retryFailed},
                                                               {"--slots", out.sweepSlots > 0}};
  for (size_t i = 0; i < modes.size(); ++i) {
    if (!modes[i].second) continue;
    for (size_t j = i + 1; j < modes.size(); ++j) {
      if (modes[j].second) {
        throw UsageError(
            str(modes[i].first, " and ", modes[j].first, " exclude each other: give one"));
      }
    }
    if (std::string(modes[i].first) == "--slurm") continue;  // a job array takes both
    for (const auto& [option, given] : queueOnly) {
      if (given) {
        throw UsageError(str(modes[i].first, " and ", option, " exclude each other: ", option,
                             " is for the sweep's own queue"));
      }
    }
  }

  if (out.command == "export" && (out.format.empty() || out.out.empty())) {
    throw UsageError("export needs --format pt|safetensors|torchscript and --out FILE");
  }
  return out;
}

}  // namespace tbench::cli
