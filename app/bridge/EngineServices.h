#pragma once
// The engine's process and devices, for the window: the devices found, the engine's version,
// the process set-up first thing in main().

#include <QString>

#include "app/bridge/BridgeTypes.h"

namespace tbench::bridge {

/// The devices found at run time: the CPU (with its cores) and every CUDA device LibTorch can
/// use. `*note` says why there is no CUDA device when there is none.
DeviceEntries discoverDevices(QString* note);

/// "LibTorch 1.13.0 (CPU)" and similar, for Help ▸ About.
QString engineVersionText();

/// The engine's process set-up, first thing in main() (before QApplication): may restart the
/// program with faster OpenBLAS kernels, then tunes the allocator (engine/core/Environment.h).
void prepareEngineProcess(char** argv);

}  // namespace tbench::bridge
