#pragma once
// ChartMenu: the menu a right click opens on a MetricChart: fit, log y, and export as PNG,
// PDF or CSV through a file dialog.

class QPoint;

namespace tbench::ui {

class MetricChart;

class ChartMenu {
 public:
  /// Shows the menu at `globalPos` and runs the chosen action on `chart` (blocks until closed).
  static void exec(MetricChart& chart, const QPoint& globalPos);
};

}  // namespace tbench::ui
