// The "Learned" tab and the Try-it dialog through their controls, offscreen: the panel reads a
// confusion file as the engine writes it and follows new epochs; the dialog sends the query its
// controls describe to its runner (a stub here) off the GUI thread and shows the answer; and a
// real run in the window, whose misclassified samples are tried with its checkpoint.

#include <QtTest>

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include "app/gui/MainWindow.h"
#include "app/gui/learned/ConfusionPanel.h"
#include "app/gui/learned/MisclassifiedView.h"
#include "app/gui/learned/TryItDialog.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"
#include "widgets/ConfusionMatrixWidget.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Learned {

using namespace tbench;

namespace {

void writeConfusion(const QString& runDir, int epoch, int diagonal) {
  QDir().mkpath(runDir + "/confusion");
  QFile file(QString("%1/confusion/epoch-%2.json").arg(runDir).arg(epoch));
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(QString(R"({"epoch": %1, "global_step": %2, "class_names": ["cat", "dog"],
    "counts": [[%3, 1], [2, 5]], "samples": %4, "accuracy": 0.5,
    "per_class": [{"name": "cat", "samples": 4, "precision": 0.6, "recall": 0.75},
                  {"name": "dog", "samples": 7, "precision": null, "recall": 0.71}],
    "misclassified": [{"index": 3, "true": 0, "predicted": 1}]})")
                 .arg(epoch)
                 .arg(epoch * 10)
                 .arg(diagonal)
                 .arg(diagonal + 8)
                 .toUtf8());
}

}  // namespace

class TestLearned : public QObject {
  Q_OBJECT

 private slots:
  void panelShowsTheLatestEpochAndFollowsNewOnes() {
    QTemporaryDir run;
    writeConfusion(run.path(), 1, 3);
    gui::ConfusionPanel panel;
    panel.resize(500, 600);
    panel.show();
    panel.setRunDirectory(run.path());
    QCOMPARE(panel.shown().epoch, qint64{1});
    QCOMPARE(panel.matrix()->counts()[0][0], qint64{3});
    QCOMPARE(panel.matrix()->classNames(), QStringList({"cat", "dog"}));
    QCOMPARE(panel.findChild<QTableWidget*>("confusionClasses")->item(1, 2)->text(),
             QString("–"));  // undefined precision
    QVERIFY(panel.findChild<QLabel*>("confusionSummary")->text().contains("epoch 1"));

    QSignalSpy shown(&panel, &gui::ConfusionPanel::matrixShown);
    writeConfusion(run.path(), 2, 9);  // the next validation pass, found by the timer
    QVERIFY(shown.wait(3000));
    QCOMPARE(panel.shown().epoch, qint64{2});
    QCOMPARE(panel.matrix()->counts()[0][0], qint64{9});
    QCOMPARE(panel.epochChooser()->count(), 3);  // Latest, 1, 2

    panel.epochChooser()->setCurrentIndex(1);  // the user picks epoch 1: it stays
    emit panel.epochChooser()->activated(1);
    QCOMPARE(panel.shown().epoch, qint64{1});
    writeConfusion(run.path(), 3, 4);
    panel.refresh();
    QCOMPARE(panel.shown().epoch, qint64{1});
  }

  void tryItSendsTheControlsQueryAndShowsBars() {
    bridge::TryItQuery seen;
    bridge::TryItRunner runner = [&seen](const bridge::TryItQuery& q) {
      seen = q;
      bridge::TryItView view;
      view.classNames = {"cat", "dog", "bird"};
      view.probabilities = {0.7, 0.2, 0.1};
      view.top = {{0, "cat", 0.7}, {1, "dog", 0.2}};
      view.width = view.height = 2;
      view.channels = 1;
      view.pixels = QByteArray("\x00\x40\x80\xff", 4);
      view.trueClass = 1;
      return view;
    };
    gui::TryItDialog dialog(runner, "/runs/a/model-10.pt");
    dialog.show();
    auto* kind = dialog.findChild<QComboBox*>("tryItKind");
    kind->setCurrentIndex(1);  // dataset sample
    QVERIFY(!dialog.findChild<QLineEdit*>("tryItPath")->isEnabled());
    dialog.findChild<QComboBox*>("tryItSplit")->setCurrentIndex(1);
    dialog.findChild<QSpinBox*>("tryItIndex")->setValue(17);
    dialog.findChild<QSpinBox*>("tryItTopN")->setValue(2);
    QSignalSpy shown(&dialog, &gui::TryItDialog::resultShown);
    QTest::mouseClick(dialog.findChild<QPushButton*>("tryItClassify"), Qt::LeftButton);
    QVERIFY(shown.wait(3000));
    QCOMPARE(seen.checkpoint, QString("/runs/a/model-10.pt"));
    QVERIFY(seen.kind == bridge::TryItQuery::Kind::DatasetSample);
    QCOMPARE(seen.split, QString("train"));
    QCOMPARE(seen.index, qint64{17});
    QCOMPARE(seen.topN, 2);
    auto* table = dialog.findChild<QTableWidget*>("tryItClasses");
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(0, 0)->text(), QString("cat"));
    QCOMPARE(table->item(1, 0)->text(), QString("dog (true class)"));
    QCOMPARE(qobject_cast<QProgressBar*>(table->cellWidget(0, 1))->value(), 700);
    QVERIFY(!dialog.findChild<QLabel*>("tryItImage")->pixmap().isNull());
    QVERIFY(dialog.findChild<QLabel*>("tryItStatus")->text().contains("missed"));
  }

  void tryItShowsTheEnginesError() {
    gui::TryItDialog dialog(
        [](const bridge::TryItQuery&) {
          bridge::TryItView view;
          view.error = "this model predicts targets, not classes";
          return view;
        },
        "/runs/b/model-1.pt");
    QSignalSpy shown(&dialog, &gui::TryItDialog::resultShown);
    dialog.classify();
    QVERIFY(shown.wait(3000));
    QVERIFY(dialog.findChild<QLabel*>("tryItStatus")->text().contains("targets, not classes"));
    QCOMPARE(dialog.findChild<QTableWidget*>("tryItClasses")->rowCount(), 0);

    gui::TryItDialog empty([](const bridge::TryItQuery&) { return bridge::TryItView(); }, "");
    empty.classify();  // no checkpoint: told at once, nothing run
    QVERIFY(empty.result().error.contains("checkpoint"));
  }

  // A real run, in the window: the engine's confusion file and misclassified grid reach the
  // Learned tab; a clicked tile opens Try it on that validation sample with the run's final
  // checkpoint, whose answer is the pass's (the same weights): its true class and prediction.
  void aRealRunsMistakesAreShownAndTriedInTheWindow() {
    QTemporaryDir dir;
    gui::MainWindow window;
    window.setAsker([](auto&&...) { return QMessageBox::Discard; });
    window.resize(1280, 800);
    window.show();
    QVERIFY(
        window.openProject(testing::writeProjectFrom(dir, "learned.json", [](nlohmann::json& doc) {
          doc["max_epoch"] = 1;
          doc["data"]["train"]["noise"] = 4.0;  // hard enough for mistakes after one epoch
          doc["data"]["validation"]["noise"] = 4.0;
          doc["callbacks"] = nlohmann::json::array(
              {{{"type", "inference"}}, {{"type", "model_saver"}, {"max_to_keep", 1}}});
        })));
    testing::windowAction(window, "actionStart")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!window.runs()->isActive(), 120000);
    const QString runDir = window.runs()->runDir();
    gui::ConfusionPanel* panel = window.confusionPanel();
    panel->refresh();
    QCOMPARE(panel->shown().epoch, qint64{1});
    QVERIFY(panel->shown().error.isEmpty());
    QCOMPARE(panel->matrix()->classNames().size(), 4);
    // One tile per listed mistake, each a real one.
    const auto& wrong = panel->shown().misclassified;
    QVERIFY(!wrong.isEmpty());
    QVERIFY(QFileInfo::exists(QDir(runDir).filePath("confusion/epoch-1-misclassified.png")));
    gui::MisclassifiedView* view = panel->misclassified();
    QCOMPARE(view->tileCount(), int(wrong.size()));
    QVERIFY(panel->findChild<QLabel*>("misclassifiedCaption")->text().contains("wrong samples"));
    for (const auto& w : wrong) QVERIFY(w.trueClass != w.predicted);
    // The first tile, clicked where it is drawn.
    window.findChild<QDockWidget*>("learnedDock")->raise();
    QTRY_VERIFY(view->isVisible() && view->width() > 0);
    QPoint tile0;
    for (int y = 0; y < view->height() && tile0.isNull(); ++y)
      for (int x = 0; x < view->width() && tile0.isNull(); ++x)
        if (view->tileAt({x, y}) == 0) tile0 = {x + 2, y + 2};
    QVERIFY(!tile0.isNull());
    QVERIFY(view->tileText(0).contains(QString("validation sample %1").arg(wrong[0].index)));
    QTest::mouseClick(view, Qt::LeftButton, {}, tile0);
    auto* dialog = window.findChild<gui::TryItDialog*>("tryItDialog");
    QVERIFY(dialog);
    QCOMPARE(dialog->query().kind, bridge::TryItQuery::Kind::DatasetSample);
    QCOMPARE(dialog->query().index, wrong[0].index);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->busy(), 60000);
    const bridge::TryItView& answer = dialog->result();
    QVERIFY2(answer.error.isEmpty(), qPrintable(answer.error));
    QCOMPARE(answer.trueClass, int(wrong[0].trueClass));
    QCOMPARE(qint64(answer.top.first().index), wrong[0].predicted);
    double sum = 0;
    for (const auto& c : dialog->result().top) sum += c.probability;
    QVERIFY(sum <= 1.0 + 1e-6);
    // The Learned tab's images did not bring the Images tab up.
    QVERIFY(window.findChild<QDockWidget*>("learnedDock")->isVisible());
    dialog->close();
  }

 private:
  QTemporaryDir settingsDir_;

 private slots:
  void initTestCase() { testing::isolateSettings(settingsDir_); }
};

}  // namespace test_Learned

TB_TEST_MAIN(test_Learned::TestLearned)
#include "test_Learned.moc"
