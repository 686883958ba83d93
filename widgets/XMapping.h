#pragma once
// XMapping: turns a point of one run into its horizontal coordinate for an XAxisMode.
// Obtained from SeriesStore::xMapping(); a cheap value, valid until the run's epoch scale
// changes (SeriesStore::epochScaleRevision).

#include "widgets/Series.h"
#include "widgets/XAxisMode.h"

namespace tbench::ui {

struct XMapping {
  XAxisMode mode = XAxisMode::Step;
  double wallOrigin = 0.0;     ///< wall time of the run's first dated point
  double stepsPerEpoch = 0.0;  ///< 0 when unknown

  /// Step: the global step. Epoch: step / stepsPerEpoch, so a step inside epoch E lies in
  /// (E-1, E] and a value put at the end of epoch E (validation) sits at E; while steps per
  /// epoch are unknown, the integer epoch. WallTime: seconds since the run's first dated point
  /// (an undated one, wall time 0, at 0).
  double x(const Series& series, int i) const {
    switch (mode) {
      case XAxisMode::Epoch:
        return stepsPerEpoch > 0.0 ? double(series.step(i)) / stepsPerEpoch
                                   : double(series.epoch(i));
      case XAxisMode::WallTime: {
        // An undated point (a past read from stats.json) sits at the start.
        const double t = series.wallTime(i);
        return t > 0.0 ? t - wallOrigin : 0.0;
      }
      case XAxisMode::Step:
        break;
    }
    return double(series.step(i));
  }
};

}  // namespace tbench::ui
