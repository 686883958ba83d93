#pragma once
// MetricPoint: one scalar sample as the widgets see it. A plain value type: the bridge turns
// the engine's MetricSample into these and hands them over on the GUI thread.

#include <QString>
#include <QVector>
#include <QtGlobal>

namespace tbench::ui {

struct MetricPoint {
  QString run;            ///< run id; several runs may be overlaid
  QString name;           ///< scalar name, e.g. "cost", "validation_error", "QueueInput/queue_size"
  qint64 step = 0;        ///< global_step when the value was put (the first step is 1)
  qint64 epoch = 0;       ///< epoch_num when the value was put (1-based)
  double wallTime = 0.0;  ///< seconds since the Unix epoch
  double value = 0.0;     ///< may be NaN or infinite; such values are stored but not smoothed
};

using MetricPoints = QVector<MetricPoint>;

}  // namespace tbench::ui
