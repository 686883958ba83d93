#include "app/cli/DevicesCommand.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <thread>

#include "engine/comm/NcclCommunicator.h"
#include "engine/core/CpuInfo.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Environment.h"
#include "engine/core/Nvml.h"
#include "engine/train/SpeedSettings.h"

namespace tbench::cli {

namespace {

int printDevices() {
  configureThreads(0);  // what a run uses unless the project says otherwise
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Device> devices = availableDevices();
  const std::vector<std::string> details = describeCudaDevices(devices);
  std::cout << "devices (the strings trainer.devices accepts):\n";
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    std::cout << "  " << device.toString() << "\t";
    if (device.isCuda()) {
      std::cout << details[i] << "\n";
    } else {
      std::cout << "CPU, " << cores << " cores";
      if (availableCores() < static_cast<int64_t>(cores)) {
        std::cout << " (" << availableCores() << " for this process: its CPU affinity)";
      }
      std::cout << ", " << at::get_num_threads() << " intra-op threads by default"
                << (threadsFromEnvironment() > 0 ? ", from OMP_NUM_THREADS" : "")
                << " (may be listed once per tower)\n";
    }
  }
  std::cout << "LibTorch " << TORCH_VERSION << ": "
            << (torch::cuda::is_available()
                    ? std::to_string(torch::cuda::device_count()) + " CUDA device(s)"
                    : std::string("no CUDA (built without it, or no GPU): towers run on the CPU"))
            << "\n";
  std::cout << "CPU: " << cpuDescription() << "\n";
  std::cout << "BLAS: " << blasDescription() << "\n";
  std::cout << "all-reduce for CUDA towers: "
            << (ncclBuiltIn()
                    ? ncclVersionText() + " built in, " + std::to_string(cudaRuntimeDeviceCount()) +
                          " device(s) seen by the CUDA runtime"
                    : ncclVersionText())
            << "\n";
  std::cout << "GPU trackers (gpu_tracker): " << nvmlStatusText() << "\n";
  // The project's "speed" defaults on the devices found (a project's own settings are in its
  // run's log.log, "speed: ...").
  std::vector<Device> cuda;
  std::copy_if(devices.begin(), devices.end(), std::back_inserter(cuda),
               [](const Device& d) { return d.isCuda(); });
  std::cout << "speed defaults (project \"speed\"): "
            << describeSpeedSettings(SpeedSettings{}, cuda.empty() ? devices : cuda) << "\n";
  return 0;
}

}  // namespace

int runDevices() {
  try {
    return printDevices();
  } catch (const std::exception& e) {
    std::cerr << "towerbench-cli devices: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tbench::cli
