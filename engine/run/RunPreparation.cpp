#include "engine/run/RunPreparation.h"

#include <filesystem>

#include "engine/callbacks/EarlyStopping.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/comm/DistributedGroup.h"
#include "engine/comm/WorkerEnvironment.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/RunDirectory.h"
#include "engine/run/RunStatus.h"
#include "engine/train/TowerTrainer.h"

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

int64_t PreparedRun::samplesPerStep() const {
  return project.data.batchSize * built.trainer->batchesPerStep() * built.trainer->worldSize();
}

PreparedRun::~PreparedRun() {
  if (logOpen) logging::closeFile();
}

namespace {

/// Rank 0's (or the only process's) choice of directory and checkpoint. `note` says which
/// checkpoints were refused and why, for the run's log (empty when the latest loads).
void chooseRunDirectory(const RunRequest& request, PreparedRun& run, std::string& checkpoint,
                        std::string& note) {
  const Project& project = run.project;
  if (request.resume) {
    run.runDir = request.runDir.empty() ? newestRunDirectory(project) : request.runDir;
    const auto found = loadLatestCheckpoint(run.runDir, &note);
    if (!found) {
      throw InputError(
          str("nothing to resume in ", run.runDir, ": ",
              note.empty() ? "it has no checkpoint (add a model_saver callback)" : note));
    }
    checkpoint = found->path;
  } else {
    run.runDir = prepareRunDirectory(
        request.runDir, project.runRoot, project.name,
        request.newRunBeside ? ExistingRunDir::NewBeside : ExistingRunDir::Fail);
  }
}

/// A process that torchrun (or `launch`) started as one of several ranks, with a strategy that
/// trains in one process: every rank would train the whole run alone and race for the same
/// run directory. Refused before anything is written. SLURM's variables only warn: srun also
/// starts independent tasks (a sweep with a run directory each).
void refuseOneProcessStrategyAsRank(const std::string& strategy) {
  WorkerEnvironment env;
  try {
    env = WorkerEnvironment::fromEnvironment();
  } catch (const InputError&) {
    return;  // malformed launcher variables matter only to the distributed strategy
  }
  if (!env.launched() || env.worldSize == 1) return;
  if (env.launcher == "slurm") {
    TB_LOG(Warning) << "this process is " << env.describe() << " but trainer.strategy \""
                    << strategy << "\" trains in one process: every task trains on its own";
    return;
  }
  throw InputError(str("this process is ", env.describe(), ", but trainer.strategy \"", strategy,
                       "\" trains in one process: every rank would train the whole run alone "
                       "in the same run directory; use the distributed strategy "
                       "(--set trainer.strategy=distributed)"));
}

/// Note [One run, one directory]: joins the group of a multi-process strategy and agrees on
/// the directory and checkpoint that rank 0 chose.
void agreeOnRunDirectory(const RunRequest& request, PreparedRun& run, std::string& checkpoint,
                         std::string& note) {
  const Project& project = run.project;
  const StrategyMaker& strategy = strategyMaker(project.trainer.type);
  if (strategy.join) {
    const std::string identity =
        projectToJson(project).dump() + (request.resume ? "\nresume" : "\nnew");
    run.group = strategy.join(project.trainer.resolved(), stableHash(identity), project.name);
  } else {
    refuseOneProcessStrategyAsRank(project.trainer.type);
  }
  run.rank = run.group ? run.group->rank() : 0;
  if (run.rank == 0) {
    try {
      chooseRunDirectory(request, run, checkpoint, note);
    } catch (const std::exception& e) {
      if (run.group) run.group->publish("run_dir", str("!", e.what()));
      throw;
    }
    if (run.group) {
      run.group->publish("run_dir", run.runDir);
      run.group->publish("resume_from", checkpoint);
    }
    return;
  }
  run.runDir = run.group->receive("run_dir");
  if (!run.runDir.empty() && run.runDir[0] == '!') {
    throw InputError(str("distributed: rank 0 could not prepare the run: ", run.runDir.substr(1)));
  }
  checkpoint = run.group->receive("resume_from");
  std::error_code ec;
  fs::create_directories(run.runDir, ec);  // a directory that is not shared: this rank's log
  if (!checkpoint.empty() && !fs::exists(checkpoint)) {
    throw InputError(str("distributed: rank ", run.rank, " cannot read ", checkpoint,
                         " (rank 0's checkpoint): resuming needs the run directory on a file "
                         "system every rank shares"));
  }
}

/// A resumed run's directory may hold the temporary files of writers killed before their rename
/// (a checkpoint's is as large as the model): those of this host's processes that are gone are
/// removed, and said.
void removeTemporaryFilesOfKilledWriters(const std::string& runDir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(runDir, ec)) {
    const auto writer = temporaryFileWriter(entry.path().filename().string());
    if (!writer || writer->host != thisHost() || processRunning(writer->pid)) continue;
    std::error_code removed;
    if (fs::remove(entry.path(), removed)) {
      TB_LOG(Info) << "removed " << entry.path().string() << ": process " << writer->pid
                   << " ended before it became " << writer->target;
    }
  }
}

}  // namespace

std::unique_ptr<PreparedRun> prepareRun(RunRequest request) {
  auto prepared = std::make_unique<PreparedRun>();
  PreparedRun& run = *prepared;
  run.project = std::move(request.project);
  const Project& project = run.project;
  std::string checkpoint;
  std::string checkpointNote;  // refused checkpoints: logged once the run's log is open
  agreeOnRunDirectory(request, run, checkpoint, checkpointNote);
  const bool owner = run.rank == 0;
  const std::string logName = owner ? "log.log" : str("log-rank", run.rank, ".log");
  run.logOpen = logging::openFile((fs::path(run.runDir) / logName).string());
  TB_LOG(Info) << "command: " << request.origin;
  if (!checkpointNote.empty()) {
    TB_LOG(Warning) << checkpointNote;
  }
  if (owner && request.resume) removeTemporaryFilesOfKilledWriters(run.runDir);
  if (run.group) {
    TB_LOG(Info) << "distributed: " << run.group->environment().describe();
  }
  if (owner)
    run.status = std::make_shared<RunStatusWriter>(run.runDir, request.origin, project.name);
  try {
    const fs::path frozen = fs::path(run.runDir) / "project.json";
    if (owner && (!request.resume || !fs::exists(frozen))) {
      writeFileAtomically(frozen.string(), projectToJson(project).dump(2) + "\n");
    }
    configureThreads(project.numThreads);
    logEnvironment();
    run.built = buildRun(project, owner ? run.runDir : "", run.rank);
    run.built.config.resumeFrom = checkpoint;
    for (auto& monitor : request.extraMonitors) run.built.config.monitors->push_back(monitor);
    if (run.status) run.built.config.monitors->push_back(run.status);
    run.loop = setupTrainWithConfig(run.built.config, *run.built.trainer);
  } catch (const std::exception& e) {
    TB_LOG(Error) << "cannot start the run: " << e.what();
    if (run.status) run.status->finish(RecordedState::Failed, e.what());
    if (run.group) run.group->reportFailure(str("rank ", run.rank, ": ", e.what()));
    throw;
  }
  TB_LOG(Info) << "run directory: " << run.runDir;
  return prepared;
}

RecordedState trainPreparedRun(PreparedRun& run, std::string* error) {
  TowerTrainer& trainer = *run.built.trainer;
  RecordedState outcome = RecordedState::Finished;
  try {
    trainer.train(run.loop);
    // A run directory deleted during the run (and partly made again by writers that create
    // their folders) has lost its project.json, log.log and scalars.jsonl: not a success.
    if (run.status && !fs::exists(fs::path(run.runDir) / "project.json")) {
      throw InputError("the run directory " + run.runDir +
                       " was deleted during the run: its project.json, log.log and "
                       "scalars.jsonl are gone (checkpoints written since, if any, are in it)");
    }
    // An early_stopping callback that ended the run: it reached its end (a success), early.
    std::string early;
    std::vector<CallbackPtr> callbacks = run.built.config.callbacks;
    if (const auto& extra = run.built.config.extraCallbacks) {
      callbacks.insert(callbacks.end(), extra->begin(), extra->end());  // the project's
    }
    for (const CallbackPtr& callback : callbacks) {
      const auto* e = dynamic_cast<const EarlyStopping*>(callback.get());
      if (e != nullptr && e->stoppedEarly()) early = e->reason();
    }
    // The stop vote of a distributed run: another rank's early stopping (on a stat of its own
    // batches) ended the run at an epoch's end, a success as on that rank.
    if (early.empty() && trainer.stoppedByAnotherRank()) {
      early = "another rank's callback ended training after epoch " +
              std::to_string(trainer.epochNum());
    }
    outcome =
        trainer.stoppedEarly() && early.empty() ? RecordedState::Stopped : RecordedState::Finished;
    TB_LOG(Info) << (outcome == RecordedState::Stopped ? "training stopped at epoch "
                     : early.empty()                   ? "training finished at epoch "
                                                       : "training finished early at epoch ")
                 << trainer.epochNum() << ", global step " << trainer.globalStep()
                 << (early.empty() ? "" : " (early stopping: " + early + ")");
    if (run.group) run.group->finish();  // rank 0 hosts the store: nobody leaves first
    if (run.status) run.status->finish(outcome);
  } catch (const std::exception& e) {
    outcome = RecordedState::Failed;
    TB_LOG(Error) << "training failed: " << e.what();
    if (run.group) run.group->reportFailure(str("rank ", run.rank, ": ", e.what()));
    if (run.status) run.status->finish(RecordedState::Failed, e.what());
    if (error) *error = e.what();
  }
  if (run.logOpen) {
    logging::closeFile();
    run.logOpen = false;
  }
  return outcome;
}

}  // namespace tbench
