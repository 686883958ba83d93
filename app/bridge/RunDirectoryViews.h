#pragma once
// The run directory's files as the engine reads them, for the window (Qt types only): the
// checkpoint index, run.json, stats.json, scalars.jsonl lines, and exporting a checkpoint. The
// window never parses these formats itself; app/bridge/RunDirectoryServices.h has the engine's
// readers (runDirectoryReaders()), which the window installs once
// (installRunDirectoryReaders, app/gui/rundir/RunDirectoryInfo.h).

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>
#include <optional>

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
  /// The time the directory's name stands for when it is a run id the engine made
  /// (runIdTime); invalid for another name. Set with or without a run.json.
  QDateTime idTime;
  /// For a Running record: whether its process still exists (same host, pid alive; another
  /// host is taken at its word), as the engine decides it (RunStatusRecord::processAlive).
  bool writerAlive = true;
};
using RunStatusReader = std::function<RunStatusView(const QString& runDir)>;

/// One value of one scalar in a run's stats.json.
struct ScalarPointView {
  QString name;      ///< "cost", "validation_error", ...
  qint64 epoch = 0;  ///< epoch_num of the entry (1-based)
  qint64 step = 0;   ///< global_step of the entry
  double value = 0;  ///< NaN / +-inf for the engine's "nan" / "inf" / "-inf"
};

/// A run's stats.json as the engine reads it (readStatsFile, engine/run/RunScalars.h).
struct RunStatsView {
  bool exists = false;               ///< the file is there (an empty `points` may still be valid)
  QString error;                     ///< why (part of) the file could not be used, naming it
  int entries = 0;                   ///< objects in the list
  QVector<ScalarPointView> points;   ///< every scalar of every entry, in file order
  QMap<QString, double> lastValues;  ///< the last value of each scalar
  qint64 lastEpoch = -1;             ///< epoch_num of the last entry, -1 when none
  qint64 lastGlobalStep = -1;        ///< global_step of the last entry, -1 when none
};
/// Reads the stats.json at a path. Never throws.
using RunStatsReader = std::function<RunStatsView(const QString& path)>;
/// One line of scalars.jsonl as a sample (engine/run/RunScalars.h, parseScalarLine); nullopt
/// when the line is not a scalar.
using ScalarLineParser = std::function<std::optional<MetricSample>(const QByteArray& line)>;

/// One trial of a sweep as its queue recorded it (engine/sweep/SweepQueue.h).
/// A sweep trial's state: the engine's TrialState (engine/sweep/SweepState.h), mapped in one
/// place (readSweepStateView). Named apart from it, as the window's code sees both names.
enum class TrialPhase { Pending, Running, Finished, Failed, Pruned, Cancelled };
/// "pending", "running", "finished", "failed", "pruned", "cancelled": the words of
/// sweep-state.json and of `towerbench-cli sweep`.
QString toString(TrialPhase phase);
/// Pending or running: the queue still has to run or end it.
inline bool isActive(TrialPhase phase) {
  return phase == TrialPhase::Pending || phase == TrialPhase::Running;
}

struct SweepTrialView {
  qint64 index = 0;
  TrialPhase state = TrialPhase::Pending;
  QJsonObject values;  ///< parameter path -> value
  QString runDir;
  QVector<double> metric;  ///< the sweep's metric after each epoch
  qint64 prunedAt = 0;     ///< the band (epoch) that stopped a pruned trial
  QString detail;          ///< why it failed
  double started = 0;      ///< seconds since the Unix epoch (0: not yet)
  /// Recorded running on this host, but its process is gone (its queue was killed before it
  /// recorded the end): the sweep run again records how it ended.
  bool processGone = false;
};

/// One parameter's importance for the sweep's metric (engine/sweep/SweepSearch.h).
struct ParameterImportanceView {
  QString path;
  double importance = 0;   ///< share of a random forest's variance reduction (sums to 1)
  double correlation = 0;  ///< signed, with the metric
};

/// A sweep's sweep-state.json, read by the engine (readSweepState).
struct SweepStateView {
  bool present = false;  ///< the directory has a sweep-state.json
  QString error;         ///< present but unreadable: the engine's message, naming the file
  QString sweepFile, sweepId, metric;
  bool maximize = false;
  bool paused = false;     ///< no trial starts (the sweep directory's pause file exists)
  QStringList parameters;  ///< parameter paths, in the sweep's order
  QList<SweepTrialView> trials;
  /// The sweep's queue runs on this host (its pid, 0: none), in this window or outside it.
  qint64 queuePid = 0;
  qint64 bestTrial = -1;  ///< the engine's bestTrial (-1: none has a result)
  /// Most important first; empty with fewer than 3 results or when the sweep file is unreadable.
  QList<ParameterImportanceView> importance;
};
using SweepStateReader = std::function<SweepStateView(const QString& sweepDir)>;
/// Pauses (no trial starts) or resumes the sweep in a directory; false with `*error`.
using SweepPauser = std::function<bool(const QString& sweepDir, bool paused, QString* error)>;
/// Asks the queue of the sweep in a directory something about one trial (start it next, cancel
/// it); false with `*error`.
using SweepTrialRequest =
    std::function<bool(const QString& sweepDir, qint64 trial, QString* error)>;

/// The engine's readers of a run directory's files, installed once by the window.
struct RunDirectoryReaders {
  CheckpointIndexReader checkpointIndex;
  RunStatusReader runStatus;
  RunStatsReader stats;
  ScalarLineParser scalarLine;
};

/// Writes the weights of `checkpoint` as `format` ("pt", "safetensors" or "torchscript") to
/// `out`; with `weightAverage`, the weight average the checkpoint keeps (trainer.ema_decay)
/// instead of the raw weights. Returns true and a confirmation in `*message`, or false and the
/// reason (naming the file).
using CheckpointExporter =
    std::function<bool(const QString& checkpoint, const QString& format, const QString& out,
                       bool weightAverage, QString* message)>;

}  // namespace tbench::bridge
