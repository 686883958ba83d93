#pragma once
// SweepCoordinates: a sweep's trials as a parallel-coordinates chart (widgets/
// ParallelCoordinates.h), the Sweeps tab's (app/gui/sweep/SweepPanel.h). One axis per
// parameter, in the sweep's order, and one for the metric, last; each named by its key's last
// segment ("learning_rate"; the table's columns have the whole path). Each axis maps its values
// to [0, 1]: numbers by their range (log when they span a decade or more and are positive),
// anything else by its rank among the distinct values, sorted as text. Each trial is a line
// coloured by its metric's last value (best green to worst red; grey without one) and dashed
// when pruned. Qt only; any thread.

#include <QVector>

#include "app/bridge/RunDirectoryViews.h"
#include "widgets/ParallelCoordinates.h"

namespace tbench::gui {

struct SweepCoordinates {
  QVector<ui::ParallelCoordinates::Axis> axes;   ///< the parameters', then the metric's
  QVector<ui::ParallelCoordinates::Line> lines;  ///< one per trial, in `state.trials`' order

  /// The chart of `state`'s trials.
  static SweepCoordinates of(const bridge::SweepStateView& state);
};

}  // namespace tbench::gui
