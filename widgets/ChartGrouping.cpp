#include "widgets/ChartGrouping.h"

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

}  // namespace

const QString& ChartGrouping::lossAndErrorChart() {
  static const QString title = QStringLiteral("loss & error");
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

ChartPlacement ChartGrouping::placementFor(const QString& name) {
  ChartPlacement placement;
  placement.label = name;
  const int slash = name.indexOf(QLatin1Char('/'));
  if (slash > 0 && slash + 1 < name.size()) {
    placement.chart = name.left(slash);
    placement.label = name.mid(slash + 1);
    return placement;
  }
  const QString base = baseName(name);
  if (isNamed(base, {"cost", "loss"}, {"_cost", "_loss"})) {
    placement.chart = lossAndErrorChart();
    placement.fixedAxis = true;
  } else if (isNamed(base, {"error", "accuracy", "acc"}, {"_error", "_accuracy", "_acc"})) {
    placement.chart = lossAndErrorChart();
    placement.axis = YAxisSide::Right;
    placement.fixedAxis = true;
  } else if (isNamed(base, {"learning_rate", "lr"}, {"_learning_rate", "_lr"})) {
    placement.chart = QStringLiteral("learning_rate");
    placement.logYByDefault = true;
  } else {
    placement.chart = base;
  }
  return placement;
}

}  // namespace tbench::ui
