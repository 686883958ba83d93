// ParallelCoordinates: lines across axes, brushing by mouse (drag, click, double click) and by
// call, and what a brush does to the lines, on a real chart under the offscreen platform.

#include <QSignalSpy>
#include <QtTest>
#include <cmath>

#include <qcustomplot.h>

#include "tests/support/PlotMouse.h"
#include "tests/support/TestMain.h"
#include "widgets/ParallelCoordinates.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ParallelCoordinates {

using tbench::testing::dragAlong;
using tbench::testing::plotPixel;
using tbench::ui::ParallelCoordinates;

namespace {

/// The pen of the curve of line `line`.
QPen penOf(ParallelCoordinates& chart, int line) {
  return qobject_cast<QCPCurve*>(chart.plot()->plottable(line))->pen();
}

/// Shows `chart` at a size that sets its axes apart; false when it never showed.
bool shown(ParallelCoordinates& chart) {
  chart.resize(480, 320);
  chart.show();
  return QTest::qWaitForWindowExposed(&chart);
}

}  // namespace

class TestParallelCoordinates : public QObject {
  Q_OBJECT

 private slots:
  void drawsLinesAcrossItsAxes() {
    ParallelCoordinates chart;
    QVERIFY(shown(chart));
    const double nan = std::nan("");
    chart.setChart(
        {{"a", "1", "9"}, {"b", "x", "y"}, {"m", "0.1", "0.9"}},
        {{{0.0, 1.0, 0.5}, Qt::red, false, "one"}, {{1.0, 0.0, nan}, QColor(), true, "two"}});
    QCOMPARE(chart.plot()->plottableCount(), 2);
    auto* two = qobject_cast<QCPCurve*>(chart.plot()->plottable(1));
    QCOMPARE(two->name(), QString("two"));
    QCOMPARE(two->dataCount(), 2);  // no position on the last axis: skipped
    QCOMPARE(penOf(chart, 1).style(), Qt::DashLine);
    QCOMPARE(penOf(chart, 1).color(), chart.palette().color(QPalette::Disabled, QPalette::Text));
    QCOMPARE(penOf(chart, 0).color(), QColor(Qt::red));
    // Each axis' name below it; a line and its two end texts each.
    const auto ticker = chart.plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QCOMPARE(ticker->ticks().value(1), QString("b"));
    QCOMPARE(chart.plot()->itemCount(), 3 * 3);
  }

  void brushesByMouseAndByCall() {
    ParallelCoordinates chart;
    QVERIFY(shown(chart));
    const double nan = std::nan("");
    chart.setChart({{"a", "", ""}, {"b", "", ""}}, {{{0.2, 0.9}, Qt::blue, false, "high"},
                                                    {{0.8, 0.1}, Qt::blue, false, "low"},
                                                    {{0.5, nan}, Qt::blue, false, "none"}});
    QSignalSpy changed(&chart, &ParallelCoordinates::brushesChanged);
    QCustomPlot* plot = chart.plot();
    const auto pixel = [&](double x, double y) { return plotPixel(plot, x, y); };
    // A drag along axis 1 from above its top to its middle keeps the line high there.
    dragAlong(plot, 1, 1.08, 0.7, 0.5);
    QVERIFY(!changed.isEmpty());
    QCOMPARE(chart.brushes().keys(), QList<int>{1});
    QVERIFY(chart.brushes()[1].first < chart.brushes()[1].second);
    QVERIFY(chart.passes(0));
    QVERIFY(!chart.passes(1));
    QVERIFY(!chart.passes(2));  // no position on the axis: out
    QVERIFY(chart.passes(3));   // no such line
    QCOMPARE(penOf(chart, 0).color().alpha(), 255);
    QCOMPARE(penOf(chart, 1).color().alpha(), 40);  // brushed out: faint
    // Between the axes nothing is brushed.
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixel(0.5, 0.5));
    QCOMPARE(chart.brushes().size(), 1);
    // A click on the axis clears its brush.
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixel(1, 0.3));
    QVERIFY(chart.brushes().isEmpty());
    QVERIFY(chart.passes(1));

    // By call, either order; brushes on two axes must both hold; a double click clears all.
    changed.clear();
    chart.setBrush(0, 0.6, 0.1);
    chart.setBrush(1, 0.0, 1.0);
    QCOMPARE(changed.size(), 2);
    QCOMPARE(chart.brushes()[0], qMakePair(0.1, 0.6));
    QVERIFY(chart.passes(0) && !chart.passes(1) && !chart.passes(2));
    chart.clearBrush(0);
    QVERIFY(chart.passes(0) && chart.passes(1) && !chart.passes(2));
    QTest::mouseDClick(plot, Qt::LeftButton, {}, pixel(0.5, 0.5));
    QVERIFY(chart.brushes().isEmpty());
    QCOMPARE(changed.size(), 4);
  }
};

}  // namespace test_ParallelCoordinates

TB_TEST_MAIN(test_ParallelCoordinates::TestParallelCoordinates)
#include "test_ParallelCoordinates.moc"
