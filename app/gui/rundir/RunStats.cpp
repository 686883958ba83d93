#include "app/gui/rundir/RunStats.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QStringList>
#include <limits>
#include <optional>

namespace tbench::gui {
namespace {

// stats.json grows by one small object per epoch; anything this large is not one of ours and
// would only stall the GUI thread.
constexpr qint64 kMaxStatsBytes = 256LL * 1024 * 1024;

qint64 integerField(const QJsonObject& entry, const char* key, qint64 fallback) {
  const QJsonValue value = entry.value(QLatin1String(key));
  return value.isDouble() ? value.toInteger(static_cast<qint64>(value.toDouble())) : fallback;
}

}  // namespace

RunStats readStatsFile(const QString& path) {
  RunStats stats;
  QFile file(path);
  if (!file.exists()) return stats;
  stats.exists = true;
  if (file.size() > kMaxStatsBytes) {
    stats.error = QStringLiteral("%1: %2 bytes, too large to be a stats file")
                      .arg(QDir::toNativeSeparators(path), QString::number(file.size()));
    return stats;
  }
  if (!file.open(QIODevice::ReadOnly)) {
    stats.error = QStringLiteral("%1: cannot be read (%2)")
                      .arg(QDir::toNativeSeparators(path), file.errorString());
    return stats;
  }
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    // QString::arg with several strings substitutes once, so a '%' in the path is harmless.
    stats.error = QStringLiteral("%1: not valid JSON at byte %2 (%3)")
                      .arg(QDir::toNativeSeparators(path), QString::number(parseError.offset),
                           parseError.errorString());
    return stats;
  }
  if (!doc.isArray()) {
    stats.error =
        QStringLiteral("%1: expected a JSON list of stats").arg(QDir::toNativeSeparators(path));
    return stats;
  }

  QStringList problems;
  const QJsonArray entries = doc.array();
  stats.entries = entries.size();
  for (qsizetype i = 0; i < entries.size(); ++i) {
    if (!entries.at(i).isObject()) {
      problems << QStringLiteral("entry %1 is not an object").arg(i);
      continue;
    }
    const QJsonObject entry = entries.at(i).toObject();
    const qint64 epoch = integerField(entry, "epoch_num", stats.lastEpoch);
    const qint64 step = integerField(entry, "global_step", stats.lastGlobalStep);
    for (auto it = entry.begin(); it != entry.end(); ++it) {
      if (it.key() == QLatin1String("epoch_num") || it.key() == QLatin1String("global_step")) {
        continue;
      }
      const std::optional<double> value = scalarValue(it.value());
      if (!value) {
        problems
            << QStringLiteral("entry %1: \"%2\" is not a number").arg(QString::number(i), it.key());
        continue;
      }
      stats.points.push_back({it.key(), epoch, step, *value});
      stats.lastValues.insert(it.key(), *value);
    }
    stats.lastEpoch = epoch;
    stats.lastGlobalStep = step;
  }
  if (!problems.isEmpty()) {
    // Say how many, but keep the message short enough for a tooltip.
    const qsizetype shown = std::min<qsizetype>(problems.size(), 3);
    stats.error = QStringLiteral("%1: %2%3")
                      .arg(QDir::toNativeSeparators(path), problems.mid(0, shown).join("; "),
                           problems.size() > shown
                               ? QStringLiteral(" (and %1 more)").arg(problems.size() - shown)
                               : QString());
  }
  return stats;
}

ScalarSeries readScalarSeries(const QString& runDir, QString* error) {
  RunStats stats = readStatsFile(QDir(runDir).filePath(QLatin1String(kStatsFileName)));
  if (error) *error = stats.error;
  return std::move(stats.points);
}

std::optional<double> scalarValue(const QJsonValue& value) {
  if (value.isDouble()) return value.toDouble();
  if (value.isString()) {
    const QString text = value.toString();
    if (text == QLatin1String("nan")) return std::numeric_limits<double>::quiet_NaN();
    if (text == QLatin1String("inf")) return std::numeric_limits<double>::infinity();
    if (text == QLatin1String("-inf")) return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

}  // namespace tbench::gui
