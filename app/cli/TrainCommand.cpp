#include "app/cli/TrainCommand.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/checkpoint/SessionInit.h"
#include "engine/checkpoint/WeightsExport.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/Names.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/predict/ModelExport.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/LrFinder.h"
#include "engine/run/RunPreparation.h"
#include "engine/train/ParamGroups.h"

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

  std::unique_ptr<PreparedRun> run;
  try {
    RunRequest request;
    request.project = loadWithOverrides(args);
    request.runDir = args.runDir;
    request.resume = args.resume;
    request.newRunBeside = args.newRun;
    request.origin = commandLine;
    run = prepareRun(std::move(request));
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }

  StopOnSignal stopper(*run->built.trainer);
  const RecordedState outcome = trainPreparedRun(*run);
  int status = outcome == RecordedState::Failed ? 1 : 0;
  if (outcome != RecordedState::Failed && stopper.interrupted()) status = 130;
  printSummary(run->runDir);
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
    if (args.checkpoint.empty()) {
      // The weights step 0 of a run validates: the project's init (a state_dict, safetensors,
      // TorchScript or Towerbench file), else the model's own initialisation.
      const InitOptions init = initOptionsOf(project);
      std::cout << (init.path.empty() ? std::string("the model's initial weights")
                                      : "init " + init.path)
                << " (step 0 of a run)\n";
      if (!init.path.empty()) {
        std::cout << "  " << initFromWeights(run.trainer->mainModule(), init).toString() << "\n";
      }
    } else {
      TrainingState state = readCheckpointFile(args.checkpoint);
      // A run with trainer.ema_decay validated (and chose its best checkpoint) with the weight
      // average the checkpoint keeps beside the trained weights: eval gives the same figures,
      // saying so.
      const bool average =
          !args.raw && std::any_of(state.trainerState.begin(), state.trainerState.end(),
                                   [](const auto& e) { return e.first.rfind("ema/", 0) == 0; });
      if (average) state = withWeightAverage(std::move(state));
      const RestoreReport report = restoreModel(run.trainer->mainModule(), state);
      if (!report.missing.empty() || !report.unexpected.empty() || !report.shapeMismatch.empty()) {
        throw InputError(str(args.checkpoint, ": does not fit the model of ", args.project, "\n",
                             report.toString()));
      }
      std::cout << args.checkpoint << " (global step " << state.globalStep << ", epoch "
                << state.epochNum << ")"
                << (average ? ": its weight average (trainer.ema_decay), as its run validated; "
                              "--raw for the trained weights"
                            : "")
                << "\n";
    }
    auto runner = buildInferenceRunner(project, run.dataFacts, *run.config.model);
    const auto results = runner->evaluate(*run.trainer);
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
    exportCheckpoint(args.project, args.format, args.out, args.ema);
    std::cout << "wrote " << args.out << " (" << args.format
              << (args.ema ? ", the weight average" : "") << ") from " << args.project << "\n";
    return 0;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "export failed: " << e.what() << "\n";
    return 1;
  }
}

namespace {

/// Issue 37: "valid" had meant that the project parses and its data open; a model whose
/// parameters could not take a gradient then failed at step 1. One training step on a batch of
/// the training data, as a run's first (init's weights loaded; nothing written, no callback):
/// the cost it gave. InputError saying what failed.
std::string oneTrainingStep(const Project& project) {
  if (project.trainer.type == "distributed") {
    return "not run (a distributed project's ranks start with launch; train one rank to try)";
  }
  Project one = project;
  one.stepsPerEpoch = 1;
  one.startingEpoch = 1;
  one.maxEpoch = 1;
  one.callbacks.clear();
  one.schedule.enabled = false;
  try {
    BuiltRun run = buildRun(one, "");
    run.config.extraCallbacks.emplace();
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors.emplace(std::vector<TrainingMonitorPtr>{history});
    launchTrainWithConfig(run.config, *run.trainer);
    for (const char* name : {"cost", "d_cost", "g_cost"}) {
      const auto values = history->get(name);
      if (values.empty()) continue;
      if (!std::isfinite(values.back().value)) {
        throw InputError(str("its ", name, " is ", values.back().value));
      }
      return str(name, " ", values.back().value, " (forward and backward ran)");
    }
    return "ran (forward and backward)";
  } catch (const c10::Error& e) {
    throw InputError(str("one training step failed: ", e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw InputError(str("one training step failed: ", e.what()));
  }
}

}  // namespace

namespace {

/// Runs a command's `body`; an error (LibTorch's, without its stack trace, or any other) goes
/// to stderr as one message and the command returns 2 (bad input).
int withErrorsReported(const std::function<int()>& body) {
  try {
    return body();
  } catch (const c10::Error& e) {
    std::cerr << e.what_without_backtrace() << "\n";
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
  }
  return 2;
}

}  // namespace

int runSummary(const CliArgs& args) {
  return withErrorsReported([&] {
    Project project = loadWithOverrides(args);
    // The model as one tower on the CPU builds it (every strategy's towers hold the same model),
    // so that the summary reads anywhere, without the project's GPUs or ranks.
    project.trainer =
        ComponentSpec::of("strategy", "simple").set("devices", nlohmann::json::array({"cpu"}));
    const InitOptions init = initOptionsOf(project);
    project.init = {};
    BuiltRun run = buildRun(project, "");
    run.config.extraCallbacks.emplace();
    run.config.monitors.emplace();
    setupTrainWithConfig(run.config, *run.trainer);  // the towers, as a run builds them
    torch::nn::Module& module = run.trainer->mainModule();
    // optimizer.param_groups: each parameter's group and starting rate (base x multiplier).
    const ParamGroupLayout layout = layoutOf(module, project.paramGroups);
    const double baseRate = project.optimizer.resolved().has(names::kLearningRate)
                                ? project.optimizer.number(names::kLearningRate)
                                : std::nan("");
    const auto shapeOf = [](const torch::Tensor& t) {
      return std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
    };
    nlohmann::json doc = {{"project", args.project}, {"model", project.model.type}};
    nlohmann::json& params = doc["parameters"] = nlohmann::json::array();
    int64_t total = 0, trainable = 0;
    size_t index = 0;
    for (const auto& p : module.named_parameters()) {
      const ParamAssignment& a = layout.params.at(index++);
      const bool trains = p.value().requires_grad();
      total += p.value().numel();
      trainable += trains ? p.value().numel() : 0;
      nlohmann::json row = {{"name", p.key()},
                            {"shape", shapeOf(p.value())},
                            {"count", p.value().numel()},
                            {"trainable", trains}};
      if (a.group >= 0) {
        row["group"] = a.group;
        row[names::kLearningRate] = baseRate * a.lrMultiplier;
        if (a.weightDecay) row["weight_decay"] = *a.weightDecay;
      }
      params.push_back(std::move(row));
    }
    nlohmann::json& buffers = doc["buffers"] = nlohmann::json::array();
    for (const auto& b : module.named_buffers()) {
      if (!b.value().defined()) continue;
      buffers.push_back(
          {{"name", b.key()}, {"shape", shapeOf(b.value())}, {"count", b.value().numel()}});
    }
    doc["totals"] = {{"parameters", total},         {"trainable", trainable},
                     {"frozen", total - trainable}, {"tensors", params.size()},
                     {"buffers", buffers.size()},   {"groups", layout.groups.size()}};
    RestoreReport report;
    if (!init.path.empty()) {
      report = initFromWeights(module, init);
      doc["init"] = {{"path", init.path},
                     {"loaded", report.loaded},
                     {"missing", report.missing},
                     {"unexpected", report.unexpected},
                     {"shape_mismatch", report.shapeMismatch},
                     {"ignored", report.ignored}};
    }
    if (args.json) {
      std::cout << doc.dump(1) << "\n";
      return 0;
    }
    std::cout << args.project << ": model " << project.model.type << "\n";
    const auto row = [](const nlohmann::json& r, const char* kind, const std::string& rate) {
      std::ostringstream shape;
      shape << "[";
      for (size_t i = 0; i < r["shape"].size(); ++i) shape << (i ? ", " : "") << r["shape"][i];
      shape << "]";
      std::printf("  %-40s %-18s %10lld  %-9s %s\n", r["name"].get<std::string>().c_str(),
                  shape.str().c_str(), r["count"].get<long long>(), kind, rate.c_str());
    };
    std::printf("  %-40s %-18s %10s  %-9s %s\n", "name", "shape", "count", "kind",
                "group: learning rate");
    for (const nlohmann::json& r : params) {
      std::ostringstream rate;
      if (r.contains("group")) rate << r["group"] << ": " << r[names::kLearningRate].get<double>();
      row(r, r["trainable"].get<bool>() ? "trainable" : "frozen", rate.str());
    }
    for (const nlohmann::json& r : buffers) row(r, "buffer", "");
    std::fflush(stdout);
    std::cout << "  " << total << " parameters in " << params.size() << " tensors (" << trainable
              << " trainable, " << total - trainable << " frozen), " << buffers.size()
              << " buffers, " << layout.groups.size() << " optimizer group(s)\n";
    if (!init.path.empty())
      std::cout << "  init " << init.path << ": " << report.toString() << "\n";
    return 0;
  });
}

int runFindLr(const CliArgs& args) {
  return withErrorsReported([&] {
    const Project project = loadWithOverrides(args);
    LrFinderOptions options;
    options.start = args.lrStart;
    options.end = args.lrEnd;
    options.steps = args.lrSteps;
    std::printf("%s: learning-rate range test, %lld steps from %g toward %g\n",
                args.project.c_str(), static_cast<long long>(options.steps), options.start,
                options.end);
    std::fflush(stdout);
    const LrFinderResult result =
        findLearningRate(project, options, [](const LrFinderResult& sofar) {
          const size_t i = sofar.rates.size() - 1;
          std::printf("step %zu  rate %.6g  cost %.6g  smoothed %.6g\n", i, sofar.rates[i],
                      sofar.losses[i], sofar.smoothed[i]);
          std::fflush(stdout);
        });
    if (!result.stopped.empty()) std::printf("stopped: %s\n", result.stopped.c_str());
    if (result.suggestion >= 0) {
      std::printf(
          "suggested learning rate: %.3g (step %lld, the steepest descent of the "
          "smoothed cost)\n",
          result.suggestedRate, static_cast<long long>(result.suggestion));
    } else {
      std::printf(
          "no suggestion: fewer than 2 usable steps after the first 10; widen the range "
          "or run more steps\n");
    }
    std::fflush(stdout);
    if (!args.out.empty()) {
      writeFileAtomically(args.out, lrFinderJson(result).dump(1) + "\n");
      std::printf("wrote %s\n", args.out.c_str());
    }
    return 0;
  });
}

int runValidate(const CliArgs& args) {
  try {
    const Project project = loadWithOverrides(args);
    OpenRequest request;
    request.seed = project.seed;
    const OpenedSource train = openDataSource(project.data.train, request, project.baseDir);
    std::string validation;
    if (project.data.hasValidation) {
      request.training = &train.facts;
      const OpenedSource v = openDataSource(project.data.validation, request, project.baseDir);
      validation = str(", validation ", v.flow->size().value_or(0), " samples");
    }
    // The model is built against the data: a TorchScript module that does not fit is refused.
    const ModelDescBasePtr model = buildModel(
        project.model, modelContext(train, str("data.train (", project.data.train.type, ")")),
        project.optimizer, project.baseDir);
    // Batches a step takes, as the trainer counts them (the built model's GAN schedule);
    // ranks are known only when the run starts.
    const int64_t batchesPerStep = batchesPerStepOf(project, model.get());
    const int64_t samples = train.flow->size().value_or(0);
    const int64_t steps = stepsPerEpochOf(project, samples);
    std::cout << args.project << ": valid\n"
              << "  model " << project.model.type << ", optimizer " << project.optimizer.type
              << " (lr " << project.optimizer.number(names::kLearningRate) << ")\n"
              << "  data: train " << samples << " samples of " << train.image.channels << "x"
              << train.image.height << "x" << train.image.width << ", "
              << (train.numClasses > 0 ? str(train.numClasses, " classes")
                                       : str(train.numTargets, " regression target(s)"))
              << validation << "\n"
              << "  " << project.maxEpoch << " epochs x " << steps << " steps of batch "
              << project.data.batchSize << " x " << batchesPerStep
              << " batch(es) a step = " << samplesPerStepOf(project, model.get())
              << " samples per step" << (project.trainer.type == "distributed" ? " per rank" : "")
              << ", strategy " << project.trainer.type << "\n"
              << "  one training step: " << oneTrainingStep(project) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}

}  // namespace tbench::cli
