#pragma once
// JSONWriter: <run dir>/stats.json, a JSON list with one object per flush:
//   {"<scalar>": latest value, ..., "epoch_num": E, "global_step": G}
// It flushes at the end of every epoch and, if anything is pending, after training. The file
// is rewritten atomically on every flush. When stats.json exists at the start (a resumed run),
// its entries are kept and new ones appended; entries from beyond the starting global step
// (written after the checkpoint the run resumed from) are dropped. A write that fails is logged;
// a run whose last write of stats.json failed ends failed (Note [Records that cannot be
// written], TrainingMonitor.h).

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

class JSONWriter : public TrainingMonitor {
 public:
  /// `path` defaults to <run dir>/stats.json when empty.
  explicit JSONWriter(std::string path = "");
  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override;
  const std::string& path() const { return path_; }

  /// Reads a stats.json. Throws InputError naming the file if it is not a JSON list.
  static nlohmann::json load(const std::string& path);
  /// The entries of the stats.json at `path` that a run resuming at `globalStep` keeps: the
  /// objects whose "global_step" (0 when absent) is at most `globalStep`. Throws InputError
  /// naming the file and the entry when it is not a list or a "global_step" is not an integer.
  static nlohmann::json loadUpTo(const std::string& path, int64_t globalStep);

 private:
  void onBeforeTrain() override;
  void onTriggerEpoch() override { flush(); }
  void onAfterTrain() override;
  void flush();

  std::string path_;
  /// Note [Records that cannot be written]: why the last write failed, and the global step of
  /// the first entry not on disk since; empty once a write works again.
  std::string unsaved_;
  int64_t unsavedFrom_ = 0;
  nlohmann::json stats_ = nlohmann::json::array();
  std::map<std::string, double> pending_;
};

}  // namespace tbench
