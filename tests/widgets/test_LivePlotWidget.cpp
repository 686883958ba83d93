// LivePlotWidget in a real window (offscreen platform): charts on demand, coalesced replots,
// controls, run overlay and exports.

#include <QtTest>

#include <algorithm>
#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QSlider>
#include <QTemporaryDir>
#include <QToolButton>

#include "tests/support/TestMain.h"
#include "widgets/ChartGrouping.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/MetricChart.h"
#include "widgets/PlotControls.h"
#include "widgets/RunSelector.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_LivePlotWidget {

using namespace tbench::ui;

namespace {

const QStringList kNames{"cost",
                         "train_error",
                         "learning_rate",
                         "ThroughputTracker/steps_per_sec",
                         "ThroughputTracker/samples_per_sec",
                         "QueueInput/queue_size",
                         "grad_norm"};

/// One point of every name in kNames at `step` (10 steps per epoch, 0.01 s per step).
MetricPoints stepPoints(const QString& run, qint64 step) {
  MetricPoints points;
  for (int i = 0; i < kNames.size(); ++i)
    points.append(
        {run, kNames[i], step, (step - 1) / 10 + 1, 1000.0 + step * 0.01, 1.0 / double(step) + i});
  return points;
}

qint64 graphPoints(const LivePlotWidget& w) {
  qint64 n = 0;
  for (const QString& title : w.chartTitles()) n += w.chart(title)->graphPointCount();
  return n;
}

int legendEntries(const QCustomPlot* plot) {
  int n = 0;
  for (int i = 0; i < plot->legend->itemCount(); ++i)
    if (plot->legend->item(i)) ++n;
  return n;
}

}  // namespace

class TestLivePlotWidget : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<LivePlotWidget> widget_;

 private slots:
  void init() {
    widget_ = std::make_unique<LivePlotWidget>();
    widget_->resize(1280, 800);
    widget_->show();
    QVERIFY(QTest::qWaitForWindowExposed(widget_.get()));
  }
  void cleanup() { widget_.reset(); }

  void chartsAreCreatedOnDemandPerGroup() {
    widget_->appendPoints(stepPoints("r", 1));
    QVERIFY(widget_->chartTitles().isEmpty());  // nothing happens before the timer
    widget_->appendPoints({{"r", "validation_cost", 10, 1, 1000.1, 0.7}});
    widget_->flush();
    QCOMPARE(widget_->chartTitles(),
             (QStringList{ChartGrouping::lossAndErrorChart(), "Learning rate", "Steps per second",
                          "Samples per second", "Input queue (batches)", "Grad norm"}));
    MetricChart* loss = widget_->chart(ChartGrouping::lossAndErrorChart());
    QCOMPARE(loss->seriesKeys(),
             (QVector<SeriesKey>{{"r", "cost"}, {"r", "train_error"}, {"r", "validation_cost"}}));
    QVERIFY(widget_->chart("Learning rate")->logY());
    QVERIFY(!loss->logY());
    QCOMPARE(widget_->chart("Steps per second")->seriesKeys().size(), 1);
    QVERIFY(loss->isVisible());
    QVERIFY(loss->width() > 500);
  }

  void burstsAreCoalescedIntoOneReplot() {
    QSignalSpy passes(widget_.get(), &LivePlotWidget::replotted);
    QElapsedTimer clock;
    clock.start();
    // 1,000 calls of 10 points each within one turn of the event loop.
    for (int call = 0; call < 1000; ++call) {
      MetricPoints points;
      for (int j = 0; j < 10; ++j) {
        const qint64 step = call * 10 + j + 1;
        points.append({"r", j % 2 ? "cost" : "train_error", step, 1, step * 0.001, 1.0 / step});
      }
      widget_->appendPoints(points);
    }
    const qint64 appendMs = clock.elapsed();
    QCOMPARE(passes.count(), 0);  // appends never replot synchronously
    QCustomPlot* plot = nullptr;
    QTRY_COMPARE(passes.count(), 1);
    plot = widget_->chart(ChartGrouping::lossAndErrorChart())->plot();
    QSignalSpy replots(plot, &QCustomPlot::afterReplot);
    QTest::qWait(3 * LivePlotWidget::kCoalesceMs);
    QVERIFY2(passes.count() <= 2, qPrintable(QString::number(passes.count())));
    QVERIFY2(replots.count() <= 2, qPrintable(QString::number(replots.count())));
    QCOMPARE(widget_->store().pointCount(), qint64(10000));
    QCOMPARE(graphPoints(*widget_), qint64(2 * 10000));  // raw + smoothed, every point
    QVERIFY2(appendMs < 2000, qPrintable(QString::number(appendMs)));
  }

  void aSteadyStreamReplotsAtMostOncePerInterval() {
    QSignalSpy passes(widget_.get(), &LivePlotWidget::replotted);
    qint64 step = 0;
    QTimer producer;  // 500 steps per second, a point of every name each time
    connect(&producer, &QTimer::timeout, [&] { widget_->appendPoints(stepPoints("r", ++step)); });
    QElapsedTimer clock;
    producer.start(2);
    clock.start();
    QTest::qWait(600);
    producer.stop();
    const double seconds = clock.elapsed() / 1000.0;
    QTRY_COMPARE(graphPoints(*widget_), 2 * step * kNames.size());
    const double perSecond = passes.count() / seconds;
    QVERIFY2(passes.count() >= 3, qPrintable(QString::number(passes.count())));
    QVERIFY2(perSecond <= 1000.0 / LivePlotWidget::kCoalesceMs + 3,
             qPrintable(QString::number(perSecond)));
    QVERIFY(step > passes.count());
  }

  void theEmptyAreaSaysWhatWillAppearThere() {
    auto* hint = widget_->findChild<QLabel*>("emptyHint");
    QVERIFY(hint != nullptr);
    widget_->setEmptyText("Press Start");
    QCOMPARE(hint->text(), QString("Press Start"));
    QVERIFY(hint->isVisible());
    widget_->appendPoints(stepPoints("r", 1));
    widget_->flush();
    QVERIFY(!hint->isVisible());
    widget_->clear();
    QVERIFY(hint->isVisible());
  }

  void coalescingIntervalFollowsTheCostOfAPass() {
    // A pass over many points takes longer; the next interval is 20x that, within bounds.
    MetricPoints points;
    for (int i = 1; i <= 200000; ++i) points.append(MetricPoint{"r", "cost", i, 1, 0.0, 1.0 / i});
    widget_->appendPoints(points);
    widget_->flush();
    const auto expected = [&] {
      return std::clamp(
          int(std::ceil(widget_->lastFlushMs() * LivePlotWidget::kReplotBudgetFactor)),
          LivePlotWidget::kCoalesceMs, LivePlotWidget::kMaxCoalesceMs);
    };
    QVERIFY(widget_->lastFlushMs() > 0);
    QCOMPARE(widget_->coalesceIntervalMs(), expected());
    widget_->appendPoints({MetricPoint{"r", "cost", 200001, 1, 0.0, 0.5}});
    widget_->flush();
    QCOMPARE(widget_->coalesceIntervalMs(), expected());
    QVERIFY(widget_->coalesceIntervalMs() >= LivePlotWidget::kCoalesceMs);
    QVERIFY(widget_->coalesceIntervalMs() <= LivePlotWidget::kMaxCoalesceMs);
  }

  void controlsDriveEveryChart() {
    for (qint64 step = 1; step <= 30; ++step) widget_->appendPoints(stepPoints("r", step));
    widget_->flush();
    MetricChart* loss = widget_->chart(ChartGrouping::lossAndErrorChart());
    const Series* cost = widget_->store().series({"r", "cost"});
    QCOMPARE(widget_->smoothingWeight(), LivePlotWidget::kDefaultSmoothing);

    widget_->controls()->smoothingSlider()->setValue(900);  // as a user would
    QCOMPARE(widget_->smoothingWeight(), 0.9);
    widget_->flush();
    QCOMPARE(widget_->store().smoothingWeight(), 0.9);
    QCPGraph* smooth = loss->plot()->graph(1);
    QCOMPARE((smooth->data()->constEnd() - 1)->value, cost->smoothed(cost->size() - 1));
    EmaSmoother reference(0.9);
    double last = 0;
    for (int i = 0; i < cost->size(); ++i) last = reference.add(cost->value(i));
    QCOMPARE((smooth->data()->constEnd() - 1)->value, last);

    widget_->controls()->xAxisCombo()->setCurrentIndex(2);  // wall time
    QCOMPARE(widget_->xAxisMode(), XAxisMode::WallTime);
    widget_->flush();
    QCOMPARE(smooth->data()->constBegin()->key, 0.0);
    QCOMPARE((smooth->data()->constEnd() - 1)->key, 29 * 0.01);
    widget_->controls()->xAxisCombo()->setCurrentIndex(1);  // epoch: estimated 10 per epoch
    widget_->flush();
    QCOMPARE((smooth->data()->constEnd() - 1)->key, 3.0);

    widget_->controls()->logYBox()->setChecked(true);
    widget_->flush();
    for (const QString& title : widget_->chartTitles())
      QVERIFY2(widget_->chart(title)->logY(), qPrintable(title));
  }

  void runsCanBeOverlaidAndHidden() {
    for (qint64 step = 1; step <= 5; ++step) {
      widget_->appendPoints(stepPoints("run-1", step));
      widget_->appendPoints(stepPoints("run-2", step));
    }
    widget_->flush();
    QCOMPARE(widget_->runs(), (QStringList{"run-1", "run-2"}));
    QCustomPlot* plot = widget_->chart(ChartGrouping::lossAndErrorChart())->plot();
    QCOMPARE(legendEntries(plot), 2);  // one per scalar: the run selector names the runs
    QVERIFY(plot->graph(1)->pen().color() != plot->graph(5)->pen().color());  // run colours
    // The run colours are the same on every chart.
    QCOMPARE(widget_->chart("Grad norm")->plot()->graph(1)->pen().color(),
             plot->graph(1)->pen().color());

    // One chip per run; a run's name and colour (Run History's) go to every chart and chip.
    RunSelector* selector = widget_->runSelector();
    QVERIFY(!selector->isHidden());
    QCOMPARE(selector->runs().size(), 2);
    widget_->setRunAppearance("run-2", "wide net", QColor(Qt::magenta));
    widget_->setLiveRun("run-2");
    widget_->flush();
    QCOMPARE(plot->graph(5)->pen().color(), QColor(Qt::magenta));
    QCOMPARE(widget_->chart("Grad norm")->plot()->graph(3)->pen().color(), QColor(Qt::magenta));
    QToolButton* chip = selector->chip("run-2");
    QVERIFY(chip);
    QCOMPARE(chip->text(), QString("wide net (live)"));
    // Its chip hides the run's curves on every chart, and shows them again.
    chip->click();
    widget_->flush();
    QVERIFY(!widget_->isRunVisible("run-2"));
    QVERIFY(!plot->graph(5)->visible());
    QVERIFY(!widget_->chart("Grad norm")->plot()->graph(3)->visible());
    QCOMPARE(selector->runs().size(), 2);  // still offered
    selector->chip("run-2")->click();
    widget_->flush();
    QVERIFY(plot->graph(5)->visible());

    widget_->setRunVisible("run-2", false);
    widget_->flush();
    QVERIFY(!widget_->isRunVisible("run-2"));
    QCOMPARE(legendEntries(plot), 2);
    QCOMPARE(selector->runs().size(), 1);  // off the charts: no chip, and one run needs none
    QVERIFY(selector->isHidden());
    QTemporaryDir dir;
    QVERIFY(widget_->exportCsv(dir.filePath("all.csv")));
    QFile csv(dir.filePath("all.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll().count('\n'), 1 + 5 * kNames.size());  // run-2 left out
    // A run that arrives hidden stays hidden on new charts.
    widget_->appendPoints({{"run-2", "new_metric", 1, 1, 0, 1}});
    widget_->flush();
    QVERIFY(!widget_->chart("New metric")->plot()->graph(1)->visible());
  }

  void exportsOfTheWholeArea() {
    for (qint64 step = 1; step <= 50; ++step) widget_->appendPoints(stepPoints("r", step));
    QTemporaryDir dir;
    QVERIFY(widget_->exportPng(dir.filePath("all.png")));
    const QImage image(dir.filePath("all.png"));
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 1200 && image.height() > 600);
    QVERIFY(widget_->exportPdf(dir.filePath("all.pdf")));
    QFile pdf(dir.filePath("all.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    const QByteArray bytes = pdf.readAll();
    QVERIFY(bytes.startsWith("%PDF"));
    QCOMPARE(bytes.count("/Type /Page\n") + bytes.count("/Type /Page\r"),
             qsizetype(widget_->chartTitles().size()));
  }

  void clearRemovesEverything() {
    widget_->appendPoints(stepPoints("r", 1));
    widget_->flush();
    QVERIFY(!widget_->chartTitles().isEmpty());
    widget_->appendPoints(stepPoints("r", 2));  // pending when cleared
    widget_->clear();
    QVERIFY(widget_->chartTitles().isEmpty());
    QCOMPARE(widget_->store().pointCount(), qint64(0));
    QTest::qWait(2 * LivePlotWidget::kCoalesceMs);
    QVERIFY(widget_->chartTitles().isEmpty());
    widget_->appendPoints(stepPoints("r", 1));
    widget_->flush();
    QCOMPARE(widget_->chartTitles().size(), 6);
  }
};

}  // namespace test_LivePlotWidget

TB_TEST_MAIN(test_LivePlotWidget::TestLivePlotWidget)
#include "test_LivePlotWidget.moc"
