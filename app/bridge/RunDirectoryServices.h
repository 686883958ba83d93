#pragma once
// The run directory as the engine reads it, for the window (Qt types, RunDirectoryViews.h):
// the checkpoint index, run.json, stats.json, scalars.jsonl lines, a new run's directory and
// exporting a checkpoint. Never throws: an unreadable file comes back with its error.

#include <QByteArray>
#include <QString>
#include <optional>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/RunDirectoryViews.h"

namespace tbench::bridge {

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

/// The readers above, for installRunDirectoryReaders.
RunDirectoryReaders runDirectoryReaders();

/// The directory a new run of `projectName` under `runRoot` gets now (the engine's
/// newRunDirectoryPath; not created).
QString newRunDirectoryPath(const QString& runRoot, const QString& projectName);

/// Exports with the engine's exportCheckpoint (the CLI's `export`): "pt" loads with torch.load,
/// "safetensors" with safetensors, "torchscript" with torch.jit.load.
CheckpointExporter makeCheckpointExporter();

}  // namespace tbench::bridge
