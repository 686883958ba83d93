#pragma once
// SpeedSettings: the project's "speed" object, the settings that change how fast a device runs
// the same arithmetic (docs/PROJECT-FORMAT.md):
//
//   tf32             "cudnn" (PyTorch's default: cuDNN convolutions may use TensorFloat-32 on
//                    Ampere and later, 32-bit matrix products may not), "all" (both, as
//                    torch.backends.cuda.matmul.allow_tf32 = True), "none" (neither).
//   cudnn_benchmark  cuDNN tries its algorithms once per shape and keeps the fastest
//                    (torch.backends.cudnn.benchmark; on by default, as Lightning does when
//                    deterministic is off): the shapes of a training run do not change.
//   channels_last    "auto": image batches and the weights of 2-D convolutions in NHWC on CUDA
//                    towers of a model that has them (what tensor-core convolutions read); "on"
//                    on every tower (CPU included); "off".
//   read_scalars_every_steps / read_scalars_every_seconds: how often a step's scalars are read
//                    back from the device (Note [Step scalars read in batches]).
//
// None of them changes what is computed beyond rounding: TF32 rounds matmul inputs to 10 bits
// of mantissa, as PyTorch documents.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/Device.h"

namespace tbench {

struct SpeedSettings {
  std::string tf32 = "cudnn";  ///< "cudnn", "all" or "none"
  bool cudnnBenchmark = true;
  std::string channelsLast = "auto";  ///< "auto", "on" or "off"
  int64_t readScalarsEverySteps = 50;
  double readScalarsEverySeconds = 1.0;
};

/// Whether towers on `devices` of a model with 2-D convolutions (`hasConvolutions`) use
/// channels-last under `settings`.
bool useChannelsLast(const SpeedSettings& settings, const std::vector<Device>& devices,
                     bool hasConvolutions);

/// Sets the process-wide ones (TF32, cuDNN autotuning) for a run on `devices` and returns one
/// line that says what was chosen (the run's log, `towerbench-cli devices`). InputError for a
/// value outside the choices.
std::string applySpeedSettings(const SpeedSettings& settings, const std::vector<Device>& devices);

/// What `settings` mean on `devices`, without setting anything.
std::string describeSpeedSettings(const SpeedSettings& settings,
                                  const std::vector<Device>& devices);

}  // namespace tbench
