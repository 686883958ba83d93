// The Sweeps tab through the window: Run Sweep runs a real sweep of the synthetic project
// (towerbench-cli sweep), the table and the parallel-coordinates chart show every trial, and
// Open Best as Project opens the best trial's project as a new one.
#include <QDockWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/sweep/SweepPanel.h"
#include "tests/support/WindowTest.h"

using namespace tbench;
using namespace tbench::gui;
using nlohmann::json;

class TestSweepPanel : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    tbench::testing::isolateSettings(settingsDir_);
    qputenv("TOWERBENCH_CLI", TB_CLI_PATH);
  }

  void runsASweepAndOpensTheBestTrial() {
    QTemporaryDir dir;
    tbench::testing::writeProjectFrom(dir, "base.json", [](json& doc) {
      doc["max_epoch"] = 2;
      doc["callbacks"] = {{{"type", "inference"}}};
    });
    const json sweep = {{"name", "lr"},
                        {"project", "base.json"},
                        {"method", "grid"},
                        {"metric", {{"name", "validation_error"}, {"goal", "minimize"}}},
                        {"parameters",
                         {{"optimizer.learning_rate", {{"values", {0.05, 1e-7}}}},
                          {"model.hidden", {{"values", {json::array({16}), json::array({32})}}}}}}};
    std::ofstream(dir.filePath("sweep.json").toStdString()) << sweep.dump();

    MainWindow window;
    window.setAsker([](auto&&...) { return QMessageBox::Discard; });
    window.show();
    // Paused before it starts: the panel shows it, no trial starts; Pause Sweep up resumes.
    QString error;
    QVERIFY2(bridge::setSweepPaused(dir.filePath("sd"), true, &error), qPrintable(error));
    QVERIFY(window.runSweepFile(dir.filePath("sweep.json"), dir.filePath("sd")));
    SweepPanel* panel = window.sweepPanel();
    QVERIFY(window.findChild<QDockWidget*>("sweepDock")->isVisible());
    auto* pause = panel->findChild<QPushButton*>("sweep.pause");
    QTRY_VERIFY_WITH_TIMEOUT(panel->state().trials.size() == 4 && pause->isChecked(), 60000);
    for (const auto& t : panel->state().trials) QCOMPARE(t.state, QString("pending"));
    pause->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 120000);
    panel->refresh();
    QCOMPARE(panel->state().trials.size(), 4);
    for (const auto& t : panel->state().trials) {
      QVERIFY2(t.state == QLatin1String("finished"), qPrintable(t.state + " " + t.detail));
    }
    auto* table = panel->findChild<QTableWidget*>("sweep.table");
    QCOMPARE(table->rowCount(), 4);
    QCOMPARE(table->horizontalHeaderItem(2)->text(), QString("validation_error"));
    auto* plot = panel->findChild<QCustomPlot*>("sweep.coordinates");
    QCOMPARE(plot->plottableCount(), 4);  // one line per trial

    // The best trial learned (lr 0.05), not the one that could not (1e-7).
    const int best = panel->bestTrial();
    QVERIFY(best >= 0);
    QCOMPARE(panel->state().trials[best].values.value("optimizer.learning_rate").toDouble(), 0.05);
    panel->findChild<QPushButton*>("sweep.openBest")->click();
    QTRY_COMPARE(
        window.editor()->object().value("optimizer").toObject().value("learning_rate").toDouble(),
        0.05);
    QVERIFY(window.projectPath().isEmpty());  // a new, untitled project
  }

 private:
  QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestSweepPanel)
#include "test_SweepPanel.moc"
