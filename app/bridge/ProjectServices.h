#pragma once
// The engine's project services for the window, behind Qt-only signatures (ProjectViews.h):
// the analysis and defaults of a project, the component registry, a data preview. The bridge
// by subject: run directories (RunDirectoryServices.h), sweeps (SweepServices.h), devices and
// the process (EngineServices.h), the live run (RunController.h). Implemented with the engine;
// nothing here includes it.

#include <QString>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

namespace tbench::bridge {

/// analyze and canonicalize on the engine's project code (ProjectAnalysis.h, ProjectJson.h):
/// the same checks and defaults as `towerbench-cli validate`.
ProjectServices makeProjectServices();

/// The engine's component registry as it is now (ComponentRegistry::global()), in Qt types.
ComponentCatalog componentCatalog();

/// The engine's DataPreviewer: opens the training source as a run would (shuffle, seed,
/// augmentation) and reads its first samples.
DataPreviewView previewData(const QString& projectText, const QString& projectPath, int count);

}  // namespace tbench::bridge
