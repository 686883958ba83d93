#include "widgets/GraphFeeder.h"

#include <algorithm>
#include <limits>

namespace tbench::ui {

bool GraphFeeder::feed(DecimatedGraph* raw, DecimatedGraph* smooth, const Series& series,
                       const XMapping& mapping, int rawFrom, int smoothFrom, bool smoothValues) {
  const int n = series.size();
  const int first = std::min(rawFrom, smoothFrom);
  QVector<QCPGraphData> rawData, smoothData;
  rawData.reserve(std::max(0, n - rawFrom));
  smoothData.reserve(std::max(0, n - smoothFrom));
  // Steps only go back when a run resumes from a checkpoint; then QCustomPlot sorts.
  bool sorted = true;
  double previous =
      first > 0 ? mapping.x(series, first - 1) : -std::numeric_limits<double>::infinity();
  for (int i = first; i < n; ++i) {
    const double x = mapping.x(series, i);
    if (x < previous) sorted = false;
    previous = x;
    if (i >= rawFrom) rawData.append(QCPGraphData(x, series.value(i)));
    if (i >= smoothFrom)
      smoothData.append(QCPGraphData(x, smoothValues ? series.smoothed(i) : series.value(i)));
  }
  if (rawFrom == 0)
    raw->setPoints(rawData, sorted);
  else
    raw->appendPoints(rawData, sorted);
  if (smoothFrom == 0)
    smooth->setPoints(smoothData, sorted);
  else
    smooth->appendPoints(smoothData, sorted);
  return sorted;
}

}  // namespace tbench::ui
