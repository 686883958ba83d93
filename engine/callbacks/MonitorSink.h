#pragma once
// What callbacks see of the monitors: put a scalar or an image, read the latest value of a
// scalar. Implemented by Monitors (monitors/), which stamps every value with the current
// epoch, global step and wall time and fans it out. Engine thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tbench {

/// An 8-bit image as plain bytes, row-major HWC.
struct ImageData {
  int height = 0;
  int width = 0;
  int channels = 1;  ///< 1 (gray), 3 (RGB) or 4 (RGBA)
  std::vector<uint8_t> pixels;
};

class MonitorSink {
 public:
  virtual ~MonitorSink() = default;
  virtual void putScalar(const std::string& name, double value) = 0;
  virtual void putImage(const std::string& name, const ImageData& image) = 0;
  /// The latest value put under `name` in this run, if any.
  virtual std::optional<double> latest(const std::string& name) const = 0;
  /// How many values were put under `name` in this run so far (0 if none): a callback that
  /// must not count the same value twice (a stat produced every few epochs) remembers it.
  virtual int64_t count(const std::string& name) const = 0;
};

}  // namespace tbench
