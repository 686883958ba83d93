#pragma once
// Plain value types that cross the bridge between the engine and the GUI (docs/ARCHITECTURE.md
// §1, §2). Qt types only: this header is what the window and its panels see of the engine; no
// LibTorch or engine header is included here or by anything that includes it.

#include <QList>
#include <QMetaType>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>

namespace tbench::bridge {

/// One scalar put by the engine (the engine's MetricStamp plus name and value).
struct MetricSample {
  QString name;           ///< "cost", "validation_error", "learning_rate", ...
  qint64 step = 0;        ///< global_step when it was put
  qint64 epoch = 0;       ///< epoch_num when it was put (1-based)
  double wallTime = 0.0;  ///< seconds since the Unix epoch
  double value = 0.0;
};
using MetricSamples = QVector<MetricSample>;

enum class RunState {
  Idle,      ///< nothing started yet
  Starting,  ///< building the run on the engine thread (data, model, towers)
  Running,
  Paused,
  Stopping,  ///< a stop was requested; the loop ends at the next step boundary
  Finished,  ///< ended normally or by a stop; afterTrain ran
  Failed,    ///< setup or training threw; see RunController::runFailed
};
QString toString(RunState state);

/// Registers the types above with Qt's meta-type system (queued signals). Called by
/// RunController; idempotent.
void registerBridgeTypes();

/// Where the loop is, sent at most a few times per second.
struct RunProgress {
  qint64 epoch = 0;  ///< current epoch (1-based)
  qint64 maxEpoch = 0;
  qint64 stepInEpoch = 0;  ///< steps done in the current epoch
  qint64 stepsPerEpoch = 0;
  qint64 globalStep = 0;
  double stepsPerSecond = 0;  ///< recent rate, 0 when unknown
  double etaSeconds = -1;     ///< whole run, -1 when unknown
};

/// A problem found in a project document, at a JSON path such as "$.data.batch_size".
struct ProjectIssueView {
  QString path;
  QString message;
};
using ProjectIssueViews = QList<ProjectIssueView>;

/// A device the engine can train on, found at run time.
struct DeviceEntry {
  QString id;      ///< "cpu", "cuda:0"
  QString name;    ///< "CPU (2 cores)", "NVIDIA A100-SXM4-40GB"
  QString detail;  ///< memory, threads, ...
};
using DeviceEntries = QList<DeviceEntry>;

/// The project services of the engine, as the GUI panels use them. The window fills these in
/// from app/bridge (ProjectServices.h); tests may pass fakes.
struct ProjectServices {
  /// Every problem of a project document (empty when valid). Never throws.
  std::function<ProjectIssueViews(const QString& jsonText)> validate;
  /// The document with every default written out (the engine's parse + serialize), or an empty
  /// string with `*error` set when it does not parse or validate.
  std::function<QString(const QString& jsonText, QString* error)> canonicalize;
  /// The learning rate over the run as (global step, value) points, sampled at every epoch
  /// boundary or schedule point; empty when the document is invalid. `stepsPerEpoch` is what
  /// the engine would use (resolved from the data when the project says 0).
  std::function<QVector<QPointF>(const QString& jsonText)> learningRateCurve;
};

/// Writes the weights of `checkpoint` as `format` ("pt" or "safetensors") to `out`. Returns
/// true and a confirmation in `*message`, or false and the reason (naming the file).
using CheckpointExporter = std::function<bool(const QString& checkpoint, const QString& format,
                                              const QString& out, QString* message)>;

}  // namespace tbench::bridge

Q_DECLARE_METATYPE(tbench::bridge::MetricSample)
Q_DECLARE_METATYPE(tbench::bridge::MetricSamples)
Q_DECLARE_METATYPE(tbench::bridge::RunState)
Q_DECLARE_METATYPE(tbench::bridge::RunProgress)
