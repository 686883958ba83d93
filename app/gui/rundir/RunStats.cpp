#include "app/gui/rundir/RunStats.h"

#include <QDir>
#include <QFileInfo>

namespace tbench::gui {
namespace {

bridge::RunStatsReader& statsReader() {
  static bridge::RunStatsReader reader;
  return reader;
}

bridge::ScalarLineParser& lineParser() {
  static bridge::ScalarLineParser parser;
  return parser;
}

}  // namespace

void setRunStatsReader(bridge::RunStatsReader reader) { statsReader() = std::move(reader); }
void setScalarLineParser(bridge::ScalarLineParser parser) { lineParser() = std::move(parser); }

RunStats readStatsFile(const QString& path) {
  if (statsReader()) return statsReader()(path);
  RunStats stats;
  stats.exists = QFileInfo::exists(path);
  if (stats.exists) {
    stats.error =
        QStringLiteral("%1: no stats.json reader is installed").arg(QDir::toNativeSeparators(path));
  }
  return stats;
}

std::optional<bridge::MetricSample> parseScalarLine(const QByteArray& line) {
  if (!lineParser()) return std::nullopt;
  return lineParser()(line);
}

ScalarSeries readScalarSeries(const QString& runDir, QString* error) {
  RunStats stats = readStatsFile(QDir(runDir).filePath(QLatin1String(kStatsFileName)));
  if (error) *error = stats.error;
  return std::move(stats.points);
}

}  // namespace tbench::gui
