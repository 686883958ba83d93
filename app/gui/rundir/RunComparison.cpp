#include "app/gui/rundir/RunComparison.h"

#include "app/bridge/BridgeTypes.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <algorithm>

namespace tbench::gui {
namespace {

QString scalarText(const QJsonValue& value) {
  switch (value.type()) {
    case QJsonValue::String:
      return value.toString();
    case QJsonValue::Double: {
      const double number = value.toDouble();
      return QString::number(number, 'g', 6);
    }
    case QJsonValue::Bool:
      return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
      return QStringLiteral("null");
    case QJsonValue::Array:
      return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
      return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Undefined:
      break;
  }
  return QString();
}

bool allScalars(const QJsonArray& array) {
  return std::none_of(array.begin(), array.end(),
                      [](const QJsonValue& v) { return v.isObject() || v.isArray(); });
}

void flattenInto(const QString& prefix, const QJsonValue& value, QMap<QString, QString>& out);

void flattenObject(const QString& prefix, const QJsonObject& object, bool skipType,
                   QMap<QString, QString>& out) {
  if (object.isEmpty()) out.insert(prefix, QStringLiteral("{}"));
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (skipType && it.key() == QLatin1String("type")) continue;
    flattenInto(prefix.isEmpty() ? it.key() : prefix + '.' + it.key(), it.value(), out);
  }
}

void flattenInto(const QString& prefix, const QJsonValue& value, QMap<QString, QString>& out) {
  if (value.isObject()) {
    flattenObject(prefix, value.toObject(), false, out);
    return;
  }
  if (!value.isArray() || allScalars(value.toArray())) {
    out.insert(prefix, scalarText(value));
    return;
  }
  const QJsonArray array = value.toArray();
  QMap<QString, int> seen;
  for (int i = 0; i < array.size(); ++i) {
    const QJsonValue element = array.at(i);
    const QString type = element.toObject().value("type").toString();
    if (element.isObject() && !type.isEmpty()) {
      const int n = ++seen[type];
      QString key = prefix + '.' + type;
      if (n > 1) key += QStringLiteral("#%1").arg(n);
      // A callback without settings still differs from its absence.
      out.insert(key, QStringLiteral("on"));
      flattenObject(key, element.toObject(), true, out);
    } else {
      flattenInto(QStringLiteral("%1[%2]").arg(prefix).arg(i), element, out);
    }
  }
}

int rankOf(const QString& path) {
  static const QStringList order = {"optimizer.", "data.batch_size", "max_epoch", "model.",
                                    "schedule",   "trainer.",        "data.",     "seed"};
  for (int i = 0; i < order.size(); ++i) {
    if (path.startsWith(order.at(i))) return i;
  }
  return int(order.size());
}

bool nameSaysHigherIsBetter(const QString& metric) {
  const QString lower = metric.toLower();
  for (const char* word : {"accuracy", "auc", "f1", "psnr", "iou", "map", "precision", "recall"}) {
    if (lower.contains(QLatin1String(word))) return true;
  }
  return false;
}

/// The stat and direction of every min_saver / max_saver of `project`.
QVector<QPair<QString, bool>> saverStats(const QJsonObject& project) {
  QVector<QPair<QString, bool>> stats;
  for (const QJsonValue& callback : project.value("callbacks").toArray()) {
    const QJsonObject object = callback.toObject();
    const QString type = object.value("type").toString();
    const QString stat = object.value("stat").toString();
    if (stat.isEmpty()) continue;
    if (type == QLatin1String("min_saver")) stats.append({stat, false});
    if (type == QLatin1String("max_saver")) stats.append({stat, true});
  }
  return stats;
}

}  // namespace

QMap<QString, QString> flattenProject(const QJsonObject& project) {
  QMap<QString, QString> out;
  flattenObject(QString(), project, false, out);
  return out;
}

QStringList differingParameters(const QVector<QMap<QString, QString>>& projects) {
  if (projects.size() < 2) return {};
  QSet<QString> paths;
  for (const auto& project : projects) {
    for (auto it = project.keyBegin(); it != project.keyEnd(); ++it) paths.insert(*it);
  }
  QStringList differing;
  for (const QString& path : paths) {
    if (path == QLatin1String("name") || path == QLatin1String("description") ||
        path == QLatin1String("format")) {
      continue;
    }
    const auto first = projects.first().constFind(path);
    const bool same = std::all_of(projects.begin() + 1, projects.end(), [&](const auto& p) {
      const auto other = p.constFind(path);
      const bool bothMissing = first == projects.first().constEnd() && other == p.constEnd();
      return bothMissing ||
             (first != projects.first().constEnd() && other != p.constEnd() && *first == *other);
    });
    if (!same) differing << path;
  }
  std::sort(differing.begin(), differing.end(), [](const QString& a, const QString& b) {
    const int ra = rankOf(a), rb = rankOf(b);
    return ra != rb ? ra < rb : a < b;
  });
  return differing;
}

QString strategySummary(const QJsonObject& project) {
  const QJsonObject trainer = project.value("trainer").toObject();
  const QString strategy = trainer.value("strategy").toString();
  if (strategy.isEmpty()) return QString();
  const QJsonArray devices = trainer.value("devices").toArray();
  return QStringLiteral("%1 \u00d7 %2").arg(strategy).arg(std::max<qsizetype>(1, devices.size()));
}

bool higherIsBetter(const QString& metric, const QVector<RunDirectoryInfo>& runs) {
  for (const RunDirectoryInfo& run : runs) {
    for (const auto& [stat, higher] : saverStats(run.project)) {
      if (stat == metric) return higher;
    }
  }
  return nameSaysHigherIsBetter(metric);
}

QStringList comparableMetrics(const QVector<RunDirectoryInfo>& runs) {
  QSet<QString> names;
  for (const RunDirectoryInfo& run : runs) {
    for (auto it = run.minScalars.keyBegin(); it != run.minScalars.keyEnd(); ++it) {
      if (!it->contains('/') && *it != QLatin1String(bridge::kLearningRate)) names.insert(*it);
    }
  }
  QStringList sorted(names.begin(), names.end());
  sorted.sort();
  return sorted;
}

QString defaultWatchedMetric(const QVector<RunDirectoryInfo>& runs) {
  const QStringList present = comparableMetrics(runs);
  for (const RunDirectoryInfo& run : runs) {  // newest first
    for (const auto& saver : saverStats(run.project)) {
      if (present.contains(saver.first)) return saver.first;
    }
  }
  for (const char* name : {"validation_error", "validation_cost", "validation_accuracy", "cost"}) {
    if (present.contains(QLatin1String(name))) return QLatin1String(name);
  }
  return present.isEmpty() ? QString() : present.first();
}

std::optional<double> bestValue(const RunDirectoryInfo& run, const QString& metric,
                                bool higherIsBetter) {
  const auto& values = higherIsBetter ? run.maxScalars : run.minScalars;
  const auto it = values.constFind(metric);
  if (it == values.constEnd()) return std::nullopt;
  return *it;
}

QString durationText(qint64 seconds) {
  if (seconds < 0) return QStringLiteral("\u2013");
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds);
  if (seconds < 3600) {
    return QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60, 2, 10, QChar('0'));
  }
  return QStringLiteral("%1 h %2 min")
      .arg(seconds / 3600)
      .arg((seconds % 3600) / 60, 2, 10, QChar('0'));
}

}  // namespace tbench::gui
