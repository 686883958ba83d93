#pragma once
// ScalarStream: the scalars of a run as they are put, one JSON object per line, appended to
// <run dir>/scalars.jsonl, for whoever follows a run it did not start: the window following a
// distributed run's rank 0 or a run started by torchrun or SLURM elsewhere (stats.json has only
// one entry per epoch).
//
//   {"name":"cost","step":120,"epoch":1,"time":1764000000.123,"value":0.41}
//
// A non-finite value is written as the string "nan", "inf" or "-inf". Lines are flushed at
// most every kFlushSeconds, at every epoch's end and after training, always whole lines (a
// reader drops a last line without its newline). To keep a long run's file small, a scalar is
// written at most once per kMinIntervalSeconds of wall time; a value held back is replaced by a
// newer one of its name and written at the next flush (at most kFlushSeconds later) or at the
// epoch's end, so the last value of every epoch is there.
// A resumed run appends, after dropping the values past the step it resumes from (Note [A
// resumed stream], ScalarStream.cpp). A file that cannot be opened or written is logged and not
// written for the rest of the run, which then ends failed (Note [Records that cannot be written],
// TrainingMonitor.h). Engine thread.

#include <cstdio>
#include <map>
#include <string>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

class ScalarStream : public TrainingMonitor {
 public:
  static constexpr const char* kFileName = "scalars.jsonl";
  static constexpr double kFlushSeconds = 0.5;
  static constexpr double kMinIntervalSeconds = 0.1;

  /// `path` defaults to <run dir>/scalars.jsonl when empty.
  explicit ScalarStream(std::string path = "");
  ~ScalarStream() override;

  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override;
  const std::string& path() const { return path_; }

 private:
  struct Held {
    double value = 0;
    MetricStamp stamp;
    bool pending = false;
    double lastWritten = -1e300;
  };
  void onBeforeTrain() override;
  void onTriggerEpoch() override;
  void onAfterTrain() override;
  void write(const std::string& name, double value, const MetricStamp& stamp);
  void writeHeld();
  void flush();
  /// Note [A resumed stream]: drops the lines past `globalStep` (and a cut last line).
  void keepUpTo(int64_t globalStep);
  /// Closes the file after a failed write and remembers the first step lost and why.
  void lose(const std::string& reason, int64_t fromStep);

  std::string path_;
  std::string lost_;  ///< why the file stopped being written; empty while it is
  int64_t lostFrom_ = 0;
  int64_t lastStep_ = 0;     ///< global step of the newest value put
  int64_t flushedStep_ = 0;  ///< lastStep_ at the last flush that worked
  std::FILE* file_ = nullptr;
  std::map<std::string, Held> held_;
  double lastFlush_ = 0;
};

}  // namespace tbench
