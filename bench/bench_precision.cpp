// Mixed precision against 32-bit (issue 16): steps per second of SimpleTrainer on the same
// preloaded Fashion-MNIST batches at "32" and "bf16-mixed", interleaved in one process so both
// see the same machine state. Accuracy is measured with the CLI on the full data set (README,
// Performance: the ConvNet project at each precision).
//
//   bench_precision [--rounds R] [--mlp-steps N] [--convnet-steps N] [--batch B]

#include <cstdio>

#include <torch/torch.h>

#include "bench/BenchData.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/DataFromList.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/MixedPrecision.h"
#include "engine/train/TrainConfig.h"

using namespace tbench;
using tbench::bench::makeModel;
using tbench::bench::median;
using tbench::bench::preloadBatches;

namespace {

constexpr int64_t kWarmup = 5;

/// Steps per second over `steps` timed steps (after kWarmup), and the mean cost of those steps.
std::pair<double, double> run(const std::string& type, Precision precision,
                              const std::vector<Datapoint>& batches, int64_t steps) {
  double costSum = 0;
  tbench::bench::StepTimer timer(kWarmup, steps, /*stop=*/false);
  TrainConfig config = TrainConfig::quiet();
  config.model = makeModel(type);
  config.dataflow = std::make_shared<DataFromList>(batches);
  config.callbacks = {timer.callback()};
  auto history = std::make_shared<ScalarHistory>();
  config.monitors = std::vector<TrainingMonitorPtr>{history};
  config.stepsPerEpoch = kWarmup + steps;
  config.seed = 1;
  config.precision = precision;
  SimpleTrainer trainer;
  launchTrainWithConfig(config, trainer);
  for (const auto& p : history->get("cost")) costSum += p.value;
  return {timer.stepsPerSecond(), costSum / static_cast<double>(history->get("cost").size())};
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  int rounds = 3;
  int64_t mlpSteps = 1000, convSteps = 30, batch = 128;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (a == "--mlp-steps") mlpSteps = std::atoll(argv[i + 1]);
    if (a == "--convnet-steps") convSteps = std::atoll(argv[i + 1]);
    if (a == "--batch") batch = std::atoll(argv[i + 1]);
  }
  logging::setLevel(LogLevel::Warning);
  configureThreads(0);
  std::printf("threads %d, %s, native bf16: %s, batch %lld\n", at::get_num_threads(),
              blasDescription().c_str(), cpuHasNativeBf16() ? "yes" : "no",
              static_cast<long long>(batch));
  const auto batches = preloadBatches(50, batch);
  std::printf("%-8s %6s %10s %12s %7s %10s %12s\n", "model", "steps", "32 /s", "bf16-mixed /s",
              "ratio", "32 cost", "bf16 cost");
  for (const auto& [type, steps] : {std::pair<std::string, int64_t>{"mlp", mlpSteps},
                                    std::pair<std::string, int64_t>{"convnet", convSteps}}) {
    if (steps <= 0) continue;
    std::vector<double> full, mixed, ratios;
    for (int r = 0; r < rounds; ++r) {
      std::pair<double, double> a, b;
      if (r % 2 == 0) {
        a = run(type, Precision::Full32, batches, steps);
        b = run(type, Precision::Bf16Mixed, batches, steps);
      } else {
        b = run(type, Precision::Bf16Mixed, batches, steps);
        a = run(type, Precision::Full32, batches, steps);
      }
      full.push_back(a.first);
      mixed.push_back(b.first);
      ratios.push_back(b.first / a.first);
      std::printf("%-8s %6lld %10.2f %12.2f %7.3f %10.4f %12.4f  (round %d)\n", type.c_str(),
                  static_cast<long long>(steps), a.first, b.first, b.first / a.first, a.second,
                  b.second, r + 1);
    }
    std::printf("%-8s %6s %10.2f %12.2f %7.3f  (median)\n", type.c_str(), "", median(full),
                median(mixed), median(ratios));
  }
  return 0;
}
