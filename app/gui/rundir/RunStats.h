#pragma once
// Reading a run's stats.json with Qt only (no engine code). The engine's JSONWriter writes
//
//   [{"cost": 0.41, "validation_error": 0.12, ..., "epoch_num": 1, "global_step": 32}, ...]
//
// one object per flush (every epoch end, and once more after training when anything was put
// since), rewritten atomically. A non-finite value is written as the string "nan", "inf" or
// "-inf". Reading is defensive: a missing, truncated or otherwise corrupt file gives an error
// string and never a crash or an exception.

#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QVector>
#include <optional>

namespace tbench::gui {

/// One value of one scalar, as the main window overlays it on a chart.
struct ScalarPoint {
  QString name;      ///< "cost", "validation_error", ...
  qint64 epoch = 0;  ///< epoch_num of the entry (1-based)
  qint64 step = 0;   ///< global_step of the entry
  double value = 0;  ///< NaN / +-inf for the engine's "nan" / "inf" / "-inf"
};
using ScalarSeries = QVector<ScalarPoint>;

/// What stats.json holds, read once.
struct RunStats {
  bool exists = false;  ///< the file is there (an empty `points` may still be valid)
  QString error;        ///< why (part of) the file could not be used; empty when it was fine
  int entries = 0;      ///< objects in the list
  ScalarSeries points;  ///< every scalar of every entry, in file order
  QMap<QString, double> lastValues;  ///< the last value of each scalar
  qint64 lastEpoch = -1;             ///< epoch_num of the last entry, -1 when none
  qint64 lastGlobalStep = -1;        ///< global_step of the last entry, -1 when none
};

/// The name of the stats file inside a run directory.
inline constexpr const char* kStatsFileName = "stats.json";

/// Reads a stats.json file. Entries that are not objects, and values that are neither numbers
/// nor the engine's non-finite strings, are skipped and named in `error`; a file that does not
/// parse as a JSON list gives no points and an error naming the file and the offset.
RunStats readStatsFile(const QString& path);

/// A scalar as the run directory's JSON files hold it: a number, or "nan", "inf", "-inf"
/// (Note [Non-finite scalars], engine/monitors/ScalarJson.h); nullopt for anything else.
std::optional<double> scalarValue(const QJsonValue& value);

/// The full scalar series of the run in `runDir` (its stats.json), in file order. Empty when
/// the file is missing or unreadable; then `*error` (when given) says why. A missing file is
/// not an error (a run that has not finished its first epoch).
ScalarSeries readScalarSeries(const QString& runDir, QString* error = nullptr);

}  // namespace tbench::gui
