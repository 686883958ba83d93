// Memory must not grow with steps (issue 10): the synthetic MLP project trained for 200,000
// steps with the project's full set of monitors (scalar history, stats.json, TensorBoard,
// printer) and callbacks, sampling the process's resident memory (VmRSS) along the way.
//
//   bench_memory_growth [STEPS] [SOURCE_DIR]     (default 200000 steps, 1000 per epoch)
//
// Prints VmRSS at 1k, 10k, 50k, 100k, 150k steps and at the end, and the growth from 10k on.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "bench/ResidentMemory.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/Environment.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"

namespace {

using tbench::bench::residentMiB;

}  // namespace

int main(int argc, char** argv) {
  tbench::prepareProcess(argv);
  const int64_t steps = argc > 1 ? std::stoll(argv[1]) : 200000;
  const std::string source = argc > 2 ? argv[2] : TB_SOURCE_DIR;
  const int64_t perEpoch = 1000;

  tbench::Project project = tbench::loadProjectFile(source + "/projects/synthetic-mlp.json");
  project.stepsPerEpoch = perEpoch;
  project.maxEpoch = (steps + perEpoch - 1) / perEpoch;
  // The project's callbacks minus the progress bar (a terminal line per step is not what is
  // measured), plus throughput; inference, model_saver and min_saver stay.
  std::vector<tbench::ComponentSpec> callbacks;
  for (const auto& spec : project.callbacks) {
    if (spec.type != "progress_bar") callbacks.push_back(spec);
  }
  callbacks.push_back(tbench::ComponentSpec::of("callback", "throughput"));
  project.callbacks = callbacks;
  project.monitors["scalar_printer"] = false;  // one log line per epoch is not memory either way

  const auto dir = std::filesystem::temp_directory_path() /
                   ("bench_memory_growth-" + std::to_string(::getpid()));
  tbench::BuiltRun run = tbench::buildRun(project, dir.string());
  std::map<int64_t, double> samples;
  const std::vector<int64_t> at = {1000, 10000, 50000, 100000, 150000, steps};
  run.config.callbacks.push_back(std::make_shared<tbench::CallbackFactory>(
      "rss", tbench::CallbackFactory::Hooks{{},
                                            {},
                                            {},
                                            [&](tbench::TrainerContext& c) {
                                              for (int64_t s : at) {
                                                if (c.globalStep() == s) {
                                                  samples[s] = residentMiB();
                                                }
                                              }
                                            },
                                            {},
                                            {}}));
  tbench::launchTrainWithConfig(run.config, *run.trainer);
  std::filesystem::remove_all(dir);

  std::printf("bench_memory_growth: synthetic-mlp, %lld steps (%lld per epoch), VmRSS in MiB\n",
              static_cast<long long>(steps), static_cast<long long>(perEpoch));
  for (const auto& [step, mib] : samples) {
    std::printf("  step %7lld: %8.1f\n", static_cast<long long>(step), mib);
  }
  if (samples.count(10000) && samples.count(steps)) {
    std::printf("  growth from step 10000 to %lld: %+.1f MiB\n", static_cast<long long>(steps),
                samples[steps] - samples[10000]);
  }
  return 0;
}
