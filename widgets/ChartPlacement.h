#pragma once
// ChartPlacement: where a scalar is drawn, decided by ChartGrouping from its name.

#include <QString>

namespace tbench::ui {

enum class YAxisSide {
  Left,   ///< the chart's primary value axis
  Right,  ///< the secondary axis, for error rates and accuracies next to costs
};

struct ChartPlacement {
  QString chart;  ///< chart title; scalars with the same title share a chart
  YAxisSide axis = YAxisSide::Left;
  bool fixedAxis = false;      ///< the axis has a meaning (cost left, error right); else a chart
                               ///< may move a scalar of a very different magnitude to the right
  bool logYByDefault = false;  ///< e.g. the learning rate, which schedules change by decades
  QString label;               ///< the name shown in the chart's legend (without the chart prefix)
};

}  // namespace tbench::ui
