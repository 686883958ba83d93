// The `distributed` strategy's cost on one host: two ranks of one intra-op thread each
// (DistributedTrainer over Gloo on 127.0.0.1, batch b each) against one process of two threads
// (SimpleTrainer, batch 2b), on the same samples in the same order; and how much of the
// gradient all-reduce GradientReducer hides behind backward (Note [Reducer timing]).
//
// The parent runs the one-process baseline itself and starts each two-rank measurement as two
// child processes of this program (the torchrun variables set, as `towerbench-cli launch`
// does), since a process joins one group only. Batches are preloaded Fashion-MNIST and served
// by a FeedInput over a DataFromList; the runs have no callbacks or monitors but the timer.
// Rank r takes the r-th half of every 2b batch, so one step of either side consumes the same
// 2b samples and the steps/s ratio is also the samples/s ratio. On two cores the point is the
// overhead (processes, Gloo's threads, the heartbeat, the all-reduces), not a speed-up.
//
// Every bucket size in --bucket-mb is measured: the default 25 MB puts the MLP's and the
// ConvNet's gradients in one bucket, which can only start when backward is nearly done;
// smaller buckets start during backward.
//
//   bench_distributed [--rounds R] [--steps N] [--convnet-steps N] [--batch B]
//                     [--bucket-mb 25,0.1]
//
// --batch is b, the batch per rank (the one process gets 2b). --convnet-steps 0 skips the
// ConvNet.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "bench/BenchData.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/comm/DistributedGroup.h"
#include "engine/comm/WorkerEnvironment.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/strategies/DistributedTrainer.h"
#include "engine/strategies/SimpleTrainer.h"

using namespace tbench;
using namespace tbench::bench;

namespace {

/// What one measurement gives: steps/s over the timed steps and, for ranks, rank 0's reducer
/// timing over the same steps.
struct Figures {
  double stepsPerS = 0;
  GradientReducer::Timing timing;
};

/// The r-th half (r = 0, 1) of every batch of 2b, in order: rank r's share of each step.
std::vector<Datapoint> half(const std::vector<Datapoint>& batches, int r) {
  std::vector<Datapoint> out;
  for (const Datapoint& b : batches) {
    out.push_back({b[0].chunk(2, 0)[r].contiguous(), b[1].chunk(2, 0)[r].contiguous()});
  }
  return out;
}

/// Trains `trainer` for kWarmup + `steps` steps; `atStart` / `atEnd` run on the engine thread
/// after step kWarmup and after the last timed step.
double timedRun(TowerTrainer& trainer, const std::string& modelType,
                const std::vector<Datapoint>& batches, int64_t steps, int64_t threads,
                const std::function<void()>& atStart, const std::function<void()>& atEnd) {
  tbench::bench::StepTimer timer(kWarmup, steps, true, atStart, atEnd);
  TrainConfig config = TrainConfig::quiet();
  config.model = makeModel(modelType);
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches));
  config.callbacks = {timer.callback()};
  config.stepsPerEpoch = kStepsPerEpoch;
  config.maxEpoch = (kWarmup + steps + kStepsPerEpoch) / kStepsPerEpoch;
  config.seed = 1;
  config.numThreads = threads;
  launchTrainWithConfig(config, trainer);
  return timer.stepsPerSecond();
}

/// A rank (this program started by runRanks): joins the group from the environment, trains,
/// and rank 0 prints its figures as one "result ..." line.
int rankMain(const std::string& modelType, int64_t steps, int64_t batch, double bucketMb) {
  const WorkerEnvironment env = WorkerEnvironment::fromEnvironment();
  DistributedOptions options;
  options.timeout = std::chrono::seconds(120);
  options.projectHash = stableHash(modelType);
  options.projectName = "bench_distributed";
  auto group = DistributedGroup::join(env, options);
  const auto whole = preloadBatches(kPreloadedBatches, 2 * batch);
  DistributedTrainer trainer(Device{}, group,
                             DistributedTrainerOptions()
                                 .bucketSize(static_cast<int64_t>(bucketMb * (1 << 20)))
                                 .timeReduction());
  GradientReducer::Timing before, after;
  const double speed = timedRun(
      trainer, modelType, half(whole, env.rank), steps, /*threads=*/1,
      [&] { before = trainer.reducer()->timing(); }, [&] { after = trainer.reducer()->timing(); });
  group->finish();
  if (env.rank == 0) {
    const GradientReducer::Timing t = after.since(before);
    std::printf("result %.9g %lld %lld %lld %.9g %.9g %.9g\n", speed,
                static_cast<long long>(t.steps), static_cast<long long>(t.buckets),
                static_cast<long long>(t.launchedDuringBackward), t.inFlightS, t.hiddenS,
                t.finishS);
  }
  return 0;
}

/// A port nobody listens on now (rank 0 binds it a moment later).
int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 29600;
  if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) close(fd);
  return port;
}

/// Starts two ranks of this program and returns rank 0's figures.
Figures runRanks(const std::string& modelType, int64_t steps, int64_t batch, double bucketMb) {
  const int port = freePort();
  const std::vector<std::string> args{
      "bench_distributed",   "--rank-of",           modelType,
      std::to_string(steps), std::to_string(batch), std::to_string(bucketMb)};
  int pipefd[2];
  if (pipe(pipefd) != 0) throw std::runtime_error("pipe failed");
  std::vector<pid_t> pids;
  for (int rank = 0; rank < 2; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      if (rank == 0) dup2(pipefd[1], STDOUT_FILENO);
      close(pipefd[0]);
      close(pipefd[1]);
      for (const auto& [k, v] : {std::pair<const char*, std::string>{"RANK", std::to_string(rank)},
                                 {"WORLD_SIZE", "2"},
                                 {"LOCAL_RANK", std::to_string(rank)},
                                 {"LOCAL_WORLD_SIZE", "2"},
                                 {"MASTER_ADDR", "127.0.0.1"},
                                 {"MASTER_PORT", std::to_string(port)}}) {
        setenv(k, v.c_str(), 1);
      }
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv("/proc/self/exe", argv.data());
      _exit(127);
    }
    pids.push_back(pid);
  }
  close(pipefd[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = read(pipefd[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  close(pipefd[0]);
  bool ok = true;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  Figures f;
  std::istringstream in(out.substr(std::min(out.size(), out.find("result "))));
  std::string tag;
  GradientReducer::Timing& t = f.timing;
  in >> tag >> f.stepsPerS >> t.steps >> t.buckets >> t.launchedDuringBackward >> t.inFlightS >>
      t.hiddenS >> t.finishS;
  if (!ok || tag != "result") throw std::runtime_error("a rank failed: " + out);
  return f;
}

/// The one process of two threads on the whole 2b batches.
Figures runOneProcess(const std::string& modelType, int64_t steps, int64_t batch) {
  static std::vector<Datapoint> whole;
  static int64_t wholeBatch = 0;
  if (wholeBatch != batch) whole = preloadBatches(kPreloadedBatches, 2 * batch);
  wholeBatch = batch;
  SimpleTrainer trainer(Device{});
  Figures f;
  f.stepsPerS = timedRun(
      trainer, modelType, whole, steps, /*threads=*/2, [] {}, [] {});
  return f;
}

std::vector<double> parseList(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atof(item.c_str()));
  return out;
}

/// One table row: medians over the rounds of the baseline and of the ranks at one bucket size.
void printRow(const std::string& model, int64_t batch, double bucketMb,
              const std::vector<double>& one, const std::vector<Figures>& ranks) {
  std::vector<double> speed, ratio, perStepMs, hidden, finishMs, buckets, early;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const Figures& f = ranks[i];
    const double steps = std::max<int64_t>(1, f.timing.steps);
    speed.push_back(f.stepsPerS);
    ratio.push_back(f.stepsPerS / one[i]);
    perStepMs.push_back(1e3 * f.timing.inFlightS / steps);
    hidden.push_back(100 * f.timing.hiddenShare());
    finishMs.push_back(1e3 * f.timing.finishS / steps);
    buckets.push_back(f.timing.buckets / steps);
    early.push_back(f.timing.launchedDuringBackward / steps);
  }
  const double samples = 2.0 * batch;
  std::printf("%-8s %4lld %7g %9.1f %10.0f %9.1f %10.0f %6.3f %4.0f/%-3.0f %9.2f %7.1f %9.2f\n",
              model.c_str(), static_cast<long long>(batch), bucketMb, median(one),
              median(one) * samples, median(speed), median(speed) * samples, median(ratio),
              median(early), median(buckets), median(perStepMs), median(hidden), median(finishMs));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  logging::setLevel(LogLevel::Warning);
  if (argc == 6 && std::string(argv[1]) == "--rank-of") {
    try {
      return rankMain(argv[2], std::atoll(argv[3]), std::atoll(argv[4]), std::atof(argv[5]));
    } catch (const std::exception& e) {
      std::cerr << "bench_distributed rank: " << e.what() << '\n';
      return 1;
    }
  }
  int rounds = 3;
  int64_t mlpSteps = 500, convSteps = 20, batch = 64;
  std::vector<double> bucketSizes{25, 0.1};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--steps") mlpSteps = std::atoll(argv[i + 1]);
    if (a == "--batch") batch = std::max<int64_t>(2, std::atoll(argv[i + 1]));
    if (a == "--convnet-steps") convSteps = std::atoll(argv[i + 1]);
    if (a == "--bucket-mb") bucketSizes = parseList(argv[i + 1]);
  }
  std::printf(
      "%s; one process: 2 threads x batch %lld; ranks: 2 processes x 1 thread x "
      "batch %lld (Gloo, 127.0.0.1); %d round(s), medians\n",
      blasDescription().c_str(), static_cast<long long>(2 * batch), static_cast<long long>(batch),
      rounds);
  std::printf("%-8s %4s %7s %9s %10s %9s %10s %6s %8s %9s %7s %9s\n", "", "", "bucket", "one",
              "one", "ranks", "ranks", "ranks/", "buckets", "allreduce", "hidden", "finish");
  std::printf("%-8s %4s %7s %9s %10s %9s %10s %6s %8s %9s %7s %9s\n", "model", "b", "MB", "steps/s",
              "samples/s", "steps/s", "samples/s", "one", "early/all", "ms/step", "%", "ms/step");
  try {
    for (const auto& [type, steps] : {std::pair<std::string, int64_t>{"mlp", mlpSteps},
                                      std::pair<std::string, int64_t>{"convnet", convSteps}}) {
      if (steps <= 0) continue;
      // Interleaved: every round measures the baseline and then each bucket size, so that all
      // see the same machine state (another build on the two cores, say).
      std::vector<double> one;
      std::vector<std::vector<Figures>> ranks(bucketSizes.size());
      for (int round = 0; round < rounds; ++round) {
        one.push_back(runOneProcess(type, steps, batch).stepsPerS);
        for (size_t k = 0; k < bucketSizes.size(); ++k) {
          ranks[k].push_back(runRanks(type, steps, batch, bucketSizes[k]));
        }
      }
      for (size_t k = 0; k < bucketSizes.size(); ++k) {
        printRow(type, batch, bucketSizes[k], one, ranks[k]);
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_distributed: " << e.what() << '\n';
    return 1;
  }
  std::printf(
      "early/all: buckets launched while backward ran / buckets, per step; allreduce: "
      "time with an all-reduce in flight per step; hidden: its share before backward "
      "returned; finish: time in GradientReducer::finish per step (rank 0)\n");
  return 0;
}
