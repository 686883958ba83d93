#include "widgets/ChartGrouping.h"

#include <QObject>
#include <QStringList>

namespace tbench::ui {

namespace {

const QStringList& validationPrefixes() {
  static const QStringList prefixes{"validation_", "val_", "test_"};
  return prefixes;
}

bool isNamed(const QString& base, const QStringList& exact, const QStringList& suffixes) {
  if (exact.contains(base)) return true;
  for (const QString& s : suffixes)
    if (base.endsWith(s)) return true;
  return false;
}

ChartPlacement fraction(const QString& chart, const QString& label, const QString& axisLabel) {
  ChartPlacement p;
  p.chart = chart;
  p.label = label;
  p.axisLabel = axisLabel;
  p.tickFormat = TickFormat::Percent;
  p.unitRange = true;
  return p;
}

// Rule 1: the engine's own monitor scalars. False if `name` is not one of them.
bool knownMonitorScalar(const QString& name, const QString& prefix, const QString& rest,
                        ChartPlacement& p) {
  if (name == QLatin1String("QueueInput/queue_fullness")) {
    p = fraction(QObject::tr("Input queue"), QObject::tr("fullness"), QObject::tr("% full"));
    p.dataBoundSignal = true;
  } else if (name == QLatin1String("QueueInput/queue_size")) {
    p.chart = QObject::tr("Input queue (batches)");
    p.label = p.axisLabel = QObject::tr("batches waiting");
    p.supersededBy = QStringLiteral("QueueInput/queue_fullness");
  } else if (name == QLatin1String("ThroughputTracker/steps_per_sec")) {
    p.chart = QObject::tr("Steps per second");
    p.label = p.axisLabel = QObject::tr("steps/s");
  } else if (name == QLatin1String("ThroughputTracker/samples_per_sec")) {
    p.chart = QObject::tr("Samples per second");
    p.label = p.axisLabel = QObject::tr("samples/s");
  } else if (prefix == QLatin1String("GPUUtil")) {
    p.chart = QObject::tr("GPU utilization");
    p.label = rest;
    p.axisLabel = QObject::tr("% busy");
  } else if (prefix == QLatin1String("PeakMemory(MB)")) {
    p.chart = QObject::tr("Peak GPU memory");
    p.label = rest;
    p.axisLabel = QObject::tr("MB");
  } else {
    return false;
  }
  return true;
}

}  // namespace

const QString& ChartGrouping::lossAndErrorChart() {
  static const QString title = QObject::tr("Loss and error");
  return title;
}

bool ChartGrouping::isValidation(const QString& name) {
  for (const QString& p : validationPrefixes())
    if (name.startsWith(p) && name.size() > p.size()) return true;
  return false;
}

QString ChartGrouping::baseName(const QString& name) {
  for (const QString& p : validationPrefixes())
    if (name.startsWith(p) && name.size() > p.size()) return name.mid(p.size());
  if (name.startsWith(QLatin1String("train_")) && name.size() > 6) return name.mid(6);
  return name;
}

QString ChartGrouping::inWords(const QString& identifier) {
  QString words;
  for (int i = 0; i < identifier.size(); ++i) {
    const QChar c = identifier[i];
    if (c == QLatin1Char('_')) {
      words += QLatin1Char(' ');
    } else if (i > 0 && c.isUpper() && identifier[i - 1].isLower() &&
               (i + 1 == identifier.size() || !identifier[i + 1].isUpper())) {
      words += QLatin1Char(' ') + c.toLower();  // a word boundary in CamelCase, not an acronym
    } else {
      words += c;
    }
  }
  words = words.simplified();
  if (words.isEmpty()) return identifier;
  words[0] = words[0].toUpper();
  return words;
}

ChartPlacement ChartGrouping::placementFor(const QString& name) {
  ChartPlacement placement;
  placement.label = name;
  const int slash = name.indexOf(QLatin1Char('/'));
  if (slash > 0 && slash + 1 < name.size()) {
    const QString prefix = name.left(slash), rest = name.mid(slash + 1);
    if (knownMonitorScalar(name, prefix, rest, placement)) return placement;
    placement.chart = inWords(prefix);
    placement.label = rest;
    return placement;
  }
  const QString base = baseName(name);
  if (isNamed(base, {"cost", "loss"}, {"_cost", "_loss"})) {
    placement.chart = lossAndErrorChart();
    placement.fixedAxis = true;
    placement.primary = true;
  } else if (isNamed(base, {"error", "accuracy", "acc"}, {"_error", "_accuracy", "_acc"})) {
    placement.chart = lossAndErrorChart();
    placement.axis = YAxisSide::Right;
    placement.fixedAxis = true;
    placement.primary = true;
  } else if (base.startsWith(QLatin1String("accuracy_")) ||
             base.startsWith(QLatin1String("acc_"))) {
    placement = fraction(QObject::tr("Accuracy"), name, QObject::tr("accuracy"));
  } else if (isNamed(base, {"learning_rate", "lr"}, {"_learning_rate", "_lr"})) {
    placement.chart = QObject::tr("Learning rate");
    placement.axisLabel = QObject::tr("learning rate");
    placement.logYByDefault = true;
    placement.heldValue = true;
  } else {
    placement.chart = inWords(base);
  }
  return placement;
}

}  // namespace tbench::ui
