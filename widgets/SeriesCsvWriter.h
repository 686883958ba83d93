#pragma once
// SeriesCsvWriter: writes series as CSV, one row per kept point (all of them up to
// Series::kMaxPoints, then the lowest and highest of each bucket: Note [Bounded series]), in
// arrival order:
//
//   run,name,step,epoch,wall_time,value,smoothed
//
// wall_time is seconds since the Unix epoch; doubles use the shortest text that reads back
// to the same value ("nan", "inf" for non-finite ones); fields holding a comma, a quote or a
// line break are quoted as RFC 4180 says.

#include <QString>
#include <QTextStream>
#include <QVector>

#include "widgets/SeriesKey.h"
#include "widgets/SeriesStore.h"

namespace tbench::ui {

class SeriesCsvWriter {
 public:
  static QString header();
  /// Writes the header and the rows of `keys` (unknown keys are skipped).
  static void write(QTextStream& out, const SeriesStore& store, const QVector<SeriesKey>& keys);
  /// Writes atomically to `path`; on failure returns false and sets `error` if given.
  static bool writeFile(const QString& path, const SeriesStore& store,
                        const QVector<SeriesKey>& keys, QString* error = nullptr);
};

}  // namespace tbench::ui
