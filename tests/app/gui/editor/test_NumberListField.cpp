// The form's field of a number-list key (an image folder's mean and std), with the real
// registry and validation: shown with commas, typed numbers written as a JSON array of numbers,
// half-typed or wrong text not written but kept and flagged at the field.

#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QtTest>

#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/JsonPath.h"
#include "app/gui/editor/ProjectEditor.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_NumberListField {

using namespace tbench;
using namespace tbench::gui;

class NumberListFieldTest : public QObject {
  Q_OBJECT

 private slots:
  void readsAndWritesNumbers() {
    ProjectEditor editor(bridge::makeProjectServices());
    QString error;
    QVERIFY2(editor.setDocument(R"({"format": 1, "name": "folders", "model": {}, "data": {"train":
        {"type": "image_folder", "dir": "/images", "mean": [0.25, 0.5, 0.75]}}})",
                                &error),
             qPrintable(error));
    auto* mean = editor.findChild<QLineEdit*>("data.train.mean");
    auto* std = editor.findChild<QLineEdit*>("data.train.std");
    QVERIFY(mean != nullptr && std != nullptr);
    QCOMPARE(mean->text(), QStringLiteral("0.25, 0.5, 0.75"));
    QCOMPARE(std->text(), QString());  // the default, []

    mean->selectAll();
    QTest::keyClicks(mean, "0.485, 0.456, 0.406");
    QCOMPARE(valueAt(editor.object(), "data.train.mean").toArray(),
             (QJsonArray{0.485, 0.456, 0.406}));
    QTest::keyClicks(mean, ", ");  // half-typed: the numbers before it stay written
    QCOMPARE(valueAt(editor.object(), "data.train.mean").toArray().size(), 3);
    auto* issue = editor.findChild<QLabel*>("data.train.mean.issue");
    QVERIFY(issue != nullptr);
    QCOMPARE(issue->text(), QStringLiteral("element 4, \"\", is not a number"));

    std->selectAll();
    QTest::keyClicks(std, "2.5e-1");
    QCOMPARE(valueAt(editor.object(), "data.train.std").toArray(), QJsonArray{0.25});
    QTest::keyClicks(std, "x");  // kept as typed, flagged, not written
    QCOMPARE(std->text(), QStringLiteral("2.5e-1x"));
    QCOMPARE(valueAt(editor.object(), "data.train.std").toArray(), QJsonArray{0.25});
    QCOMPARE(editor.findChild<QLabel*>("data.train.std.issue")->text(),
             QStringLiteral("element 1, \"2.5e-1x\", is not a number"));
  }
};

}  // namespace test_NumberListField

TB_TEST_MAIN(test_NumberListField::NumberListFieldTest)
#include "test_NumberListField.moc"
