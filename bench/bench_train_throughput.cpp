// Towerbench's training loop against a hand-written LibTorch loop, on the same preloaded
// Fashion-MNIST batches, interleaved in one process so both see the same machine state.
//
// Towerbench: SimpleTrainer + QueueInput over the preloaded batches, with the default
// callbacks (ProgressBar, EstimatedTimeLeft, ThroughputTracker) and monitors (ScalarHistory,
// JSONWriter into a temporary run directory, ScalarPrinter). Hand-written: zero_grad, forward,
// cross_entropy, backward, step over the same batches. Both use the same thread count.
//
//   bench_train_throughput [--rounds R] [--mlp-steps N] [--convnet-steps N]

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <torch/torch.h>

#include "bench/BenchData.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/BatchData.h"
#include "engine/data/DataFromList.h"
#include "engine/data/datasets/FashionMnist.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/strategies/SimpleTrainer.h"

using namespace tbench;
using namespace tbench::bench;

namespace {

/// Steps per second of Towerbench over `steps` timed steps (after kWarmup).
double towerbench(const std::string& type, const std::vector<Datapoint>& batches, int64_t steps,
                  bool gradNorm = true) {
  const std::string runDir =
      (std::filesystem::temp_directory_path() / ("tb-bench-" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(runDir);
  std::filesystem::create_directories(runDir);

  tbench::bench::StepTimer timer(kWarmup, steps, /*stop=*/false);
  TrainConfig config;
  config.model = makeModel(type);
  config.dataflow = std::make_shared<DataFromList>(batches);
  config.callbacks = {timer.callback()};
  config.runDir = runDir;
  config.stepsPerEpoch = kStepsPerEpoch;
  config.maxEpoch = (kWarmup + steps + kStepsPerEpoch - 1) / kStepsPerEpoch;
  config.seed = 1;
  config.gradients.reportNorm(gradNorm);
  SimpleTrainer trainer;
  launchTrainWithConfig(config, trainer);
  std::filesystem::remove_all(runDir);
  return timer.stepsPerSecond();
}

/// Steps per second of the hand-written loop.
double handWritten(const std::string& type, const std::vector<Datapoint>& batches, int64_t steps) {
  torch::manual_seed(1);
  auto model = makeModel(type);
  TowerContext tower(0, Device{}, true);
  auto net = model->buildTower(tower);
  auto optimizer = model->optimizer(net->parameters());
  net->train();
  double start = 0;
  Stopwatch clock;
  for (int64_t i = 0; i < kWarmup + steps; ++i) {
    if (i == kWarmup) start = clock.seconds();
    const Datapoint& b = batches[static_cast<size_t>(i) % batches.size()];
    optimizer->zero_grad();
    auto loss = torch::nn::functional::cross_entropy(SupervisedModel::logits(*net, b[0]), b[1]);
    loss.backward();
    optimizer->step();
  }
  return steps / (clock.seconds() - start);
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  int rounds = 3;
  int64_t mlpSteps = 2000, convSteps = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (a == "--mlp-steps") mlpSteps = std::atoll(argv[i + 1]);
    if (a == "--convnet-steps") convSteps = std::atoll(argv[i + 1]);
  }
  logging::setLevel(LogLevel::Warning);  // no progress bars in the figures' output
  configureThreads(0);
  std::printf("threads %d, %s\n", at::get_num_threads(), blasDescription().c_str());
  const auto batches = preloadBatches(50, 128);

  // "no-norm/s": Towerbench without the per-step grad_norm report, to show what it costs.
  std::printf("%-8s %7s %14s %14s %7s %14s %7s\n", "model", "steps", "towerbench/s", "hand/s",
              "ratio", "no-norm/s", "ratio");
  for (const auto& [type, steps] : {std::pair<std::string, int64_t>{"mlp", mlpSteps},
                                    std::pair<std::string, int64_t>{"convnet", convSteps}}) {
    if (steps <= 0) continue;  // that model is not wanted
    std::vector<double> tb, hand, ratios, plain, plainRatios;
    for (int r = 0; r < rounds; ++r) {
      // Alternate which goes first so that neither always runs on a warmer machine.
      double a, b, c;
      if (r % 2 == 0) {
        a = towerbench(type, batches, steps);
        b = handWritten(type, batches, steps);
        c = towerbench(type, batches, steps, /*gradNorm=*/false);
      } else {
        c = towerbench(type, batches, steps, /*gradNorm=*/false);
        b = handWritten(type, batches, steps);
        a = towerbench(type, batches, steps);
      }
      tb.push_back(a);
      hand.push_back(b);
      ratios.push_back(a / b);
      plain.push_back(c);
      plainRatios.push_back(c / b);
      std::printf("%-8s %7lld %14.2f %14.2f %7.3f %14.2f %7.3f  (round %d)\n", type.c_str(),
                  static_cast<long long>(steps), a, b, a / b, c, c / b, r + 1);
    }
    std::printf("%-8s %7s %14.2f %14.2f %7.3f %14.2f %7.3f  (median)\n", type.c_str(), "",
                median(tb), median(hand), median(ratios), median(plain), median(plainRatios));
  }
  return 0;
}
