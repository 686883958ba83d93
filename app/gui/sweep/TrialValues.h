#pragma once
// How the Sweeps tab reads a trial (app/gui/sweep/SweepPanel.h): its parameter values as text
// (the table's cells, the chart's categories) and its metric's last value. Qt only; any thread.

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QString>
#include <cmath>

#include "app/bridge/RunDirectoryViews.h"

namespace tbench::gui {

/// A parameter's value: a number to 6 significant digits, a string as it is, anything else as
/// compact JSON ("[16, 32]").
inline QString trialValueText(const QJsonValue& v) {
  if (v.isDouble()) return QString::number(v.toDouble(), 'g', 6);
  if (v.isString()) return v.toString();
  return QString::fromUtf8(
      QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1));
}

/// The trial's metric after its last epoch, or NaN before its first.
inline double lastMetric(const bridge::SweepTrialView& t) {
  return t.metric.isEmpty() ? std::nan("") : t.metric.back();
}

}  // namespace tbench::gui
