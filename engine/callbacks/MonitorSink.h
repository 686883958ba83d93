#pragma once
// What callbacks see of the monitors: put a scalar or an image, read the latest value of a
// scalar. Implemented by Monitors (monitors/), which stamps every value with the current
// epoch, global step and wall time and fans it out. Engine thread only.

#include <cstdint>
#include <functional>
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

/// Where and when a value was put.
struct MetricStamp {
  int64_t globalStep = 0;
  int64_t epochNum = 0;
  double wallTime = 0;  ///< seconds since the Unix epoch
};

/// Sees every scalar as the monitors get it: its name, value and stamp.
using ScalarWatcher = std::function<void(const std::string&, double, const MetricStamp&)>;

class MonitorSink {
 public:
  virtual ~MonitorSink() = default;
  /// A value of now (the current global step, epoch and time).
  virtual void putScalar(const std::string& name, double value) = 0;
  /// A value taken earlier, with the stamp it was taken at: a trainer's step scalars, read in
  /// batches (Note [Step scalars read in batches]).
  virtual void putScalarAt(const std::string& name, double value, const MetricStamp& stamp) = 0;
  /// Calls `watcher` with every scalar put from now on, as the monitors get it (a check that
  /// must see every value, not only the latest). Before training.
  virtual void watchScalars(ScalarWatcher watcher) = 0;
  virtual void putImage(const std::string& name, const ImageData& image) = 0;
  /// The latest value put under `name` in this run, if any. Values of steps run but not yet
  /// read (Note [Step scalars read in batches]) are read first: the answer is never stale.
  virtual std::optional<double> latest(const std::string& name) const = 0;
  /// How many values were put under `name` in this run so far (0 if none): a callback that
  /// must not count the same value twice (a stat produced every few epochs) remembers it.
  virtual int64_t count(const std::string& name) const = 0;
};

}  // namespace tbench
