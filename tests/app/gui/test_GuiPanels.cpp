// The window's small panels on their own, with fake device lists: no engine, no run.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QToolButton>
#include <QtTest>

#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/project/DeviceStrategyPanel.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunControls.h"
#include "app/gui/runview/RunStatusBar.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_GuiPanels {

using namespace tbench;
using namespace tbench::gui;

namespace {
/// The engine registry's strategies: the panel's picker and settings come from them.
bridge::ComponentKindView strategies() { return *bridge::componentCatalog().kind("strategy"); }

bridge::DeviceEntries cpuAndOneGpu() {
  return {{"cpu", "CPU (2 cores)", ""}, {"cuda:0", "NVIDIA Test GPU", "16 GiB"}};
}
}  // namespace

class TestGuiPanels : public QObject {
  Q_OBJECT

 private slots:
  void devicePanelShowsAndEditsTheTrainer() {
    DeviceStrategyPanel panel(cpuAndOneGpu(), QString(), strategies());
    QSignalSpy changed(&panel, &DeviceStrategyPanel::trainerChanged);
    QJsonObject trainer{{"strategy", "sync_parameter_server"},
                        {"devices", QJsonArray{"cpu", "cuda:0", "cuda:3"}},
                        {"ps_device", "cpu"}};
    panel.setTrainer(trainer);
    QCOMPARE(changed.size(), 0);  // showing is not editing
    QCOMPARE(panel.towerDevices(), (QStringList{"cpu", "cuda:0", "cuda:3"}));
    // The total is the engine's analysis (set by the window), shown, not recomputed.
    bridge::ProjectSummaryView summary;
    summary.batchSize = 32;
    summary.towers = 3;
    summary.batchesPerStep = 6;  // a GAN taking 2 discriminator batches per tower
    summary.samplesPerStep = 192;
    panel.setSummary(summary);
    QVERIFY2(panel.totalBatchText().contains(
                 "32 per tower × 3 tower(s) × 2 discriminator steps = <b>192 samples"),
             qPrintable(panel.totalBatchText()));
    summary.issues.append(bridge::ProjectIssueView{"$.data.batch_size", "must be at least 1"});
    panel.setSummary(summary);
    QVERIFY(panel.totalBatchText().contains("shown when the project is valid"));
    auto* list = panel.findChild<QListWidget*>("deviceList");
    QCOMPARE(list->count(), 3);  // cpu, cuda:0, and the missing cuda:3
    QVERIFY(list->item(2)->text().contains("not on this machine"));

    // Unchecking the GPU and adding a CPU tower.
    list->item(1)->setCheckState(Qt::Unchecked);
    panel.findChild<QSpinBox*>("cpuTowers")->setValue(2);
    QVERIFY(!changed.isEmpty());
    const QJsonObject edited = changed.back().front().toJsonObject();
    QCOMPARE(edited.value("devices").toArray(), (QJsonArray{"cpu", "cpu", "cuda:3"}));
    QCOMPARE(edited.value("ps_device").toString(), QString("cpu"));
    QCOMPARE(edited.value("strategy").toString(), QString("sync_parameter_server"));
  }

  void devicePanelWarnsAboutOneTowerStrategies() {
    DeviceStrategyPanel panel(cpuAndOneGpu(), "no CUDA", strategies());
    panel.setTrainer({{"strategy", "simple"}, {"devices", QJsonArray{"cpu"}}});
    auto* towers = panel.findChild<QSpinBox*>("cpuTowers");
    towers->setValue(2);
    QVERIFY(panel.totalBatchText().contains("trains one tower"));
    auto* combo = panel.findChild<QComboBox*>("strategyCombo");
    combo->setCurrentIndex(combo->findData("sync_replicated"));
    QVERIFY(!panel.totalBatchText().contains("trains one tower"));
    QVERIFY(panel.findChild<QCheckBox*>("averageGradients")->isEnabled());
    QVERIFY(!panel.findChild<QComboBox*>("psDevice")->isEnabled());
    QVERIFY(panel.findChild<QLabel*>("strategyHelp")->text().contains("all-reduced"));
    QCOMPARE(panel.trainer().value("average").toBool(), true);
    towers->setValue(0);
    QVERIFY(panel.totalBatchText().contains("No tower"));
  }

  void statusBarFormatsProgress() {
    RunStatusBar bar;
    bar.setState(bridge::RunState::Running);
    bar.setSamplesPerStep(128);
    bridge::RunProgress p;
    p.epoch = 2;
    p.maxEpoch = 4;
    p.stepInEpoch = 10;
    p.stepsPerEpoch = 100;
    p.globalStep = 110;
    p.stepsPerSecond = 50;
    p.etaSeconds = 5.8;
    bar.setProgress(p);
    QCOMPARE(bar.stateText(), QString("Running"));
    QCOMPARE(bar.progressPercent(), 27);
    QVERIFY(bar.positionText().contains("epoch 2/4"));
    QVERIFY(bar.rateText().contains("50.0 it/s"));
    QVERIFY(bar.rateText().contains("6400 samples/s"));
    QCOMPARE(bar.etaText(), QString("ETA 6s"));
    QCOMPARE(RunStatusBar::formatDuration(3725), QString("1h 02m"));
    QCOMPARE(RunStatusBar::formatDuration(185), QString("3m 05s"));
  }

  void logViewCapsItsLines() {
    LogView view;
    QStringList lines;
    for (int i = 0; i < LogView::kMaxLines + 500; ++i)
      lines << QString("[1123 00:00:00 INF] line %1").arg(i);
    view.appendLines(lines);
    QCOMPARE(view.lineCount(), qint64(LogView::kMaxLines + 500));
    QCOMPARE(view.document()->blockCount(), LogView::kMaxLines);
    QVERIFY(view.toPlainText().endsWith(QString("line %1").arg(LogView::kMaxLines + 499)));
  }

  void runControlsAcceptOnlyPositiveRates() {
    QAction start("Start"), stop("Stop"), pause("Pause"), save("Save");
    start.setObjectName("actionStart");
    RunControls controls(&start, &stop, &pause, &save);
    QSignalSpy requested(&controls, &RunControls::learningRateRequested);
    auto* edit = controls.findChild<QLineEdit*>("learningRateEdit");
    auto* set = controls.findChild<QPushButton*>("setLearningRateButton");
    QVERIFY(!edit->isEnabled());
    controls.setRunActive(true);
    QVERIFY(!set->isEnabled());  // nothing typed yet
    QTest::keyClicks(edit, "3e-4");
    QVERIFY(set->isEnabled());
    set->click();
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.front().front().toDouble(), 3e-4);
    QVERIFY(!set->isEnabled());  // applied
    edit->selectAll();
    QTest::keyClicks(edit, "0");  // kept as typed and flagged, never sent
    QCOMPARE(edit->text(), QStringLiteral("0"));
    QVERIFY(edit->property("invalid").toBool());
    QVERIFY(!set->isEnabled());
    set->click();
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(requested.size(), 1);
    QVERIFY(controls.findChild<QToolButton*>("actionStartButton"));
  }
};

}  // namespace test_GuiPanels

TB_TEST_MAIN(test_GuiPanels::TestGuiPanels)
#include "test_GuiPanels.moc"
