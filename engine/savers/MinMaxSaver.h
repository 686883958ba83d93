#pragma once
// MinSaver / MaxSaver: keep a copy of the best checkpoint by a monitored stat (tensorpack's
// MinSaver / MaxSaver), as min-<stat>.pt / max-<stat>.pt in the run directory.
//
//   config.callbacks = {std::make_shared<InferenceRunner>(...),   // puts "validation_error"
//                       std::make_shared<ModelSaver>(),
//                       std::make_shared<MinSaver>("validation_error")};
//
// On every trigger it reads the latest value of the stat. When it is better than the best so
// far, the checkpoint ModelSaver wrote at this global step is copied (copy to a temporary file,
// then rename); when there is none, the trainer saves one directly. The index (CheckpointIndex)
// records it under "best" (keyed by the stat; when a MinSaver and a MaxSaver watch the same
// stat, the second is keyed by its file name without ".pt"). A run that continues in a
// directory starts from the best recorded there for this saver's file.
//
// Order matters: it must come after the callback that puts the stat (an InferenceRunner), and
// after ModelSaver to reuse its file. When the stat has never been put at a trigger, it warns
// once that it is probably ordered before its producer. Failed writes are logged as errors and
// training continues.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/callbacks/Callback.h"

namespace tbench {

struct CheckpointIndex;

class MinMaxSaver : public Callback {
 public:
  enum class Mode { Min, Max };

  /// `fileName` defaults to "min-<stat>.pt" / "max-<stat>.pt" (characters other than letters,
  /// digits, '.', '-' and '_' in the stat become '_'). Throws InputError for an empty stat.
  MinMaxSaver(Mode mode, std::string stat, std::string fileName = "");

  std::string name() const override;
  const std::string& stat() const { return stat_; }
  const std::string& fileName() const { return fileName_; }
  /// The best value so far (this run's, or the one recorded in the index at start).
  std::optional<double> best() const { return best_; }

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override;
  void onTrigger() override;
  /// What onTrigger does once every callback has triggered.
  void saveIfBest();
  bool better(double value) const;
  /// The key of this saver's entry in the index's "best": the stat, unless another saver's
  /// file holds it; then this saver's file name without ".pt".
  std::string indexKey(const CheckpointIndex& index) const;
  /// Writes the best file for the current step. Returns false (after logging) on failure.
  bool writeBestFile(const std::string& target);

  Mode mode_;
  std::string stat_;
  std::string fileName_;
  std::string dir_;
  std::optional<double> best_;
  bool warnedNoStat_ = false;
  std::filesystem::file_time_type trainStart_;
};

/// Keeps the checkpoint with the lowest value of `stat` as min-<stat>.pt.
class MinSaver : public MinMaxSaver {
 public:
  explicit MinSaver(std::string stat, std::string fileName = "")
      : MinMaxSaver(Mode::Min, std::move(stat), std::move(fileName)) {}
};

/// Keeps the checkpoint with the highest value of `stat` as max-<stat>.pt.
class MaxSaver : public MinMaxSaver {
 public:
  explicit MaxSaver(std::string stat, std::string fileName = "")
      : MinMaxSaver(Mode::Max, std::move(stat), std::move(fileName)) {}
};

}  // namespace tbench
