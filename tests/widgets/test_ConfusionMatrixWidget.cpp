// ConfusionMatrixWidget: cells, row-normalised colours, tooltips and the rendered pixels of a
// real widget under the offscreen platform.

#include <QtTest>

#include "widgets/ConfusionMatrixWidget.h"

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

QTEST_MAIN(TestConfusionMatrixWidget)
#include "test_ConfusionMatrixWidget.moc"
