#pragma once
// A run directory as the history panel and the export dialog see it, read with Qt only (no
// engine code): train_log/<project>/<run-id>/ with run.json, log.log, project.json,
// stats.json, the `checkpoint` index and the model-<step>.pt / min-<stat>.pt / max-<stat>.pt
// files (docs/ARCHITECTURE.md, "the run directory"). Reading never throws and never crashes on
// damaged files; what could not be read is reported in the *Error fields.
//
// Note [Run status]: the engine records the status in run.json (engine/run/RunStatus.h):
// "finished", "stopped", "failed" (with its error) or "running". A "running" run.json written
// on this host by a process that no longer exists is shown as unknown (killed or crashed).
// No log line is read to learn the status of such a run.
//
// Runs written before run.json existed have only their log: for them the status is inferred
// from the last start in log.log (RunLog.h), stats.json and the files' modification times, in
// this order:
//   1. failed    the last start logged "[ERR] training failed: ...";
//   2. stopped   the last start logged "training stopped at epoch E, global step G: <reason>";
//   3. finished  the last stats.json entry reached the last planned epoch: the last start's
//                "training N epochs" counted from its resume epoch (or project.json's
//                starting_epoch), else project.json's max_epoch;
//   4. running   none of the above and a file of the run (log.log, stats.json, the index) changed
//                within kRunningQuietSeconds of `now`;
//   5. unknown   otherwise: killed (SIGKILL, power loss), crashed, failed before training began
//                (the CLI reports setup errors on stderr only), or an epoch longer than the quiet
//                window. The history panel also shows a run as running while the window says it
//                is live (RunHistoryPanel::setLiveRun).

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

#include "app/gui/rundir/RunCheckpoints.h"

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/RunDirectoryViews.h"

namespace tbench::gui {

/// A run directory's status is a bridge::RunState: Running, Finished, Stopped, Failed or Unknown
/// (bridge::toString gives its word).
using bridge::RunState;

/// The engine's status file inside a run directory.
inline constexpr const char* kRunStatusFileName = "run.json";

/// Installs the engine's readers of a run directory's files (bridge::runDirectoryReaders():
/// the checkpoint index, run.json, stats.json, scalars.jsonl lines); the window does it once at
/// start, tests that read run directories without a window too.
void installRunDirectoryReaders(const bridge::RunDirectoryReaders& readers);

/// Installs the run.json reader (bridge::readRunStatusView: the engine's one parser of that
/// file) that readRunDirectory and the window's run follower use. Without one, a run.json is
/// reported as unreadable and a run's status is inferred from its log.
void setRunStatusReader(bridge::RunStatusReader reader);
/// The run.json of `runDir` through the installed reader.
bridge::RunStatusView readRunStatusFile(const QString& runDir);

/// A run that changed nothing for this long is no longer taken for running (Note [Run status]).
inline constexpr qint64 kRunningQuietSeconds = 15 * 60;

struct RunDirectoryInfo {
  QString dir;          ///< absolute path of the run directory
  QString runId;        ///< the directory's name, e.g. "20250114-093152"
  QString projectName;  ///< project.json's "name"; the parent directory's name when unreadable
  RunState status = RunState::Unknown;
  QString statusDetail;        ///< the stop or failure line, or why the status is unknown
  QString command;             ///< the first start's command line ("started from the GUI")
  QDateTime startTime;         ///< first log line, else the run id's time, else the oldest file
  QDateTime lastActivity;      ///< newest modification of log.log, stats.json, index, checkpoints
  qint64 lastEpoch = -1;       ///< epoch_num of the last stats entry (else of nothing: -1)
  qint64 lastGlobalStep = -1;  ///< global_step of the last stats entry, else latest checkpoint's
  qint64 maxEpoch = -1;        ///< the last planned epoch (Note [Run status]), -1 unknown
  QDateTime endTime;           ///< run.json's "ended" (finished, stopped, failed); else invalid
  QMap<QString, double> lastScalars;  ///< last value of each scalar in stats.json
  QMap<QString, double> minScalars;   ///< smallest finite value of each scalar in stats.json
  QMap<QString, double> maxScalars;   ///< largest finite value of each scalar in stats.json
  QJsonObject project;                ///< the run's project.json (what ran); empty if unreadable
  QString label;                      ///< annotations.json's label (RunAnnotations.h)
  QString notes;                      ///< annotations.json's notes (with #tags)
  RunCheckpoints checkpoints;
  QString projectError;      ///< project.json missing or unreadable
  QString statsError;        ///< stats.json unreadable (RunStats::error)
  QString logError;          ///< log.log unreadable
  QString runStatusError;    ///< run.json present but unreadable (then the log decides)
  QString annotationsError;  ///< annotations.json present but unreadable

  /// The label, else the run id.
  QString displayName() const { return label.isEmpty() ? runId : label; }
  /// How long the run trained: start to end (or to its last activity while not ended); -1 when
  /// unknown.
  qint64 durationSeconds() const;

  /// Every non-empty *Error and the index error, one per entry.
  QStringList problems() const;
};

/// Reads the run directory `dir`. `now` decides "running" (Note [Run status]).
RunDirectoryInfo readRunDirectory(const QString& dir,
                                  const QDateTime& now = QDateTime::currentDateTime());

/// The run directories <runRoot>/<projectName>/*, unsorted (hidden entries skipped). Empty when
/// the folder does not exist.
QStringList listRunDirectories(const QString& runRoot, const QString& projectName);

/// Sorts newest first: by start time, then by run id (natural order, so "…-10" is after "…-9").
void sortNewestFirst(QVector<RunDirectoryInfo>& runs);

/// An epoch's time in the project's newest finished run of its own: its start to its end over
/// its epochs, start-up included; not a sweep's trial (its slots shared the cores; its directory
/// name is not a run id) nor a resumed run (its start is the resume's, its epochs the whole
/// run's). What New Sweep…'s time estimate starts from.
struct EpochTime {
  double seconds = 0;  ///< 0: no such run
  QString runId;
};
EpochTime newestEpochTime(const QString& runRoot, const QString& projectName);

/// Every run of a project, read and sorted newest first.
QVector<RunDirectoryInfo> scanRuns(const QString& runRoot, const QString& projectName,
                                   const QDateTime& now = QDateTime::currentDateTime());

}  // namespace tbench::gui
