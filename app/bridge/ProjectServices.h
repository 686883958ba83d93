#pragma once
// The engine's project, device and checkpoint services for the window, behind Qt-only
// signatures (BridgeTypes.h). Implemented with the engine; nothing here includes it.

#include <QString>
#include <optional>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryViews.h"

namespace tbench::bridge {

/// analyze and canonicalize on the engine's project code (ProjectAnalysis.h, ProjectJson.h):
/// the same checks and defaults as `towerbench-cli validate`.
ProjectServices makeProjectServices();

/// The engine's component registry as it is now (ComponentRegistry::global()), in Qt types.
ComponentCatalog componentCatalog();

/// The checkpoint index of `runDir` read by the engine (CheckpointIndex::read). Never throws:
/// a corrupt index comes back with `error` set.
CheckpointIndexView readCheckpointIndex(const QString& runDir);

/// The run.json of `runDir` read by the engine (readRunStatus). Never throws: a damaged file
/// comes back with `error` set, a missing one with `present` false.
RunStatusView readRunStatusView(const QString& runDir);

/// The stats.json at `path` read by the engine (readStatsFile). Never throws.
RunStatsView readRunStatsView(const QString& path);

/// One line of scalars.jsonl read by the engine (parseScalarLine); nullopt when it is not one.
std::optional<MetricSample> parseScalarLine(const QByteArray& line);

/// The sweep-state.json of `sweepDir` read by the engine (readSweepState). Never throws.
SweepStateView readSweepStateView(const QString& sweepDir);
/// The engine's default sweep directory of a sweep file (sweeps/<name> beside it), the CLI's.
QString defaultSweepDir(const QString& sweepFile);

/// Pauses or resumes the sweep in `sweepDir` (its queue starts no trial while paused).
bool setSweepPaused(const QString& sweepDir, bool paused, QString* error);

/// Checks the sweep document `sweepJson` as if saved at `sweepPath` (its "project" is relative
/// to that file's folder): its keys, then every trial's project. Never throws.
SweepCheckView checkSweep(const QByteArray& sweepJson, const QString& sweepPath);

/// Asks the queue of the sweep in `sweepDir` to start trial `trial` before its other pending
/// ones (control.json's run_first).
bool runSweepTrialNext(const QString& sweepDir, qint64 trial, QString* error);
/// Asks the queue of the sweep in `sweepDir` to cancel trial `trial` (control.json's cancel).
bool cancelSweepTrial(const QString& sweepDir, qint64 trial, QString* error);

/// The four readers above and readCheckpointIndex, for installRunDirectoryReaders.
RunDirectoryReaders runDirectoryReaders();

/// The directory a new run of `projectName` under `runRoot` gets now (the engine's
/// newRunDirectoryPath; not created).
QString newRunDirectoryPath(const QString& runRoot, const QString& projectName);

/// Exports with the engine's exportCheckpoint (the CLI's `export`): "pt" loads with torch.load,
/// "safetensors" with safetensors, "torchscript" with torch.jit.load.
CheckpointExporter makeCheckpointExporter();

/// The engine's DataPreviewer: opens the training source as a run would (shuffle, seed,
/// augmentation) and reads its first samples.
DataPreviewView previewData(const QString& projectText, const QString& projectPath, int count);

/// The devices found at run time: the CPU (with its cores) and every CUDA device LibTorch can
/// use. `*note` says why there is no CUDA device when there is none.
DeviceEntries discoverDevices(QString* note);

/// "LibTorch 1.13.0 (CPU)" and similar, for Help ▸ About.
QString engineVersionText();

/// The engine's process set-up, first thing in main() (before QApplication): may restart the
/// program with faster OpenBLAS kernels, then tunes the allocator (engine/core/Environment.h).
void prepareEngineProcess(char** argv);

}  // namespace tbench::bridge
