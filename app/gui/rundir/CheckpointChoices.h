#pragma once
// The checkpoints of a run offered for export, in the order the export dialog lists them:
// the latest, the best by each stat, then every model-<step>.pt of the index, newest first.

#include <QString>
#include <QVector>

#include "app/gui/rundir/RunDirectoryInfo.h"

namespace tbench::gui {

struct CheckpointChoice {
  enum class Kind { Latest, Best, Step };
  Kind kind = Kind::Step;
  QString label;           ///< "latest (step 1200)", "best validation_error (step 900)", "step 600"
  QString detail;          ///< tooltip: file, value, why it is unavailable
  QString path;            ///< absolute path of the file
  qint64 globalStep = -1;  ///< -1 when unknown
  bool exists = false;     ///< the file is on disk (the dialog disables the others)
};

/// The choices for `run` (empty when it has no checkpoint).
QVector<CheckpointChoice> checkpointChoices(const RunDirectoryInfo& run);

/// "pt" -> "pt", "safetensors" -> "safetensors": the file extension of an export format.
QString exportExtension(const QString& format);

/// The default export file name: <project>-<run>-step<N>.<ext>, or <project>-<run>-<stem>.<ext>
/// when the step is unknown. Characters that do not belong in a file name become '_'.
QString defaultExportFileName(const QString& projectName, const QString& runId, qint64 globalStep,
                              const QString& checkpointPath, const QString& format);

}  // namespace tbench::gui
