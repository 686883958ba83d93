#include "engine/project/RunPreparation.h"

#include <filesystem>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/RunDirectory.h"

namespace tbench {

namespace fs = std::filesystem;

namespace {

/// The newest run directory of a project (run ids sort by time), or InputError.
std::string newestRunDirectory(const Project& project) {
  const fs::path root = fs::path(project.runRoot) / project.name;
  std::string newest;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_directory() && entry.path().string() > newest) newest = entry.path().string();
  }
  if (newest.empty()) {
    throw InputError(
        str("nothing to resume: no run of \"", project.name, "\" under ", root.string()));
  }
  return newest;
}

}  // namespace

PreparedRun::~PreparedRun() {
  if (logOpen) logging::closeFile();
}

std::unique_ptr<PreparedRun> prepareRun(RunRequest request) {
  auto prepared = std::make_unique<PreparedRun>();
  PreparedRun& run = *prepared;
  run.project = std::move(request.project);
  const Project& project = run.project;
  std::string checkpoint;
  if (request.resume) {
    run.runDir = request.runDir.empty() ? newestRunDirectory(project) : request.runDir;
    checkpoint = latestCheckpoint(run.runDir);
    if (checkpoint.empty()) {
      throw InputError(str("nothing to resume in ", run.runDir,
                           ": it has no checkpoint that loads (add a model_saver callback)"));
    }
  } else {
    run.runDir = prepareRunDirectory(
        request.runDir, project.runRoot, project.name,
        request.newRunBeside ? ExistingRunDir::NewBeside : ExistingRunDir::Fail);
  }
  run.logOpen = logging::openFile((fs::path(run.runDir) / "log.log").string());
  TB_LOG(Info) << "command: " << request.origin;
  run.status = std::make_shared<RunStatusWriter>(run.runDir, request.origin, project.name);
  try {
    const fs::path frozen = fs::path(run.runDir) / "project.json";
    if (!request.resume || !fs::exists(frozen)) {
      writeFileAtomically(frozen.string(), projectToJson(project).dump(2) + "\n");
    }
    configureThreads(project.numThreads);
    logEnvironment();
    run.built = buildRun(project, run.runDir);
    run.built.config.resumeFrom = checkpoint;
    for (auto& monitor : request.extraMonitors) run.built.config.monitors->push_back(monitor);
    run.built.config.monitors->push_back(run.status);
    run.loop = setupTrainWithConfig(run.built.config, *run.built.trainer);
  } catch (const std::exception& e) {
    TB_LOG(Error) << "cannot start the run: " << e.what();
    run.status->finish("failed", e.what());
    throw;
  }
  TB_LOG(Info) << "run directory: " << run.runDir;
  return prepared;
}

RunOutcome trainPreparedRun(PreparedRun& run, std::string* error) {
  TowerTrainer& trainer = *run.built.trainer;
  RunOutcome outcome = RunOutcome::Finished;
  try {
    trainer.train(run.loop);
    outcome = trainer.stoppedEarly() ? RunOutcome::Stopped : RunOutcome::Finished;
    TB_LOG(Info) << (outcome == RunOutcome::Stopped ? "training stopped at epoch "
                                                    : "training finished at epoch ")
                 << trainer.epochNum() << ", global step " << trainer.globalStep();
    run.status->finish(outcome == RunOutcome::Stopped ? "stopped" : "finished");
  } catch (const std::exception& e) {
    outcome = RunOutcome::Failed;
    TB_LOG(Error) << "training failed: " << e.what();
    run.status->finish("failed", e.what());
    if (error) *error = e.what();
  }
  if (run.logOpen) {
    logging::closeFile();
    run.logOpen = false;
  }
  return outcome;
}

}  // namespace tbench
