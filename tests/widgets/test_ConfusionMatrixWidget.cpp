// ConfusionMatrixWidget: cells, row-normalised colours, tooltips and the rendered pixels of a
// real widget under the offscreen platform.

#include <QElapsedTimer>
#include <QtTest>

#include "tests/support/TestMain.h"
#include "widgets/ConfusionMatrixWidget.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ConfusionMatrixWidget {

using tbench::ui::ConfusionMatrixWidget;

class TestConfusionMatrixWidget : public QObject {
  Q_OBJECT

 private slots:
  void drawsRowNormalisedCellsWithTooltips() {
    ConfusionMatrixWidget widget;
    widget.resize(420, 420);
    widget.setMatrix({"T-shirt", "Trouser", "Bag"}, {{8, 2, 0}, {0, 5, 0}, {1, 1, 2}});
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));

    QCOMPARE(widget.rowShare(0, 0), 0.8);
    QCOMPARE(widget.rowShare(2, 2), 0.5);
    const QRect diagonal = widget.cellRect(1, 1);
    QVERIFY(!diagonal.isNull());
    QVERIFY(widget.rect().contains(widget.cellRect(2, 2)));
    QCOMPARE(widget.cellAt(diagonal.center()), qMakePair(1, 1));
    QCOMPARE(widget.cellAt(QPoint(1, 1)), qMakePair(-1, -1));
    QCOMPARE(widget.toolTipAt(widget.cellRect(0, 1).center()),
             QString("true T-shirt → predicted Trouser: 2 of 10 (20.0%)"));

    const QImage image = widget.grab().toImage();
    // A full row share is dark blue; an empty cell white (sampled off the count's text).
    const QRect full = widget.cellRect(1, 1);
    QCOMPARE(image.pixelColor(full.left() + 2, full.top() + 2),
             ConfusionMatrixWidget::colorOf(1.0));
    const QRect empty = widget.cellRect(1, 0);
    QCOMPARE(image.pixelColor(empty.left() + 2, empty.top() + 2), QColor(Qt::white));
    const QRect partial = widget.cellRect(0, 0);
    QCOMPARE(image.pixelColor(partial.left() + 2, partial.top() + 2),
             ConfusionMatrixWidget::colorOf(0.8));
  }

  // 1000 classes (ImageNet's): the whole matrix stays inside the widget and every point of it
  // names a cell.
  void aThousandClassesFitAndPaintQuickly() {
    const int k = 1000;
    QStringList names;
    QVector<QVector<qint64>> counts(k, QVector<qint64>(k, 0));
    for (int i = 0; i < k; ++i) {
      names << QString("class %1 with a long name").arg(i);
      counts[i][i] = 40;
      counts[i][(i + 1) % k] = 10;
    }
    ConfusionMatrixWidget widget;
    widget.resize(700, 700);
    widget.setMatrix(names, counts);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QVERIFY(widget.rect().contains(widget.cellRect(k - 1, k - 1)));
    QCOMPARE(widget.rowShare(k - 1, 0), 0.2);
    // About two cells per pixel: a point names one of the cells drawn there.
    const QPoint point = widget.cellRect(500, 501).center();
    const auto [t, p] = widget.cellAt(point);
    QVERIFY(std::abs(t - 500) <= 1 && std::abs(p - 501) <= 1);
    QVERIFY(widget.cellRect(t, p).contains(point));
    QVERIFY(widget.toolTipAt(point).contains("of 50"));
    QElapsedTimer timer;
    timer.start();
    const QImage image = widget.grab().toImage();
    qInfo("painted 1000 x 1000 cells in %lld ms", timer.elapsed());  // a figure, not a test
    // The diagonal is dark, the rest white.
    QVERIFY(image.pixelColor(widget.cellRect(500, 500).center()).blue() < 200);
    QCOMPARE(image.pixelColor(widget.cellRect(500, 100).center()), QColor(Qt::white));
  }

  void rejectsAMatrixOfTheWrongShape() {
    ConfusionMatrixWidget widget;
    widget.setMatrix({"a", "b"}, {{1, 2}});
    QVERIFY(widget.classNames().isEmpty());
    QVERIFY(widget.cellRect(0, 0).isNull());
    widget.setMatrix({"a", "b"}, {{1, 2}, {3, 4}});
    QCOMPARE(widget.counts()[1][0], qint64{3});
    widget.setMatrix({}, {});
    QVERIFY(widget.counts().isEmpty());
  }
};

}  // namespace test_ConfusionMatrixWidget

TB_TEST_MAIN(test_ConfusionMatrixWidget::TestConfusionMatrixWidget)
#include "test_ConfusionMatrixWidget.moc"
