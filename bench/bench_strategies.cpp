// The per-step cost of the multi-tower strategies against SimpleTrainer at the same total
// batch, interleaved in one process so that every strategy sees the same machine state.
//
// SimpleTrainer on "cpu" takes batches of 2b; SyncParameterServerTrainer({cpu, cpu}, ps cpu),
// SyncReplicatedTrainer({cpu, cpu}) and AsyncTrainer({cpu, cpu}) take two batches of b per
// step, the two halves of the same 2b batch, so every strategy trains on the same samples in
// the same order. Batches are preloaded and served by a FeedInput over a DataFromList (no data
// loading, no prefetch thread), and the runs have no callbacks or monitors but the timer:
// what is left is the model's compute and the strategy's own work (replicas, workers,
// gradient reduction, broadcasts). A step consumes 2b samples in every strategy, so the steps/s
// ratio is also the samples/s ratio; below 1 is overhead, above 1 a gain from running the two
// towers concurrently.
//
//   bench_strategies [--rounds R] [--steps N] [--batch B] [--convnet-steps N] [--threads T]
//
// --batch is b, the batch per tower (SimpleTrainer gets 2b). --convnet-steps 0 skips the
// ConvNet. --threads sets LibTorch's intra-op threads (0: the cores available).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "bench/BenchData.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/BatchData.h"
#include "engine/data/DataFromList.h"
#include "engine/data/datasets/FashionMnist.h"
#include "engine/input/FeedInput.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/strategies/AsyncTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncParameterServerTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"

using namespace tbench;
using namespace tbench::bench;

namespace {

/// Each batch of 2b split into its two halves, in order: what two towers take in one step.
std::vector<Datapoint> halves(const std::vector<Datapoint>& batches) {
  std::vector<Datapoint> out;
  for (const Datapoint& b : batches) {
    const auto images = b[0].chunk(2, 0);
    const auto labels = b[1].chunk(2, 0);
    out.push_back({images[0].contiguous(), labels[0].contiguous()});
    out.push_back({images[1].contiguous(), labels[1].contiguous()});
  }
  return out;
}

struct Strategy {
  std::string name;  ///< column header
  bool twoTowers;    ///< takes batches of b (two towers) rather than 2b
  std::function<std::unique_ptr<SingleCostTrainer>()> make;
};

std::vector<Strategy> strategies() {
  const Device cpu{};
  return {
      {"simple", false, [=] { return std::make_unique<SimpleTrainer>(cpu); }},
      {"ps", true,
       [=] {
         return std::make_unique<SyncParameterServerTrainer>(std::vector{cpu, cpu}, cpu);
       }},
      {"replicated", true,
       [=] {
         return std::make_unique<SyncReplicatedTrainer>(std::vector{cpu, cpu});
       }},
      {"async", true,
       [=] {
         return std::make_unique<AsyncTrainer>(std::vector{cpu, cpu}, cpu);
       }},
  };
}

/// Steps per second of `strategy` over `steps` timed steps (after kWarmup untimed ones).
double stepsPerSecond(const Strategy& strategy, const std::string& modelType,
                      const std::vector<Datapoint>& batches, int64_t steps, int64_t threads) {
  tbench::bench::StepTimer timer(kWarmup, steps);
  TrainConfig config = TrainConfig::quiet();
  config.model = makeModel(modelType);
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches));
  config.callbacks = {timer.callback()};
  config.stepsPerEpoch = kStepsPerEpoch;
  config.maxEpoch = (kWarmup + steps + kStepsPerEpoch - 1) / kStepsPerEpoch;
  config.seed = 1;
  config.numThreads = threads;
  auto trainer = strategy.make();
  launchTrainWithConfig(config, *trainer);
  return timer.stepsPerSecond();
}

/// Runs every strategy `rounds` times on `modelType`, printing one row per round and the
/// medians; returns the median ratio of each strategy to simple (index 0 is simple itself).
std::vector<double> benchmarkModel(const std::string& modelType, int rounds, int64_t steps,
                                   int64_t batch, int64_t threads) {
  const auto whole = preloadBatches(kPreloadedBatches, 2 * batch);
  const auto split = halves(whole);
  const auto all = strategies();
  const size_t n = all.size();
  std::vector<std::vector<double>> speed(n), ratio(n);

  auto printRow = [&](const std::vector<double>& s, const std::vector<double>& r,
                      const std::string& tag) {
    std::printf("%-8s %6lld %5lld", modelType.c_str(), static_cast<long long>(steps),
                static_cast<long long>(batch));
    for (size_t i = 0; i < n; ++i) std::printf(" %11.2f", s[i]);
    for (size_t i = 1; i < n; ++i) std::printf(" %10.3f", r[i]);
    std::printf("  (%s)\n", tag.c_str());
    std::fflush(stdout);
  };

  for (int round = 0; round < rounds; ++round) {
    // Rotate the order every round so that no strategy always runs first (cold) or last.
    std::vector<double> s(n), r(n, 1.0);
    for (size_t k = 0; k < n; ++k) {
      const size_t i = (k + static_cast<size_t>(round)) % n;
      s[i] = stepsPerSecond(all[i], modelType, all[i].twoTowers ? split : whole, steps, threads);
    }
    for (size_t i = 0; i < n; ++i) {
      r[i] = s[i] / s[0];
      speed[i].push_back(s[i]);
      ratio[i].push_back(r[i]);
    }
    printRow(s, r, "round " + std::to_string(round + 1));
  }
  std::vector<double> medianSpeed(n), medianRatio(n);
  for (size_t i = 0; i < n; ++i) {
    medianSpeed[i] = median(speed[i]);
    medianRatio[i] = median(ratio[i]);
  }
  printRow(medianSpeed, medianRatio, "median");
  return medianRatio;
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  int rounds = 3;
  int64_t mlpSteps = 1000, convSteps = 20, batch = 64, threads = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--steps") mlpSteps = std::atoll(argv[i + 1]);
    if (a == "--batch") batch = std::max<int64_t>(1, std::atoll(argv[i + 1]));
    if (a == "--convnet-steps") convSteps = std::atoll(argv[i + 1]);
    if (a == "--threads") threads = std::atoll(argv[i + 1]);
  }
  logging::setLevel(LogLevel::Warning);
  configureThreads(threads);
  std::printf("threads %d, %s; simple: 1 tower x batch %lld, others: 2 cpu towers x batch %lld\n",
              at::get_num_threads(), blasDescription().c_str(), static_cast<long long>(2 * batch),
              static_cast<long long>(batch));

  const auto names = strategies();
  std::printf("%-8s %6s %5s", "model", "steps", "b");
  for (const auto& s : names) std::printf(" %11s", (s.name + "/s").c_str());
  for (size_t i = 1; i < names.size(); ++i) std::printf(" %10s", names[i].name.c_str());
  std::printf("  (ratios: strategy / simple)\n");

  std::vector<std::pair<std::string, std::vector<double>>> summary;
  try {
    for (const auto& [type, steps] : {std::pair<std::string, int64_t>{"mlp", mlpSteps},
                                      std::pair<std::string, int64_t>{"convnet", convSteps}}) {
      if (steps <= 0) continue;
      summary.emplace_back(type, benchmarkModel(type, rounds, steps, batch, threads));
    }
  } catch (const std::exception& e) {
    std::cerr << "bench_strategies: " << e.what() << '\n';
    return 1;
  }

  std::printf("median ratio (strategy / simple):");
  for (const auto& [type, ratios] : summary) {
    std::printf("  %s:", type.c_str());
    for (size_t i = 1; i < names.size(); ++i) {
      std::printf(" %s %.3f", names[i].name.c_str(), ratios[i]);
    }
  }
  std::printf("\n");
  return 0;
}
