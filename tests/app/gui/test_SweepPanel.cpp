// The Sweeps tab through the window: Run Sweep runs a real sweep of the synthetic project
// (towerbench-cli sweep), the table and the parallel-coordinates chart show every trial, and
// Open Best as Project opens the best trial's project as a new one; Run Next and Cancel Trial
// reorder and cancel pending trials, brushing an axis filters the table, and Curves on Plots
// puts the trials on the live plots.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <fstream>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "app/bridge/ProjectViews.h"
#include "app/bridge/SweepServices.h"
#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/sweep/NewSweepDialog.h"
#include "app/gui/sweep/SweepPanel.h"
#include "tests/support/PlotMouse.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/Palette.h"
#include "widgets/RunSelector.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_SweepPanel {

using namespace tbench;
using namespace tbench::gui;
using nlohmann::json;

class TestSweepPanel : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    tbench::testing::prepareWindowTests(settingsDir_);
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
    tbench::testing::showDiscarding(window);
    // Paused before it starts: the panel shows it, no trial starts; Pause Sweep up resumes.
    QString error;
    QVERIFY2(bridge::setSweepPaused(dir.filePath("sd"), true, &error), qPrintable(error));
    QVERIFY(window.runSweepFile(dir.filePath("sweep.json"), dir.filePath("sd")));
    SweepPanel* panel = window.sweepPanel();
    QVERIFY(window.findChild<QDockWidget*>("sweepDock")->isVisible());
    auto* pause = panel->findChild<QPushButton*>("sweep.pause");
    QTRY_VERIFY_WITH_TIMEOUT(panel->state().trials.size() == 4 && pause->isChecked(), 60000);
    for (const auto& t : panel->state().trials)
      QCOMPARE(bridge::toString(t.state), QString("pending"));
    // Trials 0..3: hidden [16] lr 0.05, [16] 1e-7, [32] 0.05, [32] 1e-7 (the first key varies
    // slowest). Run Next on trial 3, Cancel Trial on trial 1, through the selected rows.
    auto* table = panel->findChild<QTableWidget*>("sweep.table");
    auto* runNext = panel->findChild<QPushButton*>("sweep.runNext");
    auto* cancelTrial = panel->findChild<QPushButton*>("sweep.cancelTrial");
    const auto selectTrial = [&](int index) {
      for (int row = 0; row < table->rowCount(); ++row) {
        if (table->item(row, 0)->data(Qt::DisplayRole).toInt() == index) table->selectRow(row);
      }
    };
    QVERIFY(!runNext->isEnabled());  // nothing selected
    selectTrial(3);
    QVERIFY(runNext->isEnabled() && cancelTrial->isEnabled());
    // The selection stays on its trial through a refresh under another sort order.
    table->sortByColumn(0, Qt::DescendingOrder);
    panel->refresh();
    const auto selectedTrial = [&] {
      const auto rows = table->selectionModel()->selectedRows();
      return rows.size() == 1 ? table->item(rows.front().row(), 0)->data(Qt::DisplayRole).toInt()
                              : -1;
    };
    QCOMPARE(selectedTrial(), 3);
    table->sortByColumn(0, Qt::AscendingOrder);
    panel->refresh();
    QCOMPARE(selectedTrial(), 3);
    runNext->click();
    selectTrial(1);
    cancelTrial->click();
    QFile control(dir.filePath("sd/control.json"));
    QVERIFY(control.open(QIODevice::ReadOnly));
    const json asked = json::parse(control.readAll().toStdString());
    QCOMPARE(asked["run_first"], json::array({3}));
    QCOMPARE(asked["cancel"], json::array({1}));
    pause->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 120000);
    panel->refresh();
    const auto& trials = panel->state().trials;
    QCOMPARE(trials.size(), 4);
    for (int i : {0, 2, 3}) {
      QVERIFY2(bridge::toString(trials[i].state) == QLatin1String("finished"),
               qPrintable(bridge::toString(trials[i].state) + " " + trials[i].detail));
    }
    QCOMPARE(bridge::toString(trials[1].state), QString("cancelled"));
    QCOMPARE(trials[1].started, 0.0);
    // Trial 3 ran first (one slot), then 0 and 2 in order.
    QVERIFY(trials[3].started < trials[0].started && trials[0].started < trials[2].started);
    QCOMPARE(table->rowCount(), 4);
    QCOMPARE(table->horizontalHeaderItem(2)->text(), QString("validation_error"));
    auto* plot = panel->findChild<QCustomPlot*>("sweep.coordinates");
    QCOMPARE(plot->plottableCount(), 4);  // one line per trial

    // Brushing: a drag along the learning rate's axis (axis 1; log scale, 0.05 at the top) from
    // above the top to the middle keeps the trials of lr 0.05 and hides the others' rows.
    QCOMPARE(panel->state().parameters, (QStringList{"model.hidden", "optimizer.learning_rate"}));
    tbench::testing::dragAlong(plot, 1, 1.08, 0.7, 0.5);
    QCOMPARE(panel->brushes().size(), 1);
    QVERIFY(panel->brushes().contains(1));
    for (int row = 0; row < table->rowCount(); ++row) {
      const int index = table->item(row, 0)->data(Qt::DisplayRole).toInt();
      QCOMPARE(table->isRowHidden(row), index == 1 || index == 3);
    }
    if (qEnvironmentVariableIsSet("TB_SCREENSHOT_DIR")) {
      window.resize(1280, 800);
      panel->findChild<QPushButton*>("sweep.curves")->click();
      QTest::qWait(600);
      QVERIFY(tbench::testing::screenshot(&window, "sweep-panel.png"));
      panel->findChild<QPushButton*>("sweep.curves")->click();
    }
    // A click on the axis clears its brush.
    QTest::mouseClick(plot, Qt::LeftButton, {}, tbench::testing::plotPixel(plot, 1, 0.3));
    QVERIFY(panel->brushes().isEmpty());
    for (int row = 0; row < table->rowCount(); ++row) QVERIFY(!table->isRowHidden(row));

    // Curves on Plots: the three trials that ran, each a run on the live plots, named.
    panel->findChild<QPushButton*>("sweep.curves")->click();
    QStringList trialRuns;
    for (int i : {0, 2, 3}) trialRuns << QFileInfo(trials[i].runDir).fileName();
    QTRY_VERIFY(std::all_of(trialRuns.begin(), trialRuns.end(), [&](const QString& id) {
      return window.plots()->runs().contains(id) && window.plots()->isRunVisible(id);
    }));
    QVERIFY(!window.plots()->runs().contains(QFileInfo(trials[1].runDir).fileName()));
    // Issue 35: every run on the plots has its own colour (two trials had shared one), and the
    // palette never repeats itself past its ten Tableau colours.
    QSet<QRgb> colours;
    const auto chips = window.plots()->runSelector()->runs();
    for (const ui::RunChip& chip : chips) colours.insert(chip.colour.rgb());
    QCOMPARE(colours.size(), chips.size());
    QSet<QRgb> palette;
    for (int i = 0; i < 60; ++i) palette.insert(ui::Palette::categorical(i).rgb());
    QCOMPARE(palette.size(), 60);
    panel->findChild<QPushButton*>("sweep.curves")->click();  // off: taken off the plots
    for (const QString& id : trialRuns) QVERIFY(!window.plots()->isRunVisible(id));

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

  // Issue 35: closing the window mid-sweep asks; "keep it running" leaves the queue running
  // without the window, a new window shows it as running outside and Stop Sweep stops it, and
  // Continue Sweep then runs what was left.
  void aSweepOutlivesTheWindowAndContinues() {
    QTemporaryDir dir;
    tbench::testing::writeProjectFrom(dir, "base.json", [](json& doc) {
      doc["max_epoch"] = 1;
      doc["callbacks"] = {{{"type", "inference"}}};
    });
    const json sweep = {{"project", "base.json"},
                        {"method", "grid"},
                        {"metric", {{"name", "validation_error"}}},
                        {"parameters", {{"max_epoch", {{"values", {400, 1}}}}}}};
    std::ofstream(dir.filePath("sweep.json").toStdString()) << sweep.dump();
    const QString sweepDir = dir.filePath("sd");
    QStringList asked;
    {
      MainWindow window;
      window.setAsker([&asked](const QString& title, auto&&...) {
        asked << title;
        return QMessageBox::Yes;  // keep it running
      });
      window.show();
      QVERIFY(window.runSweepFile(dir.filePath("sweep.json"), sweepDir));
      QTRY_VERIFY_WITH_TIMEOUT(
          !window.sweepPanel()->state().trials.isEmpty() &&
              bridge::toString(window.sweepPanel()->state().trials[0].state) == "running",
          60000);
      QVERIFY(window.close());
    }
    QVERIFY2(asked.contains("A Sweep Is Running"), qPrintable(asked.join(", ")));
    MainWindow window;
    tbench::testing::showDiscarding(window);
    SweepPanel* panel = window.sweepPanel();
    panel->showSweep(sweepDir);
    QTRY_VERIFY_WITH_TIMEOUT(panel->state().queuePid > 0, 10000);  // alive without its window
    QVERIFY(!panel->isRunning());
    auto* stop = panel->findChild<QPushButton*>("sweep.stop");
    auto* resume = panel->findChild<QPushButton*>("sweep.continue");
    QVERIFY(stop->isEnabled());
    QVERIFY(resume->isHidden());
    QVERIFY(panel->findChild<QLabel*>("sweep.summary")->text().contains("outside this window"));
    stop->click();
    QTRY_VERIFY_WITH_TIMEOUT((panel->refresh(), panel->state().queuePid == 0), 60000);
    QCOMPARE(bridge::toString(panel->state().trials[0].state), QString("cancelled"));
    QCOMPARE(bridge::toString(panel->state().trials[1].state), QString("cancelled"));
    QVERIFY(!resume->isHidden());  // trial 1 never started: Continue runs it
    resume->click();
    QVERIFY(panel->isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 120000);
    panel->refresh();
    QCOMPARE(bridge::toString(panel->state().trials[1].state), QString("finished"));
    QCOMPARE(bridge::toString(panel->state().trials[0].state),
             QString("cancelled"));  // --retry-failed resumes it
  }

  // A "sweep" cell as the sweep file's parameter.
  void parameterCells() {
    QString error;
    QCOMPARE(NewSweepDialog::parameterFromText("1e-4 .. 1e-1", &error),
             (QJsonObject{{"min", 1e-4}, {"max", 0.1}, {"distribution", "log_uniform_values"}}));
    QCOMPARE(NewSweepDialog::parameterFromText("16 .. 256", &error),
             (QJsonObject{{"min", 16}, {"max", 256}, {"distribution", "int_uniform"}}));
    QCOMPARE(NewSweepDialog::parameterFromText("0.1 .. 0.9", &error),
             (QJsonObject{{"min", 0.1}, {"max", 0.9}, {"distribution", "uniform"}}));
    QCOMPARE(NewSweepDialog::parameterFromText("1e-3 .. 1 log", &error).value("distribution"),
             QJsonValue("log_uniform_values"));
    // Whole numbers over two decades: a log range of whole numbers.
    QCOMPARE(NewSweepDialog::parameterFromText("8 .. 1024", &error),
             (QJsonObject{
                 {"min", 8}, {"max", 1024}, {"distribution", "q_log_uniform_values"}, {"q", 1}}));
    QCOMPARE(NewSweepDialog::parameterFromText("1 .. 1e3", &error).value("distribution"),
             QJsonValue("log_uniform_values"));
    QCOMPARE(NewSweepDialog::parameterFromText("adam, sgd", &error),
             (QJsonObject{{"values", QJsonArray{"adam", "sgd"}}}));
    QCOMPARE(NewSweepDialog::parameterFromText("[64], [128, 64]", &error),
             (QJsonObject{{"values", QJsonArray{QJsonArray{64}, QJsonArray{128, 64}}}}));
    QCOMPARE(NewSweepDialog::parameterFromText("0.01, 0.1", &error),
             (QJsonObject{{"values", QJsonArray{0.01, 0.1}}}));
    QVERIFY(NewSweepDialog::parameterFromText("5 .. 1", &error).isEmpty());
    QVERIFY(error.contains("MIN < MAX"));
    QVERIFY(NewSweepDialog::parameterFromText("[64, 128", &error).isEmpty());
    QVERIFY(NewSweepDialog::parameterFromText("  ", &error).isEmpty());
  }

  // Run ▸ New Sweep… on the saved project: its keys listed, the trials counted and timed from
  // its last run, a bad value refused with its path, then Save and Run runs the sweep in the
  // Sweeps tab from the file written beside the project.
  void newSweepFromTheProject() {
    QTemporaryDir dir;
    const QString project = tbench::testing::writeProjectFrom(dir, "mlp.json", [](json& doc) {
      doc["max_epoch"] = 2;
      doc["steps_per_epoch"] = 10;
      doc["callbacks"] = {{{"type", "inference"}}};
    });
    // A finished run of the project: the time estimate's source.
    QProcess train;
    train.start(TB_CLI_PATH, {"train", project});
    QVERIFY(train.waitForFinished(120000));
    QCOMPARE(train.exitCode(), 0);

    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(project));
    tbench::testing::windowAction(window, "actionNewSweep")->trigger();
    auto* dialog = window.findChild<NewSweepDialog*>("newSweepDialog");
    QVERIFY(dialog != nullptr);
    QVERIFY(dialog->isVisible());
    QVERIFY(dialog->keyPaths().contains("optimizer.learning_rate"));
    QVERIFY(dialog->keyPaths().contains("model.hidden"));
    QVERIFY(!dialog->keyPaths().contains("format"));
    // Issue 35: a key the file leaves at its default can be swept too (the registry's keys).
    QVERIFY2(dialog->keyPaths().contains("optimizer.weight_decay"),
             qPrintable(dialog->keyPaths().join(", ")));
    auto* summary = dialog->findChild<QLabel*>("newSweep.summary");
    auto* run = dialog->findChild<QPushButton*>("newSweep.run");
    QVERIFY(summary->text().contains("check at least one key"));
    QVERIFY(!run->isEnabled());

    dialog->setSwept("optimizer.learning_rate", "0.05, -1");
    QTRY_VERIFY2(summary->text().contains("$.optimizer.learning_rate"),
                 qPrintable(summary->text()));
    QVERIFY(!run->isEnabled());
    dialog->setSwept("optimizer.learning_rate", "0.05, 1e-7");
    dialog->setSwept("model.hidden", "[16], [32]");
    QTRY_VERIFY2(summary->text().contains("4 trials</b> of 2 epochs each: about"),
                 qPrintable(summary->text()));
    QVERIFY2(summary->text().contains("s per epoch in "), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains("model.hidden change(s) the time a sample takes"),
             qPrintable(summary->text()));
    // Issue 35: a swept batch size had been ignored. With 10 steps an epoch, batch 64 and 128
    // weigh 1x and 2x the project's epoch of batch 64: 2 learning rates x 2 batch sizes x 2
    // epochs = 12 of the project's epochs, not 8.
    const double fourTrials = dialog->estimatedSeconds();
    QVERIFY(fourTrials > 0);
    dialog->setSwept("model.hidden", "[16]");
    QTRY_VERIFY(summary->text().contains("2 trials</b>"));
    const double perProjectEpoch = dialog->estimatedSeconds() / 4;
    QVERIFY(std::abs(fourTrials - 8 * perProjectEpoch) < 1e-9 * fourTrials);
    dialog->setSwept("data.batch_size", "64, 128");
    QTRY_VERIFY2(summary->text().contains("scaled by each trial's samples per epoch"),
                 qPrintable(summary->text()));
    QVERIFY2(std::abs(dialog->estimatedSeconds() - 12 * perProjectEpoch) < 1e-6 * fourTrials,
             qPrintable(summary->text()));
    // Random search over a range, 3 trials, hyperband.
    dialog->findChild<QComboBox*>("newSweep.method")->setCurrentText("random");
    dialog->setSwept("optimizer.learning_rate", "1e-3 .. 1e-1");
    dialog->findChild<QSpinBox*>("newSweep.runCap")->setValue(3);
    dialog->findChild<QCheckBox*>("newSweep.hyperband")->setChecked(true);
    QTRY_VERIFY2(summary->text().contains("3 trials</b>") && summary->text().contains("hyperband"),
                 qPrintable(summary->text()));
    // Its bands count the metric's values, not epochs.
    QVERIFY2(summary->text().contains("hyperband judges at value(s) 1") &&
                 summary->text().contains(" of validation_error"),
             qPrintable(summary->text()));
    QVERIFY(run->isEnabled());
    // The filter: keys with its text, and the checked ones.
    auto* keys = dialog->findChild<QTableWidget*>("newSweep.keys");
    dialog->findChild<QLineEdit*>("newSweep.filter")->setText("optimizer");
    for (int row = 0; row < keys->rowCount(); ++row) {
      const QString key = keys->item(row, 0)->text();
      QCOMPARE(keys->isRowHidden(row),
               !key.contains("optimizer") && key != "model.hidden" && key != "data.batch_size");
    }
    QVERIFY(tbench::testing::screenshot(dialog, "new-sweep.png"));
    const QString sweepFile = dialog->sweepPath();
    QCOMPARE(QFileInfo(sweepFile).absolutePath(), QFileInfo(project).absolutePath());
    run->click();
    QVERIFY(QFileInfo::exists(sweepFile));
    SweepPanel* panel = window.sweepPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->state().trials.size() == 3, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 120000);
    panel->refresh();
    for (const auto& t : panel->state().trials) {
      QVERIFY2(bridge::toString(t.state) == QLatin1String("finished") ||
                   bridge::toString(t.state) == QLatin1String("pruned"),
               qPrintable(bridge::toString(t.state) + " " + t.detail));
      const double lr = t.values.value("optimizer.learning_rate").toDouble();
      QVERIFY(lr >= 1e-3 && lr <= 1e-1);
    }
  }

  // An untitled project has no file for the trials to run: the user is told to save it.
  void newSweepAsksToSaveFirst() {
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.newFromTemplate(MainWindow::templates().front()));
    QVERIFY(window.newSweep() == nullptr);
    auto* box = window.findChild<QMessageBox*>("messageBox");
    QVERIFY(box != nullptr);
    QVERIFY(box->text().contains("save the project first"));
  }

 private:
  QTemporaryDir settingsDir_;
};

}  // namespace test_SweepPanel

TB_TEST_MAIN(test_SweepPanel::TestSweepPanel)
#include "test_SweepPanel.moc"
