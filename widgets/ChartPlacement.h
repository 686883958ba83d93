#pragma once
// ChartPlacement: where and how a scalar is drawn, decided by ChartGrouping from its name.

#include <QString>

namespace tbench::ui {

enum class YAxisSide {
  Left,   ///< the chart's primary value axis
  Right,  ///< the secondary axis, for error rates and accuracies next to costs
};

/// How the value axis of a scalar labels its ticks.
enum class TickFormat {
  Number,   ///< plain numbers: 0.5, 2, 1200, 1e-4
  Percent,  ///< a fraction in [0, 1] shown as 0% .. 100%
};

struct ChartPlacement {
  QString chart;      ///< chart title, for people; scalars with the same title share a chart
  QString label;      ///< the name shown in the chart's legend
  QString axisLabel;  ///< the value axis' label with its unit; empty: the scalar's base name
  YAxisSide axis = YAxisSide::Left;
  bool fixedAxis = false;      ///< the axis has a meaning (cost left, error right); else a chart
                               ///< may move a scalar of a very different magnitude to the right
  bool logYByDefault = false;  ///< e.g. the learning rate, which schedules change by decades
  bool primary = false;        ///< belongs to the large main chart (losses and error rates)
  /// A value that holds until the next point (the learning rate): drawn unsmoothed as a step
  /// line that continues to the run's latest point, so one point is already a line.
  bool heldValue = false;
  TickFormat tickFormat = TickFormat::Number;
  /// The axis always shows [0, 1] (fractions such as a queue's fullness); data outside widens it.
  bool unitRange = false;
  /// A fraction where staying near 0 means the input pipeline limits training (queue fullness):
  /// the chart says "data-bound" while the latest values stay low.
  bool dataBoundSignal = false;
  /// Another scalar of the same run that shows the same thing better; when the run has it,
  /// this one is not charted (it stays in the store, the CSV export and the tooltips' data).
  QString supersededBy;
};

}  // namespace tbench::ui
