#pragma once
// The checkpoints of a run directory. The `checkpoint` index is read by the engine's own reader
// (engine/checkpoint/CheckpointIndex.h), installed once through setCheckpointIndexReader (the
// window installs bridge::readCheckpointIndex): the panel never parses the index format. What
// is added here is the view: which files exist, their steps, which are kept for good. A run
// without an index (or with an unreadable one) falls back to the model-<step>.pt files on disk,
// as the engine's loadLatestCheckpoint does.

#include <QString>
#include <QVector>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/RunDirectoryViews.h"

namespace tbench::gui {

/// One checkpoint file of a run.
struct CheckpointFile {
  QString file;              ///< name inside the run directory, e.g. "model-1200.pt"
  QString path;              ///< absolute path
  qint64 globalStep = -1;    ///< from the name model-<step>.pt (or the best entry); -1 unknown
  bool exists = false;       ///< the file is on disk now
  bool keptForGood = false;  ///< listed in the index's "kept"
  bool manual = false;       ///< listed in the index's "manual": saved on request, kept
};

/// The best checkpoint by one stat (MinSaver / MaxSaver).
struct BestCheckpointFile {
  QString stat;  ///< the index key: the stat name, or the file stem for a second saver
  CheckpointFile checkpoint;
  double value = 0;
};

struct RunCheckpoints {
  /// The name of the index file inside a run directory.
  static constexpr const char* kIndexFileName = "checkpoint";

  bool fromIndex = false;       ///< read from the index (false: found by listing the directory)
  QString error;                ///< why the index was not used; empty when fine or absent
  CheckpointFile latest;        ///< `file` empty when the run has no checkpoint
  QVector<CheckpointFile> all;  ///< every model-<step>.pt, oldest first (the index's "all")
  QVector<BestCheckpointFile> best;  ///< sorted by stat

  /// Distinct checkpoint files (model-<step>.pt and best files) that exist on disk.
  int existingCount() const;
};

/// Installs the index reader readRunCheckpoints uses (bridge::readCheckpointIndex). Without one,
/// runs list their model-<step>.pt files and say that no reader is installed.
void setCheckpointIndexReader(bridge::CheckpointIndexReader reader);

/// Reads the checkpoints of `runDir`. Never throws; a corrupt index is reported in `error` and
/// the directory listing is used instead.
RunCheckpoints readRunCheckpoints(const QString& runDir);

/// The global step in a "model-<step>.pt" file name, or -1.
qint64 globalStepOfCheckpointName(const QString& fileName);

}  // namespace tbench::gui
