#pragma once
// CheckpointIndex: the run directory's `checkpoint` file, which names the checkpoints the run
// keeps (docs/ARCHITECTURE.md, "the run directory"):
//
//   {"latest": "model-1200.pt",
//    "all": ["model-600.pt", "model-1200.pt"],          oldest first
//    "kept": ["model-600.pt", "model-900.pt"],          kept for good (keepCheckpointEveryNHours,
//                                                       or saved on request)
//    "manual": ["model-900.pt"],                        saved on request ("save now"); optional
//    "best": {"validation_error": {"file": "min-validation_error.pt", "value": 0.08,
//                                  "global_step": 1200}}}
//
// File names are relative to the run directory and never contain a '/'. The file is written
// atomically, so a kill at any moment leaves the previous index. Engine thread only: the
// savers read, change and write it one after the other.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint/Checkpoint.h"

namespace tbench {

struct BestCheckpoint {
  std::string file;
  double value = 0;
  int64_t globalStep = -1;  ///< -1 when the index does not say
};

struct CheckpointIndex {
  /// The name of the index file inside a run directory.
  static constexpr const char* kFileName = "checkpoint";

  std::string latest;             ///< empty when the run has no checkpoint yet
  std::vector<std::string> all;   ///< every model-<step>.pt of the run, oldest first
  std::vector<std::string> kept;  ///< the subset that retention never deletes
  /// The subset of `kept` saved on request (the window's "Save checkpoint now"), not by a
  /// schedule. Also listed in `kept`, so that readers that do not know this key keep them too.
  std::vector<std::string> manual;
  /// By stat name (by file name without ".pt" for a second saver of the same stat).
  std::map<std::string, BestCheckpoint> best;

  bool isManual(const std::string& name) const;
  /// Lists `name` in all, kept and manual (once each) and makes it the latest.
  void addManual(const std::string& name);

  /// <runDir>/checkpoint.
  static std::string pathIn(const std::string& runDir);
  /// The index of `runDir`, or nullopt when it has none. Throws InputError naming the file when
  /// it is not valid JSON or has the wrong shape (a file name with a '/', a value not a number).
  static std::optional<CheckpointIndex> read(const std::string& runDir);
  /// Writes the index of `runDir` atomically. Throws std::runtime_error naming the file.
  void write(const std::string& runDir) const;
};

/// A checkpoint found by loadLatestCheckpoint, already read.
struct LatestCheckpoint {
  std::string path;
  TrainingState state;
};

/// The checkpoint a run continues from: the index's `latest` when it loads; otherwise (no index,
/// an unreadable index, or a `latest` that is gone or does not load) the model-<step>.pt with
/// the highest step that loads, with a warning naming each file refused and why, and the one
/// used. nullopt when nothing loads. The warning goes to `*note` when given (the caller logs it
/// where it belongs: a resume, into the run's log.log), else to the log. Never throws for
/// damaged files; throws InputError when `runDir` is not a directory.
std::optional<LatestCheckpoint> loadLatestCheckpoint(const std::string& runDir,
                                                     std::string* note = nullptr);

/// The path of loadLatestCheckpoint(runDir), or "" when the run has no loadable checkpoint.
std::string latestCheckpoint(const std::string& runDir);

}  // namespace tbench
