// MetricChart in a real window (offscreen platform): graphs, axes, tooltip and exports.

#include <QtTest>

#include <algorithm>

#include <QImage>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>

#include "tests/support/TestMain.h"
#include "widgets/ChartGrouping.h"
#include "widgets/MetricChart.h"
#include "widgets/NumberAxisTicker.h"
#include "widgets/WallTimeAxisTicker.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_MetricChart {

using namespace tbench::ui;

namespace {

void add(SeriesStore& store, MetricChart& chart, const MetricPoints& points) {
  for (const SeriesKey& key : store.append(points))
    chart.addSeries(key, ChartGrouping::placementFor(key.name));
  chart.restyle(store.runs());
  chart.sync();
}

QVector<double> keys(const QCPGraph* graph) {
  QVector<double> out;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
    out.append(it->key);
  return out;
}

QVector<double> values(const QCPGraph* graph) {
  QVector<double> out;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
    out.append(it->value);
  return out;
}

/// cost at steps 1..4, train_error at 1..4, validation_cost at the end of the epoch (step 4).
MetricPoints lossAndError(const QString& run = "r") {
  return {{run, "cost", 1, 1, 100.0, 4.0},           {run, "train_error", 1, 1, 100.0, 0.5},
          {run, "cost", 2, 1, 101.0, 3.0},           {run, "train_error", 2, 1, 101.0, 0.45},
          {run, "cost", 3, 1, 103.0, 2.0},           {run, "train_error", 3, 1, 103.0, 0.42},
          {run, "cost", 4, 1, 106.0, 1.0},           {run, "train_error", 4, 1, 106.0, 0.4},
          {run, "validation_cost", 4, 1, 107.0, 2.5}};
}

/// Legend entries (QCPLegend::itemCount counts the empty cells of its grid too).
int legendEntries(const QCustomPlot* plot) {
  int n = 0;
  for (int i = 0; i < plot->legend->itemCount(); ++i)
    if (plot->legend->item(i)) ++n;
  return n;
}

bool near(QRgb a, QRgb b) {
  return qAbs(qRed(a) - qRed(b)) < 40 && qAbs(qGreen(a) - qGreen(b)) < 40 &&
         qAbs(qBlue(a) - qBlue(b)) < 40;
}

}  // namespace

class TestMetricChart : public QObject {
  Q_OBJECT
 private:
  SeriesStore store_;
  std::unique_ptr<MetricChart> chart_;

 private slots:
  void init() {
    store_.clear();
    store_.setSmoothingWeight(0.0);
    chart_ = std::make_unique<MetricChart>(ChartGrouping::lossAndErrorChart(), store_);
    chart_->resize(640, 400);
    chart_->show();
    QVERIFY(QTest::qWaitForWindowExposed(chart_.get()));
  }
  void cleanup() { chart_.reset(); }

  void rawAndSmoothedCurvesOnTheRightAxes() {
    store_.setSmoothingWeight(0.5);
    add(store_, *chart_, lossAndError());
    QCustomPlot* plot = chart_->plot();
    QCOMPARE(plot->graphCount(), 6);  // raw + smoothed for 3 series
    // Series order: cost, train_error, validation_cost; graphs: raw, smoothed.
    QCOMPARE(values(plot->graph(0)), (QVector<double>{4, 3, 2, 1}));
    QCOMPARE(values(plot->graph(1))[0], 4.0);
    QCOMPARE(values(plot->graph(1))[1], (0.25 * 4 + 0.5 * 3) / 0.75);
    QCOMPARE(plot->graph(0)->valueAxis(), plot->yAxis);
    QCOMPARE(plot->graph(2)->valueAxis(), plot->yAxis2);  // train_error: the error axis
    QVERIFY(plot->yAxis2->visible());
    QCOMPARE(plot->yAxis->label(), QString("cost"));
    QCOMPARE(plot->yAxis2->label(), QString("error"));
    QCOMPARE(plot->xAxis->label(), QString("step"));
    // The raw curve is a faint copy drawn behind; only smoothed curves are in the legend.
    QVERIFY(plot->graph(0)->visible());
    QVERIFY(plot->graph(0)->pen().color().alpha() < 128);
    QCOMPARE(plot->graph(1)->pen().color().alpha(), 255);
    QCOMPARE(plot->graph(0)->pen().color().rgb(), plot->graph(1)->pen().color().rgb());
    QVERIFY(plot->graph(0)->layer()->index() < plot->graph(1)->layer()->index());
    QCOMPARE(legendEntries(plot), 3);
    // A validation curve: its scalar's colour, dashed, with markers (one point per epoch).
    QCOMPARE(plot->graph(5)->pen().color(), plot->graph(1)->pen().color());
    QCOMPARE(plot->graph(5)->pen().style(), Qt::DashLine);
    QCOMPARE(plot->graph(1)->pen().style(), Qt::SolidLine);
    QVERIFY(plot->graph(3)->pen().color() != plot->graph(1)->pen().color());
    QCOMPARE(plot->graph(5)->scatterStyle().shape(), QCPScatterStyle::ssCircle);
    QCOMPARE(plot->graph(1)->scatterStyle().shape(), QCPScatterStyle::ssNone);
    QCOMPARE(chart_->graphPointCount(), qint64(2 * 9));
  }

  void sparseCurvesShowTheirPoints() {
    // A scalar put once per epoch: its single first point must be visible, and its later ones
    // too; a per-step scalar is a plain line once it has two points.
    add(store_, *chart_,
        {{"r", "ThroughputTracker/steps_per_sec", 468, 1, 0, 13.5}, {"r", "cost", 1, 1, 0, 2.0}});
    const auto shapeOf = [&](int graph) {
      return chart_->plot()->graph(graph)->scatterStyle().shape();
    };
    QCOMPARE(shapeOf(1), QCPScatterStyle::ssCircle);  // steps_per_sec, smoothed
    QCOMPARE(shapeOf(3), QCPScatterStyle::ssCircle);  // cost: one point so far
    MetricPoints more;
    for (qint64 step = 2; step <= 100; ++step) more.append({"r", "cost", step, 1, 0, 1.0});
    more.append({"r", "ThroughputTracker/steps_per_sec", 936, 2, 0, 14.0});
    add(store_, *chart_, more);
    QCOMPARE(shapeOf(1), QCPScatterStyle::ssCircle);  // 468 steps apart
    QCOMPARE(shapeOf(3), QCPScatterStyle::ssNone);    // one step apart
  }

  void rawCurveHiddenWithoutSmoothing() {
    add(store_, *chart_, lossAndError());
    QVERIFY(!chart_->plot()->graph(0)->visible());
    QVERIFY(chart_->plot()->graph(1)->visible());
  }

  void onlyNewPointsAreAdded() {
    add(store_, *chart_, lossAndError());
    QCOMPARE(chart_->graphPointCount(), qint64(18));
    add(store_, *chart_, {{"r", "cost", 5, 2, 110.0, 0.5}});
    QCOMPARE(keys(chart_->plot()->graph(1)), (QVector<double>{1, 2, 3, 4, 5}));
    QCOMPARE(chart_->graphPointCount(), qint64(20));
  }

  void aBoundedSeriesIsDrawnAsItsKeptPoints() {
    // 100,000 steps in batches, synced after each: the series merges buckets and replaces its
    // open bucket (Note [Bounded series]); the graphs always hold exactly its kept points.
    QRandomGenerator rng(3);
    const auto check = [&] {
      const Series* s = store_.series({"r", "cost"});
      const QCPGraph* raw = chart_->plot()->graph(0);
      QCOMPARE(raw->data()->size(), s->size());
      const QVector<double> k = keys(raw), v = values(raw);
      for (int i = 0; i < s->size(); ++i) {
        QCOMPARE(k[i], double(s->step(i)));
        QCOMPARE(v[i], s->value(i));
      }
    };
    for (qint64 from = 1; from <= 100000; from += 997) {
      MetricPoints batch;
      for (qint64 step = from; step < from + 997 && step <= 100000; ++step)
        batch.append({"r", "cost", step, 1, 100.0 + step, rng.generateDouble()});
      add(store_, *chart_, batch);
      if (from % 10 == 1) check();
    }
    add(store_, *chart_, {{"r", "cost", 100001, 1, 0.0, 42.0}});  // a spike at the very end
    check();
    const Series* s = store_.series({"r", "cost"});
    QVERIFY(s->size() <= Series::kMaxPoints + 3);
    QVERIFY(s->bucketSize() > 1);
    QCOMPARE((chart_->plot()->graph(0)->data()->constEnd() - 1)->value, 42.0);
    QCOMPARE(chart_->plot()->yAxis->range().upper >= 42.0, true);
  }

  void aBoundedSeriesWhoseStepsGoBackIsDrawnAsItsKeptPoints() {
    // 40,000 steps (buckets merged), then the run resumes from step 30,000 and its steps arrive
    // one sync at a time: the graphs, sorted by step, hold exactly the series' kept points
    // (they had kept stale points of the open bucket and dropped the highest steps).
    MetricPoints first;
    for (qint64 step = 1; step <= 40000; ++step)
      first.append({"r", "cost", step, 1, 100.0 + step, 1.0});
    add(store_, *chart_, first);
    for (qint64 step = 30001; step <= 30200; ++step)
      add(store_, *chart_, {{"r", "cost", step, 2, 1e6 + step, 2.0}});
    const Series* s = store_.series({"r", "cost"});
    QVERIFY(s->bucketSize() > 1);
    QVector<QPair<double, double>> want, got;
    for (int i = 0; i < s->size(); ++i) want.append({double(s->step(i)), s->value(i)});
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const QCPGraph* raw = chart_->plot()->graph(0);
    for (auto it = raw->data()->constBegin(); it != raw->data()->constEnd(); ++it)
      got.append({it->key, it->value});
    QCOMPARE(got.size(), want.size());
    QCOMPARE(got.last().first, 40000.0);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    QCOMPARE(got, want);
  }

  void xAxisModes() {
    add(store_, *chart_, lossAndError());
    QCPGraph* cost = chart_->plot()->graph(1);
    QCOMPARE(keys(cost), (QVector<double>{1, 2, 3, 4}));
    chart_->setXAxisMode(XAxisMode::WallTime);
    chart_->sync();
    QCOMPARE(keys(cost), (QVector<double>{0, 1, 3, 6}));  // seconds since the run's first point
    QCOMPARE(keys(chart_->plot()->graph(5)), QVector<double>{7});
    QVERIFY(chart_->plot()->xAxis->ticker().dynamicCast<WallTimeAxisTicker>());
    QCOMPARE(chart_->plot()->xAxis->label(), QString("wall time"));
    chart_->setXAxisMode(XAxisMode::Epoch);
    chart_->sync();
    QCOMPARE(keys(cost), (QVector<double>{1, 1, 1, 1}));  // steps per epoch not known yet
    store_.setStepsPerEpoch("r", 4);
    chart_->sync();  // the new epoch scale re-keys the run
    QCOMPARE(keys(cost), (QVector<double>{0.25, 0.5, 0.75, 1}));
    QCOMPARE(keys(chart_->plot()->graph(5)), QVector<double>{1});  // validation at epoch end
    QCOMPARE(chart_->plot()->xAxis->label(), QString("epoch"));
    QCOMPARE(chart_->plot()->xAxis->range().upper, 1.0 + 0.75 * 0.01);  // followed the data
  }

  void logY() {
    add(store_, *chart_,
        {{"r", "cost", 1, 1, 0, 0.0},
         {"r", "cost", 2, 1, 0, -1.0},
         {"r", "cost", 3, 1, 0, 0.01},
         {"r", "cost", 4, 1, 0, 10.0}});
    QCOMPARE(chart_->plot()->yAxis->scaleType(), QCPAxis::stLinear);
    QVERIFY(chart_->plot()->yAxis->range().lower < -1.0);
    chart_->setLogY(true);
    chart_->replot();
    QVERIFY(chart_->logY());
    QCOMPARE(chart_->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(chart_->plot()->yAxis2->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(chart_->plot()->yAxis->ticker().dynamicCast<QCPAxisTickerLog>());
    // Fitted to the positive values only.
    const QCPRange range = chart_->plot()->yAxis->range();
    QVERIFY2(range.lower > 0.0 && range.lower < 0.01, qPrintable(QString::number(range.lower)));
    QVERIFY(range.upper > 10.0 && range.upper < 20.0);
    chart_->setLogY(false);
    QCOMPARE(chart_->plot()->yAxis->scaleType(), QCPAxis::stLinear);
  }

  void followsUntilTheUserZoomsThenFitFollowsAgain() {
    add(store_, *chart_, lossAndError());
    QVERIFY(chart_->isFollowing());
    QCustomPlot* plot = chart_->plot();
    const QPointF centre = plot->axisRect()->rect().center();
    QWheelEvent wheel(centre, plot->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    const QCPRange valuesBefore = plot->yAxis->range();
    QCoreApplication::sendEvent(plot, &wheel);
    QVERIFY(!chart_->isFollowing());
    const QCPRange zoomed = plot->xAxis->range();
    QVERIFY(zoomed.size() < 3.0);
    // The wheel zooms time only: no curve is cut off at the top or the bottom.
    QCOMPARE(plot->yAxis->range(), valuesBefore);
    // Ctrl+wheel zooms the values only.
    QWheelEvent ctrlWheel(centre, plot->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(plot, &ctrlWheel);
    QCOMPARE(plot->xAxis->range(), zoomed);
    QVERIFY(plot->yAxis->range().size() < valuesBefore.size());
    add(store_, *chart_, {{"r", "cost", 40, 2, 200.0, 0.5}});
    QCOMPARE(plot->xAxis->range(), zoomed);  // new data does not steal the user's view
    chart_->fit();
    QVERIFY(chart_->isFollowing());
    QVERIFY(plot->xAxis->range().contains(40.0));
    QVERIFY(plot->xAxis->range().contains(1.0));
  }

  void aMonitorsScalarsFarApartInSizeGetAnAxisEach() {
    add(store_, *chart_,
        {{"r", "ThroughputTracker/steps_per_sec", 10, 1, 0, 10.0},
         {"r", "ThroughputTracker/samples_per_sec", 10, 1, 0, 1280.0},
         {"r", "ThroughputTracker/other", 10, 1, 0, 900.0}});
    QCustomPlot* plot = chart_->plot();
    QCOMPARE(plot->graph(1)->valueAxis(), plot->yAxis);
    QCOMPARE(plot->graph(3)->valueAxis(), plot->yAxis2);  // 128x larger: its own axis
    QCOMPARE(plot->graph(2)->valueAxis(), plot->yAxis2);  // with its raw curve
    QCOMPARE(plot->graph(5)->valueAxis(), plot->yAxis);   // the second axis is taken
    QVERIFY(plot->yAxis2->visible());
    QCOMPARE(plot->yAxis2->label(), QString("samples/s"));
    QVERIFY(plot->yAxis2->range().contains(1280.0));
    QVERIFY(plot->yAxis->range().contains(10.0));
    QVERIFY(plot->yAxis->range().upper < 1000.0);
    // Later points do not move it back.
    add(store_, *chart_, {{"r", "ThroughputTracker/samples_per_sec", 20, 1, 0, 10.0}});
    QCOMPARE(plot->graph(3)->valueAxis(), plot->yAxis2);
    // The same scalar of another run goes where the first went.
    add(store_, *chart_,
        {{"s", "ThroughputTracker/samples_per_sec", 10, 1, 0, 1700.0},
         {"s", "ThroughputTracker/steps_per_sec", 10, 1, 0, 14.0}});
    QCOMPARE(plot->graph(7)->valueAxis(), plot->yAxis2);
    QCOMPARE(plot->graph(9)->valueAxis(), plot->yAxis);
  }

  void lossesStayOnTheirAxisWhateverTheirSize() {
    add(store_, *chart_, {{"r", "cost", 1, 1, 0, 2.3}, {"r", "regularize_cost", 1, 1, 0, 1e-4}});
    QCOMPARE(chart_->plot()->graph(3)->valueAxis(), chart_->plot()->yAxis);
    QVERIFY(!chart_->plot()->yAxis2->visible());
  }

  void legendEntriesFitTheWidth() {
    MetricPoints points = lossAndError("a-rather-long-run-name-from-the-history");
    points += lossAndError("another-rather-long-run-name");
    add(store_, *chart_, points);
    chart_->replot();
    QCustomPlot* plot = chart_->plot();
    QVERIFY(plot->legend->wrap() < 4);
    for (int i = 0; i < plot->legend->itemCount(); ++i)
      if (QCPAbstractLegendItem* item = plot->legend->item(i))
        QVERIFY2(plot->viewport().contains(item->outerRect()),
                 qPrintable(item->property("text").toString()));
  }

  void logAxisLabelsArePlainNumbers() {
    add(store_, *chart_,
        {{"r", "learning_rate", 1, 1, 0, 1e-3}, {"r", "learning_rate", 2, 1, 0, 1e-5}});
    chart_->setLogY(true);
    chart_->plot()->replot();
    // "g" without "b": QCustomPlot does not rewrite "1e-4" as "1·10^-4" when drawing.
    QCOMPARE(chart_->plot()->yAxis->numberFormat(), QString("g"));
    const QVector<QString> labels = chart_->plot()->yAxis->tickVectorLabels();
    QVERIFY2(labels.contains("0.001") && labels.contains("1e-4") && labels.contains("1e-5"),
             qPrintable(QStringList(labels.begin(), labels.end()).join(' ')));
    chart_->setLogY(false);
    QCOMPARE(chart_->plot()->yAxis->numberFormat(), QString("g"));
  }

  void numberLabelsReadPlainly() {
    QCOMPARE(NumberAxisTicker::label(2.5, 0.5), QString("2.5"));
    QCOMPARE(NumberAxisTicker::label(2.0, 0.5), QString("2"));
    QCOMPARE(NumberAxisTicker::label(0.25, 0.05), QString("0.25"));
    QCOMPARE(NumberAxisTicker::label(1200, 200), QString("1200"));
    QCOMPARE(NumberAxisTicker::label(1e-17, 0.5), QString("0"));  // a rounding error at zero
    QCOMPARE(NumberAxisTicker::label(2.5e-4, 5e-5), QString("2.5e-4"));
    QCOMPARE(NumberAxisTicker::label(3e6, 1e6), QString("3e6"));
    QCOMPARE(NumberAxisTicker::label(1.0, 0.0), QString("1"));
    QCOMPARE(NumberAxisTicker::label(0.5, 0.0), QString("0.5"));
    QCOMPARE(NumberAxisTicker::label(0.0012, 0.0), QString("0.0012"));
    QCOMPARE(NumberAxisTicker::label(1e-4, 0.0), QString("1e-4"));
    QCOMPARE(NumberAxisTicker::label(0.25, 0.25, TickFormat::Percent), QString("25%"));
    QCOMPARE(NumberAxisTicker::label(1.0, 0.2, TickFormat::Percent), QString("100%"));
  }

  void wallTimeLabelsAreShort() {
    QCOMPARE(WallTimeAxisTicker::label(65, 15, 600), QString("1:05"));
    QCOMPARE(WallTimeAxisTicker::label(0, 15, 600), QString("0:00"));
    QCOMPARE(WallTimeAxisTicker::label(5400, 1800, 7200), QString("1:30"));
    QCOMPARE(WallTimeAxisTicker::label(3725, 5, 4000), QString("1:02:05"));
    QCOMPARE(WallTimeAxisTicker::label(1.5, 0.5, 3), QString("0:01.5"));
  }

  void tickLabelsOnEveryAxisMode() {
    // Five minutes of a run: step, epoch and wall-time x; linear and log y. Every label is
    // plain text, and the x labels do not run together at this width.
    MetricPoints points;
    for (int i = 1; i <= 300; ++i)
      points.append({"r", "cost", i, (i - 1) / 100 + 1, 1000.0 + i, 2.5 / std::sqrt(double(i))});
    add(store_, *chart_, points);
    const QFontMetrics metrics(chart_->plot()->xAxis->tickLabelFont());
    for (XAxisMode mode : {XAxisMode::Step, XAxisMode::Epoch, XAxisMode::WallTime}) {
      for (bool log : {false, true}) {
        chart_->setXAxisMode(mode);
        chart_->setLogY(log);
        chart_->sync();
        chart_->plot()->replot();
        const QString where = QString("mode %1 log %2").arg(int(mode)).arg(log);
        const QVector<QString> x = chart_->plot()->xAxis->tickVectorLabels();
        const QVector<QString> y = chart_->plot()->yAxis->tickVectorLabels();
        QVERIFY2(x.size() >= 2 && y.size() >= 2, qPrintable(where));
        int widths = 0;
        for (const QString& label : x + y) {
          QVERIFY2(!label.contains(QChar(0xB7)) && !label.contains("10^") && label.size() <= 7,
                   qPrintable(where + ": " + label));
          widths += metrics.horizontalAdvance(label);
        }
        for (const QString& label : x) widths += metrics.horizontalAdvance(label) + 20;
        QVERIFY2(widths < 2 * chart_->plot()->axisRect()->width(), qPrintable(where));
        if (mode == XAxisMode::WallTime)
          QVERIFY2(x.contains("1:00") || x.contains("2:00"),
                   qPrintable(QStringList(x.begin(), x.end()).join(' ')));
      }
    }
  }

  void aHeldValueIsALineFromItsFirstPoint() {
    // One learning-rate point at the first step, the run now at step 100: a line across.
    store_.setSmoothingWeight(0.6);
    const MetricPoints points{{"r", "learning_rate", 1, 1, 0, 1e-3}, {"r", "cost", 100, 1, 9, 1}};
    for (const SeriesKey& key : store_.append(points))
      if (key.name == "learning_rate")
        chart_->addSeries(key, ChartGrouping::placementFor(key.name));
    chart_->restyle(store_.runs());
    chart_->sync();
    chart_->replot();
    QCustomPlot* plot = chart_->plot();
    QCOMPARE(plot->graphCount(), 3);  // raw, held value, its continuation
    QCOMPARE(plot->graph(1)->lineStyle(), QCPGraph::lsStepLeft);
    QVERIFY(!plot->graph(0)->visible());  // a held value is never smoothed: no faint copy
    QCPGraph* tail = plot->graph(2);
    QVERIFY(tail->visible());
    QCOMPARE(keys(tail), (QVector<double>{1, 100}));
    QCOMPARE(values(tail), (QVector<double>{1e-3, 1e-3}));
    QCOMPARE(tail->pen().color(), plot->graph(1)->pen().color());
    QVERIFY(plot->xAxis->range().contains(1.0) && plot->xAxis->range().contains(100.0));
    // A new value (after epoch 1) is drawn as it is, not averaged with the old one.
    store_.append({{"r", "learning_rate", 150, 2, 10, 1e-4}, {"r", "cost", 200, 2, 11, 1}});
    chart_->sync();
    QCOMPARE(values(plot->graph(1)), (QVector<double>{1e-3, 1e-4}));
    QCOMPARE(keys(tail), (QVector<double>{150, 200}));
  }

  void logAxisLabelsStayDistinctWithinADecade() {
    // A constant learning rate: the fitted log range spans less than a decade, where QCustomPlot
    // places ticks linearly (1.2e-3, 1.4e-3, ...); each needs its own label.
    add(store_, *chart_,
        {{"r", "learning_rate", 1, 1, 0, 1e-3}, {"r", "learning_rate", 2, 1, 0, 1e-3}});
    chart_->setLogY(true);
    chart_->plot()->replot();
    const QVector<QString> labels = chart_->plot()->yAxis->tickVectorLabels();
    const QVector<double> ticks = chart_->plot()->yAxis->tickVector();
    QVERIFY2(labels.size() >= 2, qPrintable(QStringList(labels.begin(), labels.end()).join(' ')));
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
    for (int i = 0; i < labels.size(); ++i) {
      // The label tells the tick's value (QCustomPlot beautifies "1.2e-03" when drawing).
      QVERIFY2(qAbs(QLocale().toDouble(labels[i]) - ticks[i]) <= 1e-9 * ticks[i],
               qPrintable(labels[i]));
    }
    // Whole decades keep their short form.
    chart_->setLogY(false);
    add(store_, *chart_, {{"r", "learning_rate", 3, 1, 0, 1e-6}});
    chart_->setLogY(true);
    chart_->plot()->replot();
    const QVector<QString> decades = chart_->plot()->yAxis->tickVectorLabels();
    QVERIFY(decades.contains(QStringLiteral("1e-4")));
  }

  void tooltipListsEverySeriesAtTheCursor() {
    add(store_, *chart_, lossAndError());
    QCOMPARE(chart_->tooltipText(2.2), QString("step 2\n"
                                               "cost: 3\n"
                                               "train_error: 0.45\n"
                                               "validation_cost: 2.5 at step 4"));
    QCOMPARE(chart_->tooltipText(100.0), QString("step 4\n"
                                                 "cost: 1\n"
                                                 "train_error: 0.4\n"
                                                 "validation_cost: 2.5"));
    store_.setSmoothingWeight(0.5);
    chart_->invalidateSmoothing();
    chart_->sync();
    QCOMPARE(chart_->tooltipText(1.0), QString("step 1\n"
                                               "cost: 4 (raw 4)\n"
                                               "train_error: 0.5 (raw 0.5)\n"
                                               "validation_cost: 2.5 (raw 2.5) at step 4"));
    QCOMPARE(chart_->tooltipText(2.0).section('\n', 1, 1),
             QString("cost: %1 (raw 3)").arg((0.25 * 4 + 0.5 * 3) / 0.75, 0, 'g', 5));
    chart_->setXAxisMode(XAxisMode::WallTime);
    chart_->sync();
    QCOMPARE(chart_->tooltipText(3.4).section('\n', 0, 0), QString("time 0:00:03"));
  }

  void tooltipOfAnEmptyChartIsEmpty() { QCOMPARE(chart_->tooltipText(1.0), QString()); }

  void csvExportHasExactContents() {
    store_.setSmoothingWeight(0.5);
    add(store_, *chart_,
        {{"r", "cost", 1, 1, 1700000000.5, 1.0},
         {"r", "cost", 2, 1, 1700000001.0, 3.0},
         {"r", "train_error", 2, 1, 1700000001.0, 0.25}});
    QTemporaryDir dir;
    const QString path = dir.filePath("chart.csv");
    QString error;
    QVERIFY2(chart_->exportCsv(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()),
             QString("run,name,step,epoch,wall_time,value,smoothed\n"
                     "r,cost,1,1,1700000000.5,1,1\n"
                     "r,cost,2,1,1700000001,3,2.3333333333333335\n"
                     "r,train_error,2,1,1700000001,0.25,0.25\n"));
  }

  void pngExportHasTheWidgetsSizeAndShowsTheCurves() {
    store_.setSmoothingWeight(0.5);
    add(store_, *chart_, lossAndError());
    chart_->replot();
    QTemporaryDir dir;
    const QString path = dir.filePath("chart.png");
    QVERIFY(chart_->exportPng(path));
    const QImage image(path);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), chart_->size());
    QCOMPARE(image.size(), QSize(640, 400));
    // The smoothed cost curve (about 500 px long) is in the picture.
    const QRgb cost = chart_->plot()->graph(1)->pen().color().rgb();
    int costPixels = 0;
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QRgb p = image.pixel(x, y);
        colours.insert(p);
        if (near(p, cost)) ++costPixels;
      }
    QVERIFY2(costPixels > 300, qPrintable(QString::number(costPixels)));
    QVERIFY(colours.size() > 10);
  }

  // Ten classes' accuracies in a small chart: a legend of ten entries would squeeze the plot to
  // nothing, so it is hidden there (the tooltip names the curves) and back when enlarged.
  void aLegendTooTallForTheChartIsHidden() {
    MetricPoints points;
    for (int k = 0; k < 10; ++k) {
      for (qint64 step : {100, 200}) {
        points.append({"r", QString("validation_accuracy/class_%1").arg(k), step, step / 100,
                       double(step), 0.5 + 0.04 * k});
      }
    }
    chart_->resize(260, 150);
    add(store_, *chart_, points);
    QCoreApplication::processEvents();
    QCOMPARE(chart_->legendLabels().size(), 10);
    QVERIFY(!chart_->plot()->legend->visible());
    QVERIFY(chart_->tooltipText(200).contains("class_9"));
    chart_->resize(900, 700);
    QCoreApplication::processEvents();
    QVERIFY(chart_->plot()->legend->visible());
    chart_->resize(260, 150);
    QCoreApplication::processEvents();
    QVERIFY(!chart_->plot()->legend->visible());
  }

  void pdfExportWritesAPdf() {
    add(store_, *chart_, lossAndError());
    QTemporaryDir dir;
    const QString path = dir.filePath("chart.pdf");
    QVERIFY(chart_->exportPdf(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("%PDF"));
    QVERIFY(bytes.size() > 1000);
  }

  void severalRunsAreColouredByRunAndCanBeHidden() {
    MetricPoints points = lossAndError("a");
    points += lossAndError("b");
    add(store_, *chart_, points);
    QCustomPlot* plot = chart_->plot();
    QCOMPARE(plot->graphCount(), 12 + 3);  // and one legend key per scalar
    // Curves of one run share its colour and differ in pen style; runs differ in colour.
    const QPen aCost = plot->graph(1)->pen(), aError = plot->graph(3)->pen();
    const QPen bCost = plot->graph(7)->pen();
    QCOMPARE(aCost.color(), aError.color());
    QVERIFY(aCost.style() != aError.style());
    QVERIFY(aCost.color() != bCost.color());
    QCOMPARE(aCost.style(), bCost.style());
    // The legend names each scalar once (its line style); the colour names the run.
    QCOMPARE(chart_->legendLabels(), (QStringList{"cost", "train_error", "validation_cost"}));
    QCOMPARE(legendEntries(plot), 3);
    QVERIFY(chart_->tooltipText(4.0).contains("b · cost"));
    // A run's own colour (Run History's) wins over the arrival order's, and names the run.
    chart_->restyle(store_.runs(), {{"b", QColor(Qt::magenta)}}, {{"b", "wide net"}});
    QCOMPARE(plot->graph(7)->pen().color(), QColor(Qt::magenta));
    QCOMPARE(plot->graph(1)->pen().color(), aCost.color());
    QVERIFY(chart_->tooltipText(4.0).contains("wide net · cost"));
    QCOMPARE(legendEntries(plot), 3);
    QCOMPARE(plot->graphCount(), 12 + 3);  // the keys were replaced, not added

    chart_->setRunVisible("b", false);
    chart_->restyle(store_.runs());
    QVERIFY(!chart_->isRunVisible("b"));
    QVERIFY(!plot->graph(7)->visible());
    QCOMPARE(legendEntries(plot), 3);
    QCOMPARE(plot->graphCount(), 12);                   // no keys: the curves are the legend
    QCOMPARE(plot->graph(1)->name(), QString("cost"));  // one run left: plain names
    QVERIFY(plot->graph(1)->pen().color() != plot->graph(3)->pen().color());
    QVERIFY(!chart_->tooltipText(1.0).contains("b · "));
    QTemporaryDir dir;
    QVERIFY(chart_->exportCsv(dir.filePath("a.csv")));
    QFile file(dir.filePath("a.csv"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().count('\n'), 1 + 9);  // run b's rows are left out
  }
};

}  // namespace test_MetricChart

TB_TEST_MAIN(test_MetricChart::TestMetricChart)
#include "test_MetricChart.moc"
