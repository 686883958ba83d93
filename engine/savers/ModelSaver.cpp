#include "engine/savers/ModelSaver.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace fs = std::filesystem;

namespace tbench {

ModelSaver::ModelSaver() : ModelSaver(Options()) {}

ModelSaver::ModelSaver(Options options) : options_(std::move(options)) {
  if (options_.maxToKeep() < 1) {
    throw InputError(str("ModelSaver: max_to_keep must be at least 1, got ", options_.maxToKeep()));
  }
  if (!(options_.keepCheckpointEveryNHours() >= 0)) {
    throw InputError(str("ModelSaver: keep_checkpoint_every_n_hours must be >= 0, got ",
                         options_.keepCheckpointEveryNHours()));
  }
}

std::string ModelSaver::fileNameForStep(int64_t globalStep) {
  return "model-" + std::to_string(globalStep) + ".pt";
}

void ModelSaver::onSetupGraph() {
  dir_ = options_.checkpointDir().empty() ? context().runDir() : options_.checkpointDir();
  if (dir_.empty()) {
    throw InputError(
        "ModelSaver: the run has no directory to save checkpoints to; set TrainConfig::runDir "
        "or ModelSaver::Options::checkpointDir");
  }
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (!fs::is_directory(dir_)) {
    throw InputError(str("ModelSaver: cannot create the checkpoint directory ", dir_, ": ",
                         ec ? ec.message() : "not a directory"));
  }
}

void ModelSaver::onBeforeTrain() {
  removeStaleTempFiles();
  managed_.clear();
  kept_.clear();
  manual_.clear();
  lastPreserved_ = Clock::now();
  lastSavedStep_ = -1;
  unsavedError_.clear();
  unsavedStep_ = -1;
  startStep_ = context().globalStep();
  std::optional<CheckpointIndex> index;
  try {
    index = CheckpointIndex::read(dir_);
  } catch (const std::exception& e) {
    TB_LOG(Warning) << "ModelSaver: " << e.what() << "; starting a new index";
  }
  if (!index) return;
  // Continue the retention of the files the index lists; their age is their modification time.
  for (const auto& name : index->all) {
    std::error_code ec;
    const auto modified = fs::last_write_time(fs::path(dir_) / name, ec);
    if (ec) continue;  // listed but gone
    if (index->isManual(name)) {
      manual_.push_back(name);
    } else if (std::find(index->kept.begin(), index->kept.end(), name) != index->kept.end()) {
      kept_.push_back(name);
    } else {
      const auto age = fs::file_time_type::clock::now() - modified;
      managed_.push_back({name, Clock::now() - std::chrono::duration_cast<Clock::duration>(age)});
    }
  }
}

// Note [Checkpoint after the triggers]: the state once every callback of this step or epoch
// has run, whatever the order of the callbacks.
void ModelSaver::onTrigger() {
  context().afterTriggers([this] { save(); });
}

void ModelSaver::onAfterTrain() {
  const int64_t step = context().globalStep();
  if (context().trainingFailed()) {
    if (step != lastSavedStep_ && step != startStep_ && options_.saveOnAfterTrain()) {
      TB_LOG(Warning) << "ModelSaver: training failed at global step " << step
                      << "; not saving its state (the last checkpoint is from step "
                      << lastSavedStep_ << ")";
    }
    return;
  }
  if (options_.saveOnAfterTrain() && step != lastSavedStep_ && step != startStep_) save();
  if (unsavedError_.empty()) return;
  // The newest state this saver tried to write is on no disk: not a success (Note [A
  // checkpoint that cannot be written]).
  // The checkpoint to resume from: this run's newest, or, in a resumed run that saved none,
  // the one it resumed from (the index's latest).
  std::string newest = "no checkpoint of this run was written";
  if (lastSavedStep_ < 0) {
    try {
      if (const auto index = CheckpointIndex::read(dir_); index && !index->latest.empty()) {
        newest = "the newest checkpoint is " + (fs::path(dir_) / index->latest).string() +
                 ": free space and resume from it (towerbench-cli train PROJECT --resume "
                 "--run-dir RUN_DIR, or Resume in the window)";
      }
    } catch (const std::exception&) {
    }
  }
  std::error_code gone;
  const fs::path last = fs::path(dir_) / fileNameForStep(std::max<int64_t>(lastSavedStep_, 0));
  if (lastSavedStep_ >= 0 && !fs::exists(last, gone)) {
    newest = "no checkpoint of this run is left: " + last.string() + " is gone" +
             (fs::exists(dir_, gone) ? std::string() : " with its directory");
  } else if (lastSavedStep_ >= 0) {
    newest = "the newest checkpoint is " +
             (fs::path(dir_) / fileNameForStep(lastSavedStep_)).string() + " (global step " +
             std::to_string(lastSavedStep_) +
             "): free space and resume from it (towerbench-cli train PROJECT --resume --run-dir "
             "RUN_DIR, or Resume in the window)";
  }
  throw std::runtime_error("ModelSaver: the state of global step " + std::to_string(unsavedStep_) +
                           " is on no disk (" + unsavedError_ + "); " + newest);
}

void ModelSaver::save(bool manual) {
  const int64_t step = context().globalStep();
  const std::string name = fileNameForStep(step);
  const std::string path = (fs::path(dir_) / name).string();
  try {
    context().saveCheckpoint(path);
  } catch (const CheckError&) {
    throw;  // a programming error (a trainer without a model), not a disk problem
  } catch (const std::exception& e) {
    // Note [A checkpoint that cannot be written]: training goes on and the next save tries
    // again (a disk may be freed meanwhile); a run whose last state is on no disk fails.
    const std::string error = "cannot save " + path + ": " + e.what();
    TB_LOG(Error) << "ModelSaver: " << error
                  << "; the previous checkpoints are kept, the next save tries again";
    // A manual save of a step already on disk loses nothing.
    if (step != lastSavedStep_) {
      unsavedError_ = error;
      unsavedStep_ = step;
    }
    return;
  }
  unsavedError_.clear();

  const auto previousManaged = managed_;
  const auto previousKept = kept_;
  const auto previousManual = manual_;
  const auto previousPreserved = lastPreserved_;
  // A scheduled save at the step of a manual one leaves it manual.
  manual = manual || std::find(manual_.begin(), manual_.end(), name) != manual_.end();
  managed_.erase(std::remove_if(managed_.begin(), managed_.end(),
                                [&](const Managed& m) { return m.name == name; }),
                 managed_.end());
  kept_.erase(std::remove(kept_.begin(), kept_.end(), name), kept_.end());
  manual_.erase(std::remove(manual_.begin(), manual_.end(), name), manual_.end());
  if (manual) {
    manual_.push_back(name);
  } else {
    managed_.push_back({name, Clock::now()});
  }
  std::vector<std::string> doomed;
  const auto keepEvery = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double, std::ratio<3600>>(options_.keepCheckpointEveryNHours()));
  while (static_cast<int64_t>(managed_.size()) > options_.maxToKeep()) {
    const Managed oldest = managed_.front();
    managed_.erase(managed_.begin());
    if (options_.keepCheckpointEveryNHours() > 0 && oldest.savedAt - lastPreserved_ >= keepEvery) {
      kept_.push_back(oldest.name);
      lastPreserved_ = oldest.savedAt;
    } else {
      doomed.push_back(oldest.name);
    }
  }

  try {
    writeIndex(name);
  } catch (const std::exception& e) {
    // The new file is on disk but not in the index; delete nothing and retry retention with
    // the next save, which writes an index that lists it.
    TB_LOG(Error) << "ModelSaver: cannot update the index of " << dir_ << ": " << e.what()
                  << "; no checkpoint deleted";
    managed_ = previousManaged;
    kept_ = previousKept;
    manual_ = previousManual;
    lastPreserved_ = previousPreserved;
    managed_.erase(std::remove_if(managed_.begin(), managed_.end(),
                                  [&](const Managed& m) { return m.name == name; }),
                   managed_.end());
    manual_.erase(std::remove(manual_.begin(), manual_.end(), name), manual_.end());
    if (manual) {
      manual_.push_back(name);
    } else {
      managed_.push_back({name, Clock::now()});
    }
    lastSavedStep_ = step;
    return;
  }
  for (const auto& old : doomed) {
    std::error_code ec;
    fs::remove(fs::path(dir_) / old, ec);
    if (ec) {
      TB_LOG(Warning) << "ModelSaver: cannot delete " << old << ": " << ec.message();
    }
  }
  lastSavedStep_ = step;
  TB_LOG(Info) << "ModelSaver: saved " << path
               << (manual ? " (manual: kept, never deleted by retention)" : "");
}

void ModelSaver::writeIndex(const std::string& name) const {
  CheckpointIndex index;
  try {
    if (auto existing = CheckpointIndex::read(dir_)) index = *existing;
  } catch (const InputError& e) {
    TB_LOG(Warning) << "ModelSaver: " << e.what() << "; writing a new index";
  }
  index.latest = name;
  index.kept = kept_;
  index.kept.insert(index.kept.end(), manual_.begin(), manual_.end());
  index.manual = manual_;
  index.all = index.kept;
  for (const auto& m : managed_) index.all.push_back(m.name);
  // Oldest first: by the step in the name (every name here is model-<step>.pt).
  const auto stepOf = [](const std::string& file) {
    return std::strtoll(file.c_str() + 6, nullptr, 10);  // after "model-"
  };
  const auto byStep = [&](const std::string& a, const std::string& b) {
    return stepOf(a) < stepOf(b);
  };
  std::stable_sort(index.all.begin(), index.all.end(), byStep);
  std::stable_sort(index.kept.begin(), index.kept.end(), byStep);
  index.write(dir_);
}

void ModelSaver::removeStaleTempFiles() {
  // writeFileAtomically's temporary files are "<target>.tmp<pid>"; one left by a process that
  // was killed mid-write is garbage (two live trainers never share a run directory).
  static const std::regex pattern("(model-[0-9]+\\.pt|checkpoint|(min|max)-.+\\.pt)\\.tmp([0-9]+)");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, pattern)) continue;
    if (match[3].str() == std::to_string(::getpid())) continue;
    std::error_code removeError;
    if (fs::remove(entry.path(), removeError)) {
      TB_LOG(Info) << "ModelSaver: removed " << entry.path().string()
                   << ", left by an interrupted write";
    }
  }
}

}  // namespace tbench
