// The engine's process and devices for the window.
#include "app/bridge/EngineServices.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <thread>

#include "app/bridge/ToQt.h"
#include "engine/comm/NcclCommunicator.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Environment.h"

namespace tbench::bridge {

DeviceEntries discoverDevices(QString* note) {
  DeviceEntries entries;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Device> devices = availableDevices();
  const std::vector<std::string> details = describeCudaDevices(devices);
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    DeviceEntry entry;
    entry.id = q(device.toString());
    if (!device.isCuda()) {
      entry.name = QStringLiteral("CPU (%1 cores)").arg(cores);
      entry.detail = QStringLiteral(
                         "%1 intra-op threads by default; \"cpu\" may be listed once "
                         "per tower")
                         .arg(cores);
    } else {
      entry.name = QStringLiteral("CUDA device %1").arg(device.index);
      entry.detail = q(details[i]);
    }
    entries.append(entry);
  }
  if (note) {
    note->clear();
    if (entries.size() == 1) {
      *note = torch::cuda::is_available()
                  ? QStringLiteral("No CUDA device found.")
                  : QStringLiteral(
                        "No CUDA device: this LibTorch was built without CUDA, or no "
                        "GPU is present. Towers run on the CPU. (%1; %2)")
                        .arg(q(ncclVersionText()), q(nvmlStatusText()));
    }
  }
  return entries;
}

QString engineVersionText() {
  return QStringLiteral("LibTorch %1 (%2)")
      .arg(QStringLiteral(TORCH_VERSION),
           torch::cuda::is_available() ? QStringLiteral("CUDA") : QStringLiteral("CPU"));
}

void prepareEngineProcess(char** argv) { prepareProcess(argv); }

}  // namespace tbench::bridge
