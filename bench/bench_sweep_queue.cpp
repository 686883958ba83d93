// The sweep queue's cost (engine/sweep/SweepQueue.h), against what it replaces: the same trials
// of the synthetic project started one after another as `towerbench-cli train` by hand.
//   - overhead per trial: (sweep of N trials on 1 slot, wall) / N - (N direct runs, wall) / N;
//     the queue's share is its poll interval (a trial's end is seen at the next poll) and the
//     sweep's own start (reading and validating every trial);
//   - slot utilisation with 2 slots: the trials' summed durations / (2 x the sweep's wall).
//   - with --slurm: the same sweep as a SLURM job array (`towerbench-cli sweep --slurm --submit`,
//     1 and 2 tasks at once) on a private single-node SLURM the bench starts
//     (tests/support/slurm-cluster.sh; needs slurm-wlm, munge and root): the wall from the
//     submission to the last trial's end, per trial, against the direct runs.
// Interleaved rounds, medians.
// usage: bench_sweep_queue [--trials N] [--rounds R] [--epochs E] [--slurm]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/sweep/SweepQueue.h"

using namespace tbench;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Runs `towerbench-cli train base --set optimizer.learning_rate=lr --run-dir dir`, quietly.
void trainDirectly(const std::string& cli, const std::string& base, double lr,
                   const std::string& dir) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    const std::string set = "optimizer.learning_rate=" + json(lr).dump();
    // The threads the queue gives a trial on one slot: every core.
    const std::string threads =
        "num_threads=" + std::to_string(std::max(1u, std::thread::hardware_concurrency()));
    execl(cli.c_str(), cli.c_str(), "train", base.c_str(), "--set", set.c_str(), "--set",
          threads.c_str(), "--run-dir", dir.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "direct run failed: " << dir << "\n";
    std::exit(1);
  }
}

/// `command` through the shell; its exit status.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/// The sweep as a SLURM job array, `slots` tasks at once, from the submission to the last
/// trial's end; the trials' summed durations in `busy`. 0 when it did not run.
double runOnSlurm(const std::string& cli, const fs::path& work, const std::string& sweepPath,
                  const std::string& sweepDir, int slots, double& busy) {
  const auto t0 = std::chrono::steady_clock::now();
  if (shell("cd " + work.string() + " && " + cli + " sweep " + sweepPath + " --slurm --submit" +
            " --slots " + std::to_string(slots) + " --sweep-dir " + sweepDir + " >/dev/null") !=
      0) {
    return 0;
  }
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::optional<SweepState> state;
    try {
      state = readSweepState(sweepDir);
    } catch (const std::exception&) {
      continue;  // being replaced
    }
    if (!state) continue;
    busy = 0;
    bool done = true;
    for (const TrialRecord& t : state->trials) {
      if (t.state == TrialState::Pending || t.state == TrialState::Running) done = false;
      if (t.state == TrialState::Failed) {
        std::cerr << "trial " << t.index << " failed: " << t.detail << "\n";
        return 0;
      }
      busy += t.ended - t.started;
    }
    if (done) return seconds(t0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 6, rounds = 3, epochs = 1;
  bool slurm = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--slurm")) slurm = true;
    if (i + 1 >= argc) continue;
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--epochs")) epochs = std::atoi(argv[i + 1]);
  }
  const std::string cli = TB_CLI_PATH;
  const fs::path work =
      fs::temp_directory_path() / ("bench_sweep_queue-" + std::to_string(getpid()));
  fs::create_directories(work);
  std::ifstream in(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
  json base = json::parse(in);
  base["run_root"] = (work / "runs").string();
  base["max_epoch"] = epochs;
  base["callbacks"] = {{{"type", "inference"}}};
  base["monitors"] = {{"tensorboard", false}, {"scalar_printer", false}};
  const std::string basePath = (work / "base.json").string();
  std::ofstream(basePath) << base.dump(2);
  json values = json::array();
  for (int i = 0; i < trials; ++i) values.push_back(0.01 * (i + 1));
  const json sweep = {{"project", "base.json"},
                      {"method", "grid"},
                      {"metric", {{"name", "validation_error"}}},
                      {"parameters", {{"optimizer.learning_rate", {{"values", values}}}}}};
  const std::string sweepPath = (work / "sweep.json").string();
  std::ofstream(sweepPath) << sweep.dump(2);
  setenv("TB_QUIET", "1", 1);
  const std::string cluster = std::string(TB_SOURCE_DIR) + "/tests/support/slurm-cluster.sh";
  if (slurm) {
    const std::string said = (work / "slurm-start.txt").string();
    if (shell(cluster + " start " + (work / "slurm").string() + " > " + said) != 0) {
      std::ifstream why(said);
      std::cerr << "no SLURM: " << std::string(std::istreambuf_iterator<char>(why), {}) << "\n";
      return 1;
    }
    setenv("SLURM_CONF", (work / "slurm" / "slurm.conf").c_str(), 1);
  }

  std::vector<double> direct, queued, twoSlots, utilisation, slurmOne, slurmTwo, slurmUse;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < trials; ++i) {
      trainDirectly(cli, basePath, 0.01 * (i + 1),
                    (work / ("direct-" + std::to_string(r) + "-" + std::to_string(i))).string());
    }
    direct.push_back(seconds(t0) / trials);
    for (int slots : {1, 2}) {
      SweepQueue::Options o;
      o.cli = cli;
      o.sweepDir = (work / ("sweep-" + std::to_string(r) + "-" + std::to_string(slots))).string();
      o.slotCount = slots;
      // The queue gives each trial cores / slots intra-op threads.
      t0 = std::chrono::steady_clock::now();
      SweepQueue queue(sweepPath, o);
      const SweepState state = queue.run();
      const double wall = seconds(t0);
      double busy = 0;
      for (const TrialRecord& t : state.trials) {
        if (t.state != TrialState::Finished) {
          std::cerr << "trial " << t.index << " " << toString(t.state) << ": " << t.detail << "\n";
          return 1;
        }
        busy += t.ended - t.started;
      }
      if (slots == 1) queued.push_back(wall / trials);
      if (slots == 2) {
        twoSlots.push_back(wall / trials);
        utilisation.push_back(busy / (2 * wall));
      }
      if (slurm) {
        double slurmBusy = 0;
        const double slurmWall = runOnSlurm(
            cli, work, sweepPath,
            (work / ("slurm-" + std::to_string(r) + "-" + std::to_string(slots))).string(), slots,
            slurmBusy);
        if (slurmWall <= 0) {
          shell(cluster + " stop " + (work / "slurm").string());
          return 1;
        }
        (slots == 1 ? slurmOne : slurmTwo).push_back(slurmWall / trials);
        if (slots == 2) slurmUse.push_back(slurmBusy / (2 * slurmWall));
      }
    }
  }
  if (slurm) shell(cluster + " stop " + (work / "slurm").string());
  fs::remove_all(work);
  std::cout << std::fixed << std::setprecision(3) << trials << " trials of the synthetic project ("
            << epochs << " epoch(s); cores / slots intra-op threads), medians of " << rounds
            << " rounds:\n"
            << "  direct towerbench-cli train, one after another: " << median(direct)
            << " s per trial\n"
            << "  sweep queue, 1 slot:  " << median(queued) << " s per trial (overhead "
            << median(queued) - median(direct) << " s per trial)\n"
            << "  sweep queue, 2 slots: " << median(twoSlots) << " s per trial; slot utilisation "
            << median(utilisation) << "\n";
  if (slurm) {
    std::cout << "  SLURM job array, 1 task at once:  " << median(slurmOne)
              << " s per trial (overhead " << median(slurmOne) - median(direct) << " s per trial)\n"
              << "  SLURM job array, 2 tasks at once: " << median(slurmTwo)
              << " s per trial; slot utilisation " << median(slurmUse) << "\n";
  }
  return 0;
}
