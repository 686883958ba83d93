#include "engine/train/SpeedSettings.h"

#include <ATen/Context.h>

#include <algorithm>

#include "engine/core/Check.h"

namespace tbench {

namespace {

bool anyCuda(const std::vector<Device>& devices) {
  return std::any_of(devices.begin(), devices.end(), [](const Device& d) { return d.isCuda(); });
}

void checkChoices(const SpeedSettings& s) {
  if (s.tf32 != "cudnn" && s.tf32 != "all" && s.tf32 != "none") {
    throw InputError(
        str("speed.tf32 must be \"cudnn\", \"all\" or \"none\", got \"", s.tf32, "\""));
  }
  if (s.channelsLast != "auto" && s.channelsLast != "on" && s.channelsLast != "off") {
    throw InputError(str("speed.channels_last must be \"auto\", \"on\" or \"off\", got \"",
                         s.channelsLast, "\""));
  }
  if (s.readScalarsEverySteps < 1 || s.readScalarsEverySeconds < 0) {
    throw InputError(
        str("speed.read_scalars_every_steps must be >= 1 and "
            "read_scalars_every_seconds >= 0, got ",
            s.readScalarsEverySteps, " and ", s.readScalarsEverySeconds));
  }
}

}  // namespace

bool useChannelsLast(const SpeedSettings& settings, const std::vector<Device>& devices,
                     bool hasConvolutions) {
  if (!hasConvolutions || settings.channelsLast == "off") return false;
  if (settings.channelsLast == "on") return true;
  return anyCuda(devices);
}

std::string describeSpeedSettings(const SpeedSettings& s, const std::vector<Device>& devices) {
  checkChoices(s);
  const bool cuda = anyCuda(devices);
  std::string line;
  if (cuda) {
    line = str("TF32 ",
               s.tf32 == "all"     ? "for convolutions and matrix products"
               : s.tf32 == "cudnn" ? "for cuDNN convolutions only (32-bit matrix products)"
                                   : "off (full 32-bit)",
               "; cuDNN autotuning ", s.cudnnBenchmark ? "on" : "off", "; channels-last ",
               s.channelsLast == "off"  ? "off"
               : s.channelsLast == "on" ? "on"
                                        : "for models with 2-D convolutions");
  } else {
    line = str("CPU towers: TF32 and cuDNN do not apply; channels-last ",
               s.channelsLast == "on" ? "on" : "off");
  }
  return str(line, "; step scalars read every ", s.readScalarsEverySteps, " steps",
             s.readScalarsEverySeconds > 0 ? str(" or ", s.readScalarsEverySeconds, " s") : "");
}

std::string applySpeedSettings(const SpeedSettings& s, const std::vector<Device>& devices) {
  const std::string line = describeSpeedSettings(s, devices);
  at::Context& context = at::globalContext();
  context.setAllowTF32CuDNN(s.tf32 != "none");
  context.setAllowTF32CuBLAS(s.tf32 == "all");
  context.setBenchmarkCuDNN(s.cudnnBenchmark);
  return line;
}

}  // namespace tbench
