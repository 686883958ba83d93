// Comparing runs in the window (issue 14, item 1), offscreen on the real engine: two runs of a
// project that differ in their learning rate are told apart in Run History by that column;
// overlaid, each has its Run History colour and name on the charts and a chip in the run
// selector; a stopped run resumes from its context menu and continues its curves to the end;
// a finished run is cloned into a new project whose run is listed beside the others.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <memory>

#include <qcustomplot.h>

#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"
#include "widgets/ChartGrouping.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/MetricChart.h"
#include "widgets/RunSelector.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_CompareRuns {

using namespace tbench;
using namespace tbench::gui;
using tbench::testing::windowAction;
using tbench::testing::writeProjectFrom;

namespace {

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

bool chartHasColour(const ui::MetricChart* chart, const QColor& colour) {
  for (int i = 0; i < chart->plot()->graphCount(); ++i) {
    const QCPGraph* graph = chart->plot()->graph(i);
    if (graph->visible() && graph->pen().color() == colour && graph->dataCount() > 0) return true;
  }
  return false;
}

void waitUntilIdle(MainWindow& window) {
  QTRY_VERIFY_WITH_TIMEOUT(!window.runs()->isActive(), 120000);
}

}  // namespace

class TestCompareRuns : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { tbench::testing::isolateSettings(settingsDir_); }

  void comparesResumesAndClonesThroughTheWindow() {
    QTemporaryDir dir;
    MainWindow window;
    window.setAsker([](auto&&...) { return QMessageBox::Discard; });
    window.resize(1280, 800);
    window.show();

    // Run A: stopped early (Stop saves a final checkpoint), so that it can be resumed.
    QVERIFY(window.openProject(writeProjectFrom(dir, "a.json", [](nlohmann::json& doc) {
      doc["max_epoch"] = 2;
      doc["steps_per_epoch"] = 150;
      doc["callbacks"] = nlohmann::json::array();
    })));
    windowAction(window, "actionStart")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->globalStep() >= 10, 60000);
    windowAction(window, "actionStop")->trigger();
    waitUntilIdle(window);
    const QString runA = QDir(window.runs()->runDir()).absolutePath();
    const qint64 stoppedAt = readJson(QDir(runA).filePath("run.json"))["global_step"].toInteger();
    QCOMPARE(readJson(QDir(runA).filePath("run.json"))["state"].toString(), QString("stopped"));
    QVERIFY(stoppedAt < 300);

    // Run B: another learning rate, trained to its end.
    QVERIFY(window.openProject(writeProjectFrom(dir, "b.json", [](nlohmann::json& doc) {
      doc["max_epoch"] = 1;
      doc["steps_per_epoch"] = 40;
      doc["optimizer"]["learning_rate"] = 0.01;
      doc["callbacks"] = nlohmann::json::array();
    })));
    windowAction(window, "actionStart")->trigger();
    waitUntilIdle(window);
    const QString runB = QDir(window.runs()->runDir()).absolutePath();
    const QString idA = QFileInfo(runA).fileName(), idB = QFileInfo(runB).fileName();

    // Run History tells them apart by what differs.
    RunHistoryPanel* history = window.history();
    history->refresh();
    QCOMPARE(history->runCount(), 2);
    const QStringList headers = history->columnHeaders();
    for (const char* header : {"learning_rate", "max_epoch", "steps_per_epoch"}) {
      QVERIFY2(headers.contains(QLatin1String(header)), qPrintable(headers.join(" | ")));
    }

    // Overlaid: one colour per run on every chart and in the run selector, named by its label.
    QVERIFY(history->annotate(runA, "first try", "#baseline"));
    history->setSelectedRuns({runA});
    window.plots()->flush();
    QCOMPARE(window.plots()->runs().size(), 2);
    ui::RunSelector* selector = window.plots()->runSelector();
    QVERIFY(selector->isVisible());
    QCOMPARE(selector->runs().size(), 2);
    QCOMPARE(selector->chip(idA)->text(), QString("first try"));
    const ui::MetricChart* loss = window.plots()->chart(ui::ChartGrouping::lossAndErrorChart());
    QVERIFY(loss);
    QVERIFY(chartHasColour(loss, history->runColour(runA)));
    QVERIFY(chartHasColour(loss, history->runColour(runB)));
    QCOMPARE(loss->legendLabels().count("cost"), 1);  // a scalar once, whatever the runs
    selector->chip(idA)->click();
    window.plots()->flush();
    QVERIFY(!window.plots()->isRunVisible(idA));
    QVERIFY(!loss->isRunVisible(idA));
    QVERIFY(!selector->chip(idA)->isChecked());
    selector->chip(idA)->click();

    // Resume A from its context menu: it continues from its checkpoint to its last epoch, and
    // its curves before the stop stay on the charts.
    {
      std::unique_ptr<QMenu> menu(history->createContextMenu(history->rowOf(runA), &window));
      QAction* resume = menu->findChild<QAction*>("resumeAction");
      QVERIFY(resume->isEnabled());
      resume->trigger();
    }
    QVERIFY(window.runs()->isActive());
    waitUntilIdle(window);
    QCOMPARE(window.liveRunId(), idA);
    const QJsonObject resumed = readJson(QDir(runA).filePath("run.json"));
    QCOMPARE(resumed["state"].toString(), QString("finished"));
    QCOMPARE(resumed["global_step"].toInteger(), 300);
    window.plots()->flush();
    const ui::Series* cost = window.plots()->store().series({idA, "cost"});
    QVERIFY(cost);
    QVERIFY(cost->step(0) <= stoppedAt);
    QCOMPARE(cost->step(cost->size() - 1), 300);

    // Clone B into a new, untitled project, and train it: a third run beside the others.
    {
      std::unique_ptr<QMenu> menu(history->createContextMenu(history->rowOf(runB), &window));
      menu->findChild<QAction*>("cloneAction")->trigger();
    }
    QVERIFY(window.projectPath().isEmpty());
    QCOMPARE(window.editor()->object()["optimizer"].toObject()["learning_rate"].toDouble(), 0.01);
    windowAction(window, "actionStart")->trigger();
    waitUntilIdle(window);
    history->refresh();
    QCOMPARE(history->runCount(), 3);
    const QString runC = QDir(window.runs()->runDir()).absolutePath();
    QVERIFY(runC != runB);
    QCOMPARE(readJson(QDir(runC).filePath("project.json"))["optimizer"]
                 .toObject()["learning_rate"]
                 .toDouble(),
             0.01);
    QVERIFY(history->runColour(runC) != history->runColour(runA));
    QVERIFY(history->runColour(runC) != history->runColour(runB));
  }

 private:
  QTemporaryDir settingsDir_;
};

}  // namespace test_CompareRuns

TB_TEST_MAIN(test_CompareRuns::TestCompareRuns)
#include "test_CompareRuns.moc"
