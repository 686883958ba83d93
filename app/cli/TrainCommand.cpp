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
#include "engine/train/Checkpoint.h"
#include "engine/train/CheckpointIndex.h"
#include "engine/train/Environment.h"
#include "engine/train/RunDirectory.h"
#include "engine/train/WeightsExport.h"

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

/// The newest run directory of a project (run ids sort by time).
std::string newestRunDirectory(const std::string& runRoot, const std::string& name) {
  const auto root = std::filesystem::path(runRoot) / name;
  std::string newest;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    if (entry.is_directory() && entry.path().string() > newest) newest = entry.path().string();
  }
  if (newest.empty()) {
    throw InputError(str("nothing to resume: no run of \"", name, "\" under ", root.string()));
  }
  return newest;
}

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
  LoopOptions options;
  try {
    project = loadWithOverrides(args);
    std::string checkpoint;
    if (args.resume) {
      runDir =
          args.runDir.empty() ? newestRunDirectory(project.runRoot, project.name) : args.runDir;
      checkpoint = latestCheckpoint(runDir);
      if (checkpoint.empty()) {
        throw InputError(str("nothing to resume in ", runDir,
                             ": it has no checkpoint that loads (add a model_saver callback)"));
      }
    } else {
      runDir = prepareRunDirectory(args.runDir, project.runRoot, project.name,
                                   args.newRun ? ExistingRunDir::NewBeside : ExistingRunDir::Fail);
    }
    logging::openFile((std::filesystem::path(runDir) / "log.log").string());
    TB_LOG(Info) << "command: " << commandLine;
    const auto frozen = std::filesystem::path(runDir) / "project.json";
    if (!args.resume || !std::filesystem::exists(frozen)) {
      writeFileAtomically(frozen.string(), projectToJson(project).dump(2) + "\n");
    }
    configureThreads(project.numThreads);
    logEnvironment();
    run = buildRun(project, runDir);
    run.config.resumeFrom = checkpoint;
    options = setupTrainWithConfig(run.config, *run.trainer);
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
    run.trainer->train(options);
    if (stopper.interrupted()) status = 130;
  } catch (const std::exception& e) {
    TB_LOG(Error) << "training failed: " << e.what();
    status = 1;
  }
  printSummary(runDir);
  logging::closeFile();
  return status;
}

int runEval(const CliArgs& args) {
  try {
    const Project project = loadWithOverrides(args);
    if (!project.data.hasValidation) {
      throw InputError(str(args.project, ": $.data.validation: eval needs validation data"));
    }
    configureThreads(project.numThreads);
    BuiltRun run = buildRun(project, "");
    run.trainer->setupGraph(run.config.input, run.config.model);
    const TrainingState state = readCheckpointFile(args.checkpoint);
    const RestoreReport report = restoreModel(run.trainer->mainModule(), state);
    if (!report.missing.empty() || !report.unexpected.empty() || !report.shapeMismatch.empty()) {
      throw InputError(str(args.checkpoint, ": does not fit the model of ", args.project, "\n",
                           report.toString()));
    }
    auto runner = buildInferenceRunner(project);
    const auto results = runner->evaluate(*run.trainer);
    std::cout << args.checkpoint << " (global step " << state.globalStep << ", epoch "
              << state.epochNum << ")\n";
    for (const auto& [name, value] : results) std::cout << "  " << name << ": " << value << "\n";
    if (auto it = results.find("validation_error"); it != results.end()) {
      std::cout << "  validation_accuracy: " << 1.0 - it->second << "\n";
    }
    return 0;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "eval failed: " << e.what() << "\n";
    return 1;
  }
}

int runExport(const CliArgs& args) {
  try {
    exportWeights(args.project, args.format, args.out);
    std::cout << "wrote " << args.out << " (" << args.format << ") from " << args.project << "\n";
    return 0;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "export failed: " << e.what() << "\n";
    return 1;
  }
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
