#pragma once
// XAxisMode: what the horizontal axis of every chart measures.

namespace tbench::ui {

enum class XAxisMode {
  Step,      ///< the global step
  Epoch,     ///< fractional epochs: step / steps per epoch (see Series::xAt)
  WallTime,  ///< seconds since the run's first point
};

}  // namespace tbench::ui
