#pragma once
// A run's stats.json, as the engine reads it (engine/run/RunScalars.h, through the installed
// bridge::RunStatsReader): the window never parses the engine's formats itself (one object per
// epoch, non-finite values as Note [Non-finite scalars] writes them). A missing, truncated or
// otherwise corrupt file gives an error string, never a crash or an exception.

#include <QString>
#include <QVector>
#include <optional>

#include "app/bridge/RunDirectoryViews.h"

namespace tbench::gui {

/// One value of one scalar, as the main window overlays it on a chart.
using ScalarPoint = bridge::ScalarPointView;
using ScalarSeries = QVector<ScalarPoint>;
/// What stats.json holds, read once.
using RunStats = bridge::RunStatsView;

/// The name of the stats file inside a run directory.
inline constexpr const char* kStatsFileName = "stats.json";

/// Installs the engine's stats.json reader (bridge::readRunStatsView) and scalars.jsonl line
/// parser (bridge::parseScalarLine); installRunDirectoryReaders (RunDirectoryInfo.h) calls
/// these.
void setRunStatsReader(bridge::RunStatsReader reader);
void setScalarLineParser(bridge::ScalarLineParser parser);

/// Reads a stats.json file through the installed reader. Without one, an existing file comes
/// back with an error saying so.
RunStats readStatsFile(const QString& path);
/// One line of scalars.jsonl through the installed parser; nullopt when it is not a scalar (or
/// no parser is installed).
std::optional<bridge::MetricSample> parseScalarLine(const QByteArray& line);

/// The full scalar series of the run in `runDir` (its stats.json), in file order. Empty when
/// the file is missing or unreadable; then `*error` (when given) says why. A missing file is
/// not an error (a run that has not finished its first epoch).
ScalarSeries readScalarSeries(const QString& runDir, QString* error = nullptr);

}  // namespace tbench::gui
