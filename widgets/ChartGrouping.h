#pragma once
// ChartGrouping: the rule that sorts scalar names into charts, and gives each chart a title
// and each axis a unit that people read. The rules, first match wins:
//
//  1. Scalars the engine is known to put: "QueueInput/queue_fullness" on "Input queue"
//     (% of capacity, the data-bound signal; "QueueInput/queue_size", in batches, on "Input
//     queue (batches)" only where a run has no fullness), "ThroughputTracker/steps_per_sec" on
//     "Steps per second" and
//     ".../samples_per_sec" on "Samples per second" (one chart each: the two are proportional
//     and would lie on top of each other), the GPU tracker's "GPUUtil/..." and
//     "PeakMemory(MB)/...".
//  2. Any other "Prefix/rest" (the monitor style): a chart named after the prefix in words
//     ("MyTracker" -> "My tracker"), left axis, legend "rest".
//  3. The name is stripped of one "validation_", "val_", "test_" or "train_" prefix to its
//     base, so a scalar and its validation twin always share a chart.
//  4. Losses (base "cost" or "loss", or ending in "_cost"/"_loss"): the primary chart
//     "Loss and error", left axis.
//  5. Error rates and accuracies (base "error", "accuracy" or "acc", or ending in "_error",
//     "_accuracy", "_acc"): the primary chart, right axis, so that 0..1 rates are not
//     flattened by a cost of 2.3. (A loss named "*_error", e.g. "mean_squared_error", lands
//     here too; it still gets a readable axis of its own.)
//  6. Accuracies of parts ("accuracy_real", "accuracy_fake" of a GAN's discriminator):
//     chart "Accuracy", 0% .. 100%.
//  7. The learning rate ("learning_rate", "lr", or ending in "_learning_rate"/"_lr"): chart
//     "Learning rate", log y by default, drawn as a held value (a step line).
//  8. Anything else: a chart named after the base in words ("grad_norm" -> "Grad norm").

#include "widgets/ChartPlacement.h"

namespace tbench::ui {

class ChartGrouping {
 public:
  /// Title of the primary chart, which holds costs next to error rates.
  static const QString& lossAndErrorChart();
  static ChartPlacement placementFor(const QString& name);
  /// The name without its validation/train prefix (rule 3), e.g. "validation_cost" -> "cost".
  static QString baseName(const QString& name);
  /// True for names with a validation or test prefix (drawn with markers: one point per epoch).
  static bool isValidation(const QString& name);
  /// An identifier in words: "grad_norm" -> "Grad norm", "MyTracker" -> "My tracker".
  static QString inWords(const QString& identifier);
};

}  // namespace tbench::ui
