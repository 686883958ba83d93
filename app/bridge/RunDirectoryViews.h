#pragma once
// The run directory's files as the engine reads them, for the window (Qt types only): the
// checkpoint index, run.json, and exporting a checkpoint. The window never parses these
// formats itself; app/bridge/ProjectServices.h has the engine's readers, which the window
// installs (setCheckpointIndexReader, setRunStatusReader).

#include <QDateTime>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <functional>

#include "app/bridge/BridgeTypes.h"

namespace tbench::bridge {

/// A run's checkpoint index (the `checkpoint` file) as the engine's own reader reads it
/// (engine/checkpoint/CheckpointIndex.h): the window never parses the format itself.
struct CheckpointIndexView {
  bool present = false;  ///< the run directory has an index file
  QString error;         ///< present but unusable: why (names the file)
  QString latest;        ///< empty before the first save
  QStringList all;       ///< every model-<step>.pt kept, oldest first
  QStringList kept;      ///< kept for good
  QStringList manual;    ///< saved on request ("save now"), a subset of `kept`
  struct Best {
    QString stat;  ///< the stat, or the file stem for a second saver of the same stat
    QString file;
    double value = 0;
    qint64 globalStep = -1;
  };
  QList<Best> best;
};
using CheckpointIndexReader = std::function<CheckpointIndexView(const QString& runDir)>;

/// A run's run.json as the engine reads it (readRunStatus, engine/run/RunStatus.h): the one
/// parser of that file; the window gets it through an installed RunStatusReader.
struct RunStatusView {
  bool present = false;  ///< the run directory has a run.json
  QString error;         ///< present but not readable: the engine's message, naming the file
  RunState state = RunState::Unknown;  ///< Running, Finished, Stopped or Failed when present
  QString origin, project, host;
  QString errorMessage;  ///< a failed run's error
  qint64 pid = 0;
  qint64 epoch = -1, globalStep = -1, maxEpoch = -1, stepsPerEpoch = -1;
  QDateTime started, updated, ended;  ///< invalid when absent
  QMap<QString, double> lastScalars;
  /// For a Running record: whether its process still exists (same host, pid alive; another
  /// host is taken at its word), as the engine decides it (RunStatusRecord::processAlive).
  bool writerAlive = true;
};
using RunStatusReader = std::function<RunStatusView(const QString& runDir)>;

/// Writes the weights of `checkpoint` as `format` ("pt" or "safetensors") to `out`. Returns
/// true and a confirmation in `*message`, or false and the reason (naming the file).
using CheckpointExporter = std::function<bool(const QString& checkpoint, const QString& format,
                                              const QString& out, QString* message)>;

}  // namespace tbench::bridge
