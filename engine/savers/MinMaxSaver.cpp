#include "engine/savers/MinMaxSaver.h"

#include <algorithm>
#include <cmath>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/savers/ModelSaver.h"

namespace fs = std::filesystem;

namespace tbench {
namespace {

std::string safeFileName(const std::string& stat) {
  std::string out = stat;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) c = '_';
  }
  return out;
}

}  // namespace

MinMaxSaver::MinMaxSaver(Mode mode, std::string stat, std::string fileName)
    : mode_(mode), stat_(std::move(stat)), fileName_(std::move(fileName)) {
  if (stat_.empty()) throw InputError("MinSaver/MaxSaver: the stat name is empty");
  if (fileName_.empty()) {
    fileName_ = (mode_ == Mode::Min ? "min-" : "max-") + safeFileName(stat_) + ".pt";
  }
  if (fileName_.find('/') != std::string::npos) {
    throw InputError(str(name(), ": the file name must not contain '/', got \"", fileName_, "\""));
  }
}

std::string MinMaxSaver::name() const {
  return str(mode_ == Mode::Min ? "MinSaver(" : "MaxSaver(", stat_, ")");
}

void MinMaxSaver::onSetupGraph() {
  dir_ = context().runDir();
  if (dir_.empty()) {
    throw InputError(str(name(),
                         ": the run has no directory to save checkpoints to; set "
                         "TrainConfig::runDir"));
  }
}

void MinMaxSaver::onBeforeTrain() {
  trainStart_ = fs::file_time_type::clock::now();
  warnedNoStat_ = false;
  best_.reset();
  try {
    auto index = CheckpointIndex::read(dir_);
    if (!index) return;
    auto it = std::find_if(index->best.begin(), index->best.end(),
                           [&](const auto& entry) { return entry.second.file == fileName_; });
    if (it == index->best.end()) return;
    std::error_code ec;
    if (fs::is_regular_file(fs::path(dir_) / it->second.file, ec)) {
      best_ = it->second.value;
      TB_LOG(Info) << name() << ": continuing from the best " << stat_ << " " << *best_
                   << " (global step " << it->second.globalStep << ")";
    }
  } catch (const std::exception& e) {
    TB_LOG(Warning) << name() << ": " << e.what() << "; starting without a best value";
  }
}

std::string MinMaxSaver::indexKey(const CheckpointIndex& index) const {
  auto it = index.best.find(stat_);
  if (it == index.best.end() || it->second.file == fileName_) return stat_;
  // Another saver (a MaxSaver beside a MinSaver) holds the stat's entry.
  const size_t dot = fileName_.rfind(".pt");
  return dot == fileName_.size() - 3 ? fileName_.substr(0, dot) : fileName_;
}

bool MinMaxSaver::better(double value) const {
  if (std::isnan(value)) return false;
  if (!best_) return true;
  return mode_ == Mode::Min ? value < *best_ : value > *best_;
}

void MinMaxSaver::onTrigger() {
  // After every callback's trigger, like ModelSaver (Note [Checkpoint after the triggers]): its
  // file of this step is then written when it comes before this saver.
  context().afterTriggers([this] { saveIfBest(); });
}

void MinMaxSaver::saveIfBest() {
  const std::optional<double> value = context().monitors().latest(stat_);
  if (!value) {
    if (!warnedNoStat_) {
      TB_LOG(Warning) << name() << ": no value of \"" << stat_
                      << "\" has been put when it triggered at global step "
                      << context().globalStep()
                      << "; no callback of this run produces it at that point (e.g. "
                         "InferenceRunner for validation_error)";
      warnedNoStat_ = true;
    }
    return;
  }
  if (!better(*value)) return;
  const std::string target = (fs::path(dir_) / fileName_).string();
  if (!writeBestFile(target)) return;
  best_ = *value;
  try {
    CheckpointIndex index;
    try {
      if (auto existing = CheckpointIndex::read(dir_)) index = *existing;
    } catch (const InputError& e) {
      TB_LOG(Warning) << name() << ": " << e.what() << "; writing a new index";
    }
    index.best[indexKey(index)] = BestCheckpoint{fileName_, *value, context().globalStep()};
    index.write(dir_);
  } catch (const std::exception& e) {
    TB_LOG(Error) << name() << ": cannot record " << target << " in the index: " << e.what();
  }
  TB_LOG(Info) << name() << ": " << stat_ << " " << *value << " at global step "
               << context().globalStep() << ", saved " << target;
}

bool MinMaxSaver::writeBestFile(const std::string& target) {
  const int64_t step = context().globalStep();
  const fs::path source = fs::path(dir_) / ModelSaver::fileNameForStep(step);
  // ModelSaver's file of this step, when it was written by this run: a file of the same name
  // older than this training is from an abandoned run that had reached the same step. File
  // times come from a coarse clock, hence the margin.
  std::error_code ec;
  const bool fresh = fs::is_regular_file(source, ec) &&
                     fs::last_write_time(source, ec) >= trainStart_ - std::chrono::seconds(2) &&
                     !ec;
  try {
    if (fresh) {
      writeFileAtomically(target, readFile(source.string()));
    } else {
      context().saveCheckpoint(target);
    }
    return true;
  } catch (const CheckError&) {
    throw;
  } catch (const std::exception& e) {
    TB_LOG(Error) << name() << ": cannot save " << target << ": " << e.what()
                  << "; the previous best file is kept";
    return false;
  }
}

}  // namespace tbench
