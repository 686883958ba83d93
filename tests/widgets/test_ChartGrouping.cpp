// ChartGrouping: which chart and axis each scalar name lands on.

#include <QtTest>

#include "widgets/ChartGrouping.h"

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
                                   << "learning_rate" << false << true << "learning_rate";
    QTest::newRow("prefix") << "ThroughputTracker/steps_per_sec"
                            << "ThroughputTracker" << false << false << "steps_per_sec";
    QTest::newRow("prefix 2") << "ThroughputTracker/samples_per_sec"
                              << "ThroughputTracker" << false << false << "samples_per_sec";
    QTest::newRow("queue") << "QueueInput/queue_size"
                           << "QueueInput" << false << false << "queue_size";
    QTest::newRow("a prefix wins over the loss rule") << "GAN/loss"
                                                      << "GAN" << false << false << "loss";
    QTest::newRow("user scalar") << "grad_norm"
                                 << "grad_norm" << false << false << "grad_norm";
    QTest::newRow("its validation twin") << "validation_grad_norm"
                                         << "grad_norm" << false << false << "validation_grad_norm";
    QTest::newRow("a bare prefix is a name") << "validation_"
                                             << "validation_" << false << false << "validation_";
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

QTEST_GUILESS_MAIN(TestChartGrouping)
#include "test_ChartGrouping.moc"
