#include "app/cli/TrainCommand.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/core/AtomicFile.h"
#include "engine/core/Logging.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/Environment.h"
#include "engine/train/RunDirectory.h"

namespace tbench::cli {
namespace {

/// Loads PROJECT and applies --set, --max-epoch and --steps-per-epoch before validation, so
/// that overridden values are validated like the rest.
Project loadWithOverrides(const CliArgs& args) {
  nlohmann::json doc = readProjectJson(args.project);
  for (const auto& assignment : args.overrides) applyProjectOverride(doc, assignment);
  if (args.maxEpoch) doc["max_epoch"] = *args.maxEpoch;
  if (args.stepsPerEpoch) doc["steps_per_epoch"] = *args.stepsPerEpoch;
  return projectFromJson(doc, args.project);
}

/// Ctrl-C (SIGINT) or SIGTERM once: stop at the next step boundary, run afterTrain; twice:
/// leave at once. A dedicated thread waits for the signals, so nothing unsafe runs inside a
/// signal handler. The signals are blocked before any other thread starts.
class StopOnSignal {
 public:
  explicit StopOnSignal(Trainer& trainer) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    std::thread([set, &trainer, this] {
      int signal = 0;
      while (sigwait(&set, &signal) == 0) {
        if (interrupted_.exchange(true)) std::_Exit(130);
        std::fprintf(stderr, "\nstopping at the next step (press Ctrl-C again to quit now)\n");
        trainer.requestStop();
      }
    }).detach();
  }
  bool interrupted() const { return interrupted_.load(); }

 private:
  std::atomic<bool> interrupted_{false};
};

void printSummary(const std::string& runDir) {
  const auto stats = std::filesystem::path(runDir) / "stats.json";
  std::string last;
  if (std::filesystem::exists(stats)) {
    try {
      const nlohmann::json doc = nlohmann::json::parse(readFile(stats.string()));
      if (doc.is_array() && !doc.empty()) last = doc.back().dump();
    } catch (const std::exception&) {
    }
  }
  std::cerr << "run directory: " << runDir << "\n";
  if (!last.empty()) std::cerr << "last stats: " << last << "\n";
}

}  // namespace

int runTrain(const CliArgs& args, const std::string& commandLine) {
  // Block the stop signals in every thread LibTorch and the input will start; StopOnSignal's
  // thread takes them with sigwait.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  Project project;
  std::string runDir;
  BuiltRun run;
  try {
    project = loadWithOverrides(args);
    runDir = prepareRunDirectory(args.runDir, project.runRoot, project.name,
                                 args.newRun ? ExistingRunDir::NewBeside : ExistingRunDir::Fail);
    logging::openFile((std::filesystem::path(runDir) / "log.log").string());
    TB_LOG(Info) << "command: " << commandLine;
    writeFileAtomically((std::filesystem::path(runDir) / "project.json").string(),
                        projectToJson(project).dump(2) + "\n");
    configureThreads(project.numThreads);
    logEnvironment();
    run = buildRun(project, runDir);
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }

  StopOnSignal stopper(*run.trainer);
  TB_LOG(Info) << "run directory: " << runDir;
  int status = 0;
  try {
    launchTrainWithConfig(run.config, *run.trainer);
    if (stopper.interrupted()) status = 130;
  } catch (const std::exception& e) {
    TB_LOG(Error) << "training failed: " << e.what();
    status = 1;
  }
  printSummary(runDir);
  logging::closeFile();
  return status;
}

int runValidate(const CliArgs& args) {
  try {
    const Project project = loadWithOverrides(args);
    const OpenedSource train = openDataSource(project.data.train, false, project.seed);
    std::string validation;
    if (project.data.hasValidation) {
      const OpenedSource v = openDataSource(project.data.validation, false, project.seed);
      validation = str(", validation ", v.flow->size().value_or(0), " samples");
    }
    const int64_t samples = train.flow->size().value_or(0);
    const int64_t steps = project.stepsPerEpoch > 0
                              ? project.stepsPerEpoch
                              : (project.data.remainder ? (samples + project.data.batchSize - 1) /
                                                              project.data.batchSize
                                                        : samples / project.data.batchSize);
    std::cout << args.project << ": valid\n"
              << "  model " << project.model.type << ", optimizer " << project.optimizer.type
              << " (lr " << project.optimizer.learningRate << ")\n"
              << "  data: train " << samples << " samples of " << train.image.channels << "x"
              << train.image.height << "x" << train.image.width << ", " << train.numClasses
              << " classes" << validation << "\n"
              << "  " << project.maxEpoch << " epochs x " << steps << " steps of batch "
              << project.data.batchSize << " x " << project.trainer.devices.size()
              << " tower(s) = " << project.data.batchSize * project.trainer.devices.size()
              << " samples per step, strategy " << project.trainer.strategy << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}

}  // namespace tbench::cli
