// ChartGrouping: which chart and axis each scalar name lands on.

#include <QtTest>

#include "tests/support/TestMain.h"
#include "widgets/ChartGrouping.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ChartGrouping {

using namespace tbench::ui;

class TestChartGrouping : public QObject {
  Q_OBJECT
 private slots:
  void placement_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("chart");
    QTest::addColumn<bool>("rightAxis");
    QTest::addColumn<bool>("logY");
    QTest::addColumn<QString>("label");
    const QString lossError = ChartGrouping::lossAndErrorChart();
    QTest::newRow("cost") << "cost" << lossError << false << false << "cost";
    QTest::newRow("validation_cost")
        << "validation_cost" << lossError << false << false << "validation_cost";
    QTest::newRow("train_error") << "train_error" << lossError << true << false << "train_error";
    QTest::newRow("validation_error")
        << "validation_error" << lossError << true << false << "validation_error";
    QTest::newRow("accuracy") << "val_accuracy" << lossError << true << false << "val_accuracy";
    QTest::newRow("a loss") << "cross_entropy_loss" << lossError << false << false
                            << "cross_entropy_loss";
    QTest::newRow("learning_rate") << "learning_rate"
                                   << "Learning rate" << false << true << "learning_rate";
    QTest::newRow("steps") << "ThroughputTracker/steps_per_sec"
                           << "Steps per second" << false << false << "steps/s";
    QTest::newRow("samples") << "ThroughputTracker/samples_per_sec"
                             << "Samples per second" << false << false << "samples/s";
    QTest::newRow("queue fullness") << "QueueInput/queue_fullness"
                                    << "Input queue" << false << false << "fullness";
    QTest::newRow("queue size") << "QueueInput/queue_size"
                                << "Input queue (batches)" << false << false << "batches waiting";
    QTest::newRow("GPU") << "GPUUtil/cuda:0"
                         << "GPU utilization" << false << false << "cuda:0";
    QTest::newRow("a monitor's prefix in words")
        << "MyTracker/items_per_sec"
        << "My tracker" << false << false << "items_per_sec";
    QTest::newRow("a prefix wins over the loss rule") << "GAN/loss"
                                                      << "GAN" << false << false << "loss";
    QTest::newRow("GAN losses") << "d_loss" << lossError << false << false << "d_loss";
    QTest::newRow("GAN accuracies") << "accuracy_fake"
                                    << "Accuracy" << false << false << "accuracy_fake";
    QTest::newRow("user scalar") << "grad_norm"
                                 << "Grad norm" << false << false << "grad_norm";
    QTest::newRow("its validation twin") << "validation_grad_norm"
                                         << "Grad norm" << false << false << "validation_grad_norm";
    QTest::newRow("a bare prefix is a name") << "validation_"
                                             << "Validation" << false << false << "validation_";
    QTest::newRow("leading slash") << "/odd"
                                   << "/odd" << false << false << "/odd";
  }
  void placement() {
    QFETCH(QString, name);
    QFETCH(QString, chart);
    QFETCH(bool, rightAxis);
    QFETCH(bool, logY);
    QFETCH(QString, label);
    const ChartPlacement p = ChartGrouping::placementFor(name);
    QCOMPARE(p.chart, chart);
    QCOMPARE(p.axis == YAxisSide::Right, rightAxis);
    QCOMPARE(p.logYByDefault, logY);
    QCOMPARE(p.label, label);
  }

  void onlyLossesAndErrorsHaveAFixedAxis() {
    QVERIFY(ChartGrouping::placementFor("cost").fixedAxis);
    QVERIFY(ChartGrouping::placementFor("validation_error").fixedAxis);
    QVERIFY(!ChartGrouping::placementFor("ThroughputTracker/steps_per_sec").fixedAxis);
    QVERIFY(!ChartGrouping::placementFor("grad_norm").fixedAxis);
    QVERIFY(!ChartGrouping::placementFor("learning_rate").fixedAxis);
  }

  void howEachScalarIsDrawn() {
    QVERIFY(ChartGrouping::placementFor("cost").primary);
    QVERIFY(ChartGrouping::placementFor("validation_error").primary);
    QVERIFY(ChartGrouping::placementFor("g_loss").primary);
    QVERIFY(!ChartGrouping::placementFor("learning_rate").primary);
    const ChartPlacement rate = ChartGrouping::placementFor("learning_rate");
    QVERIFY(rate.heldValue);
    QCOMPARE(rate.axisLabel, QString("learning rate"));
    QVERIFY(!ChartGrouping::placementFor("cost").heldValue);
    const ChartPlacement queue = ChartGrouping::placementFor("QueueInput/queue_fullness");
    QVERIFY(queue.dataBoundSignal && queue.unitRange);
    QVERIFY(queue.tickFormat == TickFormat::Percent);
    QCOMPARE(queue.axisLabel, QString("% full"));
    QCOMPARE(ChartGrouping::placementFor("QueueInput/queue_size").supersededBy,
             QString("QueueInput/queue_fullness"));
    QCOMPARE(ChartGrouping::placementFor("ThroughputTracker/steps_per_sec").axisLabel,
             QString("steps/s"));
  }

  void identifiersInWords() {
    QCOMPARE(ChartGrouping::inWords("grad_norm"), QString("Grad norm"));
    QCOMPARE(ChartGrouping::inWords("ThroughputTracker"), QString("Throughput tracker"));
    QCOMPARE(ChartGrouping::inWords("GPUUtil"), QString("GPUUtil"));
    QCOMPARE(ChartGrouping::inWords("_"), QString("_"));
  }

  void baseNameAndValidation() {
    QCOMPARE(ChartGrouping::baseName("validation_cost"), QString("cost"));
    QCOMPARE(ChartGrouping::baseName("train_error"), QString("error"));
    QCOMPARE(ChartGrouping::baseName("cost"), QString("cost"));
    QVERIFY(ChartGrouping::isValidation("validation_error"));
    QVERIFY(ChartGrouping::isValidation("test_accuracy"));
    QVERIFY(!ChartGrouping::isValidation("train_error"));
    QVERIFY(!ChartGrouping::isValidation("validation"));
  }
};

}  // namespace test_ChartGrouping

TB_TEST_GUILESS_MAIN(test_ChartGrouping::TestChartGrouping)
#include "test_ChartGrouping.moc"
