#pragma once
// ModelSaver: writes <run dir>/model-<global_step>.pt on every trigger (tensorpack's
// ModelSaver). By default that is every epoch; wrap it in PeriodicTrigger for another schedule.
//
//   config.callbacks = {std::make_shared<ModelSaver>(ModelSaver::Options().maxToKeep(5))};
//
// Each save writes the checkpoint (TrainerContext::saveCheckpoint), then the index
// (CheckpointIndex), and only then deletes the checkpoints retention drops: a kill at any
// moment leaves an index whose `latest` loads. Retention (TensorFlow's Saver): the newest
// `maxToKeep` stay; of the older ones, one per `keepCheckpointEveryNHours` of wall time is kept
// for good; checkpoints saved on request (saveNow) are always kept and marked manual. A run
// that continues in a directory takes over its index (and the files it lists).
//
// Note [A checkpoint that cannot be written]
// A failed write (disk full, permissions, a directory deleted) is logged as an error naming the
// path and the reason; what was on disk stays as it was, training continues and the next save
// tries again (tensorpack's ModelSaver lets the error end the run; a disk that fills for a while
// should not cost the epochs since the last checkpoint). A run whose latest save failed and was
// not followed by one that worked ends failed, not as a success: afterTrain throws, naming the
// step whose state is on no disk, the reason, and the newest checkpoint to resume from; the
// CLI exits 1, run.json records it as the run's error, the window shows the run failed.

#include <torch/arg.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/callbacks/Callback.h"

namespace tbench {

class ModelSaver : public Callback {
 public:
  struct Options {
    /// How many of the newest checkpoints to keep; older ones are deleted. >= 1.
    TORCH_ARG(int64_t, maxToKeep) = 10;
    /// Also keep, for good, one checkpoint per this many hours of training; 0: none.
    TORCH_ARG(double, keepCheckpointEveryNHours) = 0.5;
    /// Save once more in afterTrain when the last save was not at the final step (a stopped run
    /// keeps its last state). Never after a failed training.
    TORCH_ARG(bool, saveOnAfterTrain) = true;
    /// Where to write; empty: the run directory.
    TORCH_ARG(std::string, checkpointDir) = "";
  };

  ModelSaver();
  /// Throws InputError for maxToKeep < 1 or a negative keepCheckpointEveryNHours.
  explicit ModelSaver(Options options);

  /// model-<step>.pt
  static std::string fileNameForStep(int64_t globalStep);
  /// The directory checkpoints go to (valid from setupGraph on).
  const std::string& directory() const { return dir_; }
  /// The global step of the last successful save of this run, or -1.
  int64_t lastSavedStep() const { return lastSavedStep_; }
  /// Saves now, outside the schedule (the window's "Save checkpoint now"). The checkpoint is
  /// manual: listed in the index's `kept` and `manual`, never deleted by retention, and not
  /// counted in maxToKeep. Engine thread, between steps.
  void saveNow() { save(/*manual=*/true); }

 private:
  using Clock = std::chrono::system_clock;
  struct Managed {
    std::string name;
    Clock::time_point savedAt;
  };

  /// Throws InputError when there is no directory to write to.
  void onSetupGraph() override;
  void onBeforeTrain() override;
  void onTrigger() override;
  void onAfterTrain() override;
  void save(bool manual = false);
  /// Writes the index for the lists above with `name` as the latest.
  void writeIndex(const std::string& name) const;
  void removeStaleTempFiles();

  Options options_;
  std::string dir_;
  std::vector<Managed> managed_;     // checkpoints retention may delete, oldest first
  std::vector<std::string> kept_;    // checkpoints kept for good, oldest first
  std::vector<std::string> manual_;  // checkpoints saved on request, kept for good, oldest first
  Clock::time_point lastPreserved_;
  int64_t lastSavedStep_ = -1;
  std::string unsavedError_;  ///< why the latest save failed (empty: it did not)
  int64_t unsavedStep_ = -1;
  int64_t startStep_ = 0;
};

}  // namespace tbench
