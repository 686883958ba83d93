#pragma once
// ChartGrouping: the rule that sorts scalar names into charts. The rules, first match wins:
//
//  1. "Prefix/rest" (the monitor style, "ThroughputTracker/steps_per_sec"): chart "Prefix",
//     left axis, legend "rest".
//  2. The name is stripped of one "validation_", "val_", "test_" or "train_" prefix to its
//     base, so a scalar and its validation twin always share a chart.
//  3. Losses (base "cost" or "loss", or ending in "_cost"/"_loss"): chart "loss & error",
//     left axis.
//  4. Error rates and accuracies (base "error", "accuracy" or "acc", or ending in "_error",
//     "_accuracy", "_acc"): chart "loss & error", right axis, so that 0..1 rates are not
//     flattened by a cost of 2.3. (A loss named "*_error", e.g. "mean_squared_error", lands
//     here too; it still gets a readable axis of its own.)
//  5. The learning rate ("learning_rate", "lr", or ending in "_learning_rate"/"_lr"): chart
//     "learning_rate", log y by default.
//  6. Anything else: a chart named after the base.

#include "widgets/ChartPlacement.h"

namespace tbench::ui {

class ChartGrouping {
 public:
  /// Title of the chart that holds costs next to error rates.
  static const QString& lossAndErrorChart();
  static ChartPlacement placementFor(const QString& name);
  /// The name without its validation/train prefix (rule 2), e.g. "validation_cost" -> "cost".
  static QString baseName(const QString& name);
  /// True for names with a validation or test prefix (drawn with markers: one point per epoch).
  static bool isValidation(const QString& name);
};

}  // namespace tbench::ui
