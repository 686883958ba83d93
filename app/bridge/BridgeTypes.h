#pragma once
// Plain value types that cross the bridge between the engine and the GUI (docs/ARCHITECTURE.md
// §1, §2). Qt types only: this header is what the window and its panels see of the engine; no
// LibTorch or engine header is included here or by anything that includes it.

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QVector>
#include <limits>

namespace tbench::bridge {

/// The learning rate's name: the optimizer's key, the hyper-parameter and its scalar (the
/// engine's tbench::names::kLearningRate, engine/core/Names.h; checked equal in
/// BridgeMonitor.cpp).
inline constexpr char kLearningRate[] = "learning_rate";

/// One scalar put by the engine (the engine's MetricStamp plus name and value).
struct MetricSample {
  QString name;           ///< "cost", "validation_error", "learning_rate", ...
  qint64 step = 0;        ///< global_step when it was put
  qint64 epoch = 0;       ///< epoch_num when it was put (1-based)
  double wallTime = 0.0;  ///< seconds since the Unix epoch
  double value = 0.0;
};
using MetricSamples = QVector<MetricSample>;

/// One image put by the engine (MonitorSink::putImage: an image grid of generated samples, a
/// data preview), as plain bytes; the window turns it into a QImage.
struct ImageSample {
  QString name;           ///< "samples", "validation_input", ...
  qint64 step = 0;        ///< global_step when it was put
  qint64 epoch = 0;       ///< epoch_num when it was put (1-based)
  double wallTime = 0.0;  ///< seconds since the Unix epoch
  int width = 0;
  int height = 0;
  int channels = 1;   ///< 1 (grey), 3 (RGB) or 4 (RGBA)
  QByteArray pixels;  ///< rows of width * channels bytes, top row first, no padding
};

/// A run's state: the one vocabulary of the window. Running, Finished, Stopped and Failed are
/// the engine's (tbench::RecordedState, engine/run/RunStatus.h: what run.json records, mapped
/// in one place, RunDirectoryServices.cpp); the others only a window sees: a run it controls (Idle,
/// Starting, Paused, Stopping) or a run directory that cannot tell (Unknown).
enum class RunState {
  Idle,      ///< nothing started yet
  Starting,  ///< building the run on the engine thread (data, model, towers)
  Running,
  Paused,
  Stopping,  ///< a stop was requested; the loop ends at the next step boundary
  Finished,  ///< ended normally (its epochs done); afterTrain ran
  Stopped,   ///< ended by a stop before its last epoch; afterTrain ran
  Failed,    ///< setup or training threw; see RunController::runFailed
  Unknown,   ///< a run directory whose process is gone without recording an end
};
/// "idle", "starting", "running", "paused", "stopping", "finished", "stopped", "failed",
/// "unknown" (run.json's words for the engine's states).
QString toString(RunState state);
/// The run has ended (Finished, Stopped or Failed).
inline bool hasEnded(RunState state) {
  return state == RunState::Finished || state == RunState::Stopped || state == RunState::Failed;
}

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
  /// The engine's samples per step (batch × towers × d_steps × ranks), 0 before the first.
  qint64 samplesPerStep = 0;
  /// The learning rate in force (the trainer's own hyper-parameter), NaN when it has none.
  double learningRate = std::numeric_limits<double>::quiet_NaN();
};

/// A device the engine can train on, found at run time.
struct DeviceEntry {
  QString id;      ///< "cpu", "cuda:0"
  QString name;    ///< "CPU (2 cores)", "NVIDIA A100-SXM4-40GB"
  QString detail;  ///< memory, threads, ...
};
using DeviceEntries = QList<DeviceEntry>;

}  // namespace tbench::bridge

Q_DECLARE_METATYPE(tbench::bridge::MetricSample)
Q_DECLARE_METATYPE(tbench::bridge::MetricSamples)
Q_DECLARE_METATYPE(tbench::bridge::ImageSample)
Q_DECLARE_METATYPE(tbench::bridge::RunState)
Q_DECLARE_METATYPE(tbench::bridge::RunProgress)
