#include "app/gui/sweep/SweepCoordinates.h"

#include <QColor>
#include <QObject>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "app/gui/sweep/TrialValues.h"

namespace tbench::gui {

SweepCoordinates SweepCoordinates::of(const bridge::SweepStateView& state) {
  SweepCoordinates chart;
  const int axes = static_cast<int>(state.parameters.size()) + 1;  // + the metric
  std::vector<std::function<double(const QJsonValue&)>> scale;
  const auto axisValues = [&](int a) {
    std::vector<QJsonValue> out;
    for (const auto& t : state.trials) {
      if (a < axes - 1) {
        out.push_back(t.values.value(state.parameters[a]));
      } else if (!t.metric.isEmpty() && std::isfinite(t.metric.back())) {
        out.push_back(t.metric.back());
      }
    }
    return out;
  };
  for (int a = 0; a < axes; ++a) {
    ui::ParallelCoordinates::Axis axis;
    axis.name = a < axes - 1             ? state.parameters[a].section('.', -1)
                : state.metric.isEmpty() ? QObject::tr("(no metric)")
                                         : state.metric.section('.', -1);
    const std::vector<QJsonValue> values = axisValues(a);
    const bool numbers = !values.empty() && std::all_of(values.begin(), values.end(),
                                                        [](const auto& v) { return v.isDouble(); });
    if (numbers) {
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (const auto& v : values) {
        lo = std::min(lo, v.toDouble());
        hi = std::max(hi, v.toDouble());
      }
      const bool log = lo > 0 && hi / lo >= 10;  // a decade or more: learning rates
      const double l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
      scale.push_back([=](const QJsonValue& v) {
        const double x = log ? std::log10(v.toDouble()) : v.toDouble();
        return h > l ? (x - l) / (h - l) : 0.5;
      });
      axis.lowText = QString::number(lo, 'g', 3);
      axis.highText = QString::number(hi, 'g', 3);
    } else {
      QStringList distinct;
      for (const auto& v : values) {
        if (!distinct.contains(trialValueText(v))) distinct << trialValueText(v);
      }
      distinct.sort();
      scale.push_back([=](const QJsonValue& v) {
        const auto i = distinct.indexOf(trialValueText(v));
        return distinct.size() > 1 ? double(i) / double(distinct.size() - 1) : 0.5;
      });
      axis.lowText = distinct.value(0);
      axis.highText = distinct.isEmpty() ? QString() : distinct.back();
    }
    chart.axes << axis;
  }
  // The metric's colour: best green to worst red.
  double best = HUGE_VAL, worst = -HUGE_VAL;
  for (const auto& t : state.trials) {
    const double m = lastMetric(t);
    if (!std::isfinite(m)) continue;
    best = std::min(best, m);
    worst = std::max(worst, m);
  }
  if (state.maximize) std::swap(best, worst);
  for (const auto& t : state.trials) {
    ui::ParallelCoordinates::Line line;
    for (int a = 0; a < axes - 1; ++a)
      line.positions << scale[a](t.values.value(state.parameters[a]));
    const double m = lastMetric(t);
    line.positions << (std::isfinite(m) ? scale[axes - 1](QJsonValue(m)) : std::nan(""));
    if (std::isfinite(m) && best != worst) {
      const double f = std::clamp((m - best) / (worst - best), 0.0, 1.0);  // 0 best, 1 worst
      line.colour = QColor::fromHsvF((1.0 - f) / 3.0, 0.85, 0.8);          // green .. red
    } else if (std::isfinite(m)) {
      line.colour = QColor::fromHsvF(1.0 / 3.0, 0.85, 0.8);
    }  // else invalid: the chart's grey
    line.dashed = t.state == bridge::TrialPhase::Pruned;
    line.name = QObject::tr("trial %1").arg(t.index);
    chart.lines << line;
  }
  return chart;
}

}  // namespace tbench::gui
