#pragma once
// Telling runs apart in Run History: the hyper-parameters that differ between the listed runs,
// the best value of a watched metric, the strategy and towers, the duration. Everything is
// read from what each run directory froze (its project.json, stats.json, run.json), never from
// the project being edited, so a run shows what it ran with. Pure functions, Qt only.

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "app/gui/rundir/RunDirectoryInfo.h"

namespace tbench::gui {

/// A project's leaves as "path" -> compact JSON text. Objects nest with '.'; an array of
/// scalars is one value ("[256,128]"); an array of objects that have a "type" is keyed by type
/// ("callbacks.lr_on_plateau.factor", a second of a type "callbacks.min_saver#2.stat"), other
/// arrays by index ("a[0].b"). An element's own "type" is its key, so it is not a leaf.
QMap<QString, QString> flattenProject(const QJsonObject& project);

/// The paths whose values differ between `projects` (a path one of them lacks differs),
/// without "name", "description" and "format". Ordered by how much they say about a run:
/// the optimizer, the batch size and epochs, the model, the trainer, then the rest
/// alphabetically.
QStringList differingParameters(const QVector<QMap<QString, QString>>& projects);

/// "queue_input × 2": the strategy and the number of towers (trainer.devices); empty when the
/// project has no trainer.
QString strategySummary(const QJsonObject& project);

/// Whether larger is better for `metric`: decided by a max_saver / min_saver on it in any
/// run's project, else by its name (accuracy, auc, f1, psnr, iou and map are maximised).
bool higherIsBetter(const QString& metric, const QVector<RunDirectoryInfo>& runs);

/// The metric Run History compares runs by when the user chose none: the stat of the first
/// min_saver / max_saver in the newest run that has one, else the first of validation_error,
/// validation_cost, validation_accuracy, cost present in any run, else the first scalar.
QString defaultWatchedMetric(const QVector<RunDirectoryInfo>& runs);

/// The scalars worth comparing by (no '/' diagnostics, no learning rate), sorted.
QStringList comparableMetrics(const QVector<RunDirectoryInfo>& runs);

/// The run's best value of `metric` over its stats.json, if it has any.
std::optional<double> bestValue(const RunDirectoryInfo& run, const QString& metric,
                                bool higherIsBetter);

/// "45 s", "3 min 05 s", "2 h 04 min"; "–" for a negative (unknown) duration.
QString durationText(qint64 seconds);

}  // namespace tbench::gui
