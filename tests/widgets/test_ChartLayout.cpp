// The chart layout of LivePlotWidget in a real window (offscreen platform): the primary chart
// large and the others in a strip, nothing cut off, collapse and enlarge through the panels'
// controls, titles for people, the input queue as fullness with its data-bound verdict.

#include <QtTest>

#include <QLabel>
#include <QScrollArea>
#include <QToolButton>

#include "tests/support/TestMain.h"
#include "widgets/ChartGrouping.h"
#include "widgets/ChartPanel.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/MetricChart.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ChartLayout {

using namespace tbench::ui;

namespace {

/// What a Fashion-MNIST run puts: per step cost, error and (from the bridge) the learning rate
/// at the first step; per epoch validation, throughput and the input queue.
MetricPoints fashionRun(int epochs, double fullness) {
  MetricPoints points;
  const qint64 perEpoch = 50;
  points.append({"r", "learning_rate", 1, 1, 1000.0, 1e-3});
  for (qint64 epoch = 1; epoch <= epochs; ++epoch) {
    for (qint64 i = 1; i <= perEpoch; ++i) {
      const qint64 step = (epoch - 1) * perEpoch + i;
      const double wall = 1000.0 + 0.1 * double(step);
      points.append({"r", "cost", step, epoch, wall, 2.0 / std::sqrt(double(step))});
      points.append({"r", "train_error", step, epoch, wall, 0.5 / std::sqrt(double(step))});
    }
    const qint64 step = epoch * perEpoch;
    const double wall = 1000.0 + 0.1 * double(step);
    points.append({"r", "validation_cost", step, epoch, wall, 1.0 / double(epoch)});
    points.append({"r", "validation_error", step, epoch, wall, 0.2 / double(epoch)});
    points.append({"r", "learning_rate", step, epoch, wall, 1e-3});
    points.append({"r", "ThroughputTracker/steps_per_sec", step, epoch, wall, 10.0});
    points.append({"r", "ThroughputTracker/samples_per_sec", step, epoch, wall, 1280.0});
    points.append({"r", "QueueInput/queue_fullness", step, epoch, wall, fullness});
    points.append({"r", "QueueInput/queue_size", step, epoch, wall, fullness * 50});
  }
  return points;
}

int area(const QWidget* w) { return w->width() * w->height(); }

/// The widget's rectangle in the scroll area's viewport.
QRect inViewport(const LivePlotWidget& plots, const QWidget* w) {
  const QWidget* viewport = plots.findChild<QScrollArea*>()->viewport();
  return QRect(w->mapTo(viewport, QPoint(0, 0)), w->size());
}

}  // namespace

class TestChartLayout : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<LivePlotWidget> widget_;

  void show(QSize size, int epochs = 3, double fullness = 0.9) {
    widget_ = std::make_unique<LivePlotWidget>();
    widget_->resize(size);
    widget_->show();
    QVERIFY(QTest::qWaitForWindowExposed(widget_.get()));
    widget_->appendPoints(fashionRun(epochs, fullness));
    widget_->flush();
    QCoreApplication::processEvents();
  }

 private slots:
  void cleanup() { widget_.reset(); }

  void titlesAreForPeople() {
    show({1280, 800});
    QCOMPARE(widget_->chartTitles(),
             (QStringList{"Loss and error", "Learning rate", "Steps per second",
                          "Samples per second", "Input queue"}));
    for (const QString& title : widget_->chartTitles()) {
      QVERIFY2(!title.contains('/') && !title.contains('_'), qPrintable(title));
      QCOMPARE(widget_->panel(title)->titleLabel()->text(), title);
    }
    // The queue's size in batches is left off: its fullness says the same, in % of capacity.
    QVERIFY(widget_->store().series({"r", "QueueInput/queue_size"}));
    QVERIFY(!widget_->chart("Input queue (batches)"));
    QCustomPlot* queue = widget_->chart("Input queue")->plot();
    QCOMPARE(queue->yAxis->label(), QString("% full"));
    QVERIFY(queue->yAxis->tickVectorLabels().contains("100%"));
    QCOMPARE(queue->yAxis->range().lower <= 0.0 && queue->yAxis->range().upper >= 1.0, true);
    QCOMPARE(widget_->chart("Steps per second")->plot()->yAxis->label(), QString("steps/s"));
    QCOMPARE(widget_->chart("Samples per second")->plot()->yAxis->label(), QString("samples/s"));
  }

  void thePrimaryChartIsLargeAndNothingIsCutOff() {
    // The last size is the window's plot area at 1280x800 with a user scalar more: two rows.
    for (const QSize size : {QSize(1280, 800), QSize(900, 620), QSize(700, 520)}) {
      show(size);
      widget_->appendPoints({{"r", "grad_norm", 1, 1, 1000.0, 2.0}});
      widget_->flush();
      QCoreApplication::processEvents();
      ChartPanel* primary = widget_->primaryPanel();
      QCOMPARE(primary->title(), ChartGrouping::lossAndErrorChart());
      const QRect viewport = widget_->findChild<QScrollArea*>()->viewport()->rect();
      for (const QString& title : widget_->chartTitles()) {
        ChartPanel* panel = widget_->panel(title);
        QVERIFY2(panel->isVisible(), qPrintable(title));
        QVERIFY2(viewport.contains(inViewport(*widget_, panel)),
                 qPrintable(QString("%1 at %2x%3: %4,%5 %6x%7 outside the view")
                                .arg(title)
                                .arg(size.width())
                                .arg(size.height())
                                .arg(inViewport(*widget_, panel).x())
                                .arg(inViewport(*widget_, panel).y())
                                .arg(panel->width())
                                .arg(panel->height())));
        if (panel == primary) continue;
        QVERIFY2(
            area(primary) >= 2 * area(panel),
            qPrintable(QString("%1: %2 vs %3").arg(title).arg(area(primary)).arg(area(panel))));
        const int plotHeight = panel->chart()->plot()->axisRect()->height();
        QVERIFY2(plotHeight >= 40, qPrintable(QString("%1: %2 px in %3x%4, plot %5, legend %6")
                                                  .arg(title)
                                                  .arg(plotHeight)
                                                  .arg(size.width())
                                                  .arg(size.height())
                                                  .arg(panel->chart()->plot()->height())
                                                  .arg(panel->chart()->plot()->legend->visible())));
      }
      QVERIFY(primary->width() > 0.9 * widget_->width());
    }
  }

  void theStripFollowsTheWidth() {
    show({1280, 800});
    QCOMPARE(widget_->secondaryColumns(), 4);  // the four smaller charts side by side
    widget_->resize(700, 800);
    QCoreApplication::processEvents();
    QVERIFY(widget_->secondaryColumns() < 4);
    QVERIFY(widget_->secondaryColumns() >= 1);
  }

  void aChartCollapsesToItsHeaderAndComesBack() {
    show({1280, 800});
    ChartPanel* rate = widget_->panel("Learning rate");
    const int expanded = rate->height();
    QTest::mouseClick(rate->collapseButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(rate->isCollapsed());
    QVERIFY(!rate->chart()->isVisible());
    QVERIFY(rate->header()->isVisible());
    QCOMPARE(rate->height(), rate->headerHeight());
    QVERIFY(rate->height() < expanded / 3);
    QTest::mouseClick(rate->collapseButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(!rate->isCollapsed());
    QVERIFY(rate->chart()->isVisible());
    QCOMPARE(rate->height(), expanded);
  }

  void anyChartEnlargesAndRestores() {
    show({1280, 800});
    ChartPanel* speed = widget_->panel("Steps per second");
    ChartPanel* primary = widget_->primaryPanel();
    const QSize small = speed->size();
    QTest::mouseClick(speed->enlargeButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QCOMPARE(widget_->enlargedPanel(), speed);
    QVERIFY(speed->isEnlarged());
    QVERIFY(!primary->isVisible());
    QVERIFY(speed->height() > 2 * small.height());
    QVERIFY(speed->width() > 2 * small.width());
    QCOMPARE(speed->enlargeButton()->text(), QString("Restore"));
    QTest::mouseClick(speed->enlargeButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(!widget_->enlargedPanel());
    QVERIFY(primary->isVisible());
    QCOMPARE(speed->size(), small);
    // A double click on the title does the same, for the primary chart too.
    QTest::mouseDClick(primary->titleLabel(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QCOMPARE(widget_->enlargedPanel(), primary);
    QVERIFY(!speed->isVisible());
    QTest::mouseDClick(primary->titleLabel(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(!widget_->enlargedPanel());
    QVERIFY(speed->isVisible());
  }

  void theInputQueueSaysWhenTrainingWaitsForData() {
    show({1280, 800}, 3, 0.02);
    QCOMPARE(widget_->panel("Input queue")->badge(), QString("data-bound"));
    widget_->clear();
    widget_->appendPoints(fashionRun(3, 0.85));
    widget_->flush();
    QCOMPARE(widget_->panel("Input queue")->badge(), QString("keeps up"));
  }

  void aGanRunKeepsBothLossesOnThePrimaryChart() {
    widget_ = std::make_unique<LivePlotWidget>();
    widget_->resize(1280, 800);
    widget_->show();
    QVERIFY(QTest::qWaitForWindowExposed(widget_.get()));
    MetricPoints points;
    for (qint64 step = 1; step <= 20; ++step) {
      points.append({"g", "accuracy_real", step, 1, double(step), 0.7});
      points.append({"g", "accuracy_fake", step, 1, double(step), 0.6});
      points.append({"g", "d_loss", step, 1, double(step), 1.2});
      points.append({"g", "g_loss", step, 1, double(step), 0.8});
    }
    widget_->appendPoints(points);
    widget_->flush();
    QCOMPARE(widget_->chartTitles(), (QStringList{"Loss and error", "Accuracy"}));
    QCOMPARE(widget_->chart("Loss and error")->seriesKeys(),
             (QVector<SeriesKey>{{"g", "d_loss"}, {"g", "g_loss"}}));
    QCOMPARE(widget_->chart("Accuracy")->seriesKeys().size(), 2);
  }
};

}  // namespace test_ChartLayout

TB_TEST_MAIN(test_ChartLayout::TestChartLayout)
#include "test_ChartLayout.moc"
