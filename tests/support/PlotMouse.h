#pragma once
// The mouse on a QCustomPlot, in plot coordinates: what the tests that brush a
// parallel-coordinates chart share (tests/widgets/test_ParallelCoordinates.cpp,
// tests/app/gui/test_SweepPanel.cpp).

#include <QPoint>
#include <QtTest>

#include <qcustomplot.h>

namespace tbench::testing {

/// The pixel of (x, y) on `plot`'s main axes, as drawn last.
inline QPoint plotPixel(QCustomPlot* plot, double x, double y) {
  return QPoint(static_cast<int>(plot->xAxis->coordToPixel(x)),
                static_cast<int>(plot->yAxis->coordToPixel(y)));
}

/// A left-button drag at `x` from `fromY` through `viaY` to `toY`.
inline void dragAlong(QCustomPlot* plot, double x, double fromY, double viaY, double toY) {
  QTest::mousePress(plot, Qt::LeftButton, {}, plotPixel(plot, x, fromY));
  QTest::mouseMove(plot, plotPixel(plot, x, viaY));
  QTest::mouseRelease(plot, Qt::LeftButton, {}, plotPixel(plot, x, toY));
}

}  // namespace tbench::testing
