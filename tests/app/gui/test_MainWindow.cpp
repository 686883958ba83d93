// End to end: the main window offscreen loads the synthetic project, starts it from the Run
// menu's action, shows live curves until the run ends, exports a checkpoint through the File
// menu's action, and the engine loads the exported weights back.
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QIcon>
#include <QImage>
#include <QJsonArray>
#include <QMenu>
#include <QSpinBox>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/HelpBrowser.h"
#include "app/gui/MainWindow.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/history/ExportCheckpointDialog.h"
#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/project/DeviceStrategyPanel.h"
#include "app/gui/runview/LogView.h"
#include "app/gui/runview/RunStatusBar.h"
#include "engine/checkpoint/Checkpoint.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"
#include "widgets/ImagePanel.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/MetricChart.h"

using namespace tbench;
using namespace tbench::gui;

namespace {

QString writeProject(const QTemporaryDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  return tbench::testing::writeProjectFrom(dir, "synthetic.json", [&](nlohmann::json& doc) {
    doc["max_epoch"] = 2;
    if (edit) edit(doc);
  });
}

QAction* action(QWidget& window, const char* name) {
  auto* a = window.findChild<QAction*>(name);
  if (!a) qFatal("no action %s", name);
  return a;
}

/// The text of the front tab in the dock tab bar that has a tab called `tab`.
QString frontTabBeside(QWidget& window, const QString& tab) {
  QCoreApplication::processEvents();  // tab bars follow the dock layout
  for (QTabBar* bar : window.findChildren<QTabBar*>()) {
    for (int i = 0; i < bar->count(); ++i) {
      if (bar->tabText(i) == tab) return bar->tabText(bar->currentIndex());
    }
  }
  return "(no tab " + tab + ")";
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { tbench::testing::prepareWindowTests(settingsDir_); }

  void trainsFromTheRunMenuAndExportsFromTheFileMenu() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(writeProject(dir, {})));
    QVERIFY(window.windowTitle().contains("synthetic-mlp"));
    QVERIFY(action(window, "actionStart")->isEnabled());
    QVERIFY(!action(window, "actionStop")->isEnabled());

    action(window, "actionStart")->trigger();
    QVERIFY(!action(window, "actionStart")->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->state() == bridge::RunState::Finished, 120000);

    // Live curves: the run's cost on the loss chart, every step of both epochs (32 per epoch).
    window.plots()->flush();
    QVERIFY(!window.liveRunId().isEmpty());
    QCOMPARE(window.plots()->runs(), QStringList{window.liveRunId()});
    QVERIFY(!window.plots()->chartTitles().isEmpty());
    QVERIFY(window.plots()->replotCount() > 0);
    ui::SeriesKey cost{window.liveRunId(), "cost"};
    QVERIFY(window.plots()->store().series(cost) != nullptr);
    QCOMPARE(window.plots()->store().series(cost)->size(), 64);
    QCOMPARE(window.runStatusBar()->progressPercent(), 100);
    QVERIFY2(window.runStatusBar()->positionText().contains("epoch 2/2"),
             qPrintable(window.runStatusBar()->positionText()));
    QVERIFY(window.logView()->toPlainText().contains("started from the GUI"));
    QVERIFY(action(window, "actionStart")->isEnabled());

    // The history lists the run as finished.
    window.history()->refresh();
    QCOMPARE(window.history()->runCount(), 1);

    // File > Export Checkpoint… on the run that just ended.
    action(window, "actionExportCheckpoint")->trigger();
    auto* dialog = window.findChild<ExportCheckpointDialog*>("exportCheckpointDialog");
    QVERIFY(dialog);
    QVERIFY(dialog->runDir().endsWith(window.liveRunId()));
    QVERIFY(!dialog->checkpointPath().isEmpty());
    const QString out = dir.filePath("exported.pt");
    dialog->setFormat("pt");
    dialog->setDestination(out);
    QVERIFY2(dialog->exportNow(), qPrintable(dialog->resultText()));
    dialog->close();

    // The engine reads the export back: the same tensors as the checkpoint it came from.
    const TrainingState state = readCheckpointFile(dialog->checkpointPath().toStdString());
    std::ifstream in(out.toStdString(), std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    const auto dict = torch::pickle_load(bytes).toGenericDict();
    QCOMPARE(int(dict.size()), int(state.model.size()));
    for (const auto& [name, tensor] : state.model) {
      QVERIFY2(torch::equal(dict.at(name).toTensor(), tensor), name.c_str());
    }
    QCOMPARE(state.globalStep, qint64(64));
  }

  void showsTheRunsImagesAndThoseOfAPastRun() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QCOMPARE(frontTabBeside(window, "Images"), QString("Project"));
    QVERIFY(window.openProject(writeProject(dir, [](nlohmann::json& doc) {
      doc["callbacks"] = nlohmann::json::array({{{"type", "dump_images"}, {"samples", 4}}});
    })));
    action(window, "actionStart")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->state() == bridge::RunState::Finished, 120000);
    const QString imagesRun = window.runs()->runDir();

    // Both epochs' grids arrived; the first raised the Images tab.
    QCOMPARE(frontTabBeside(window, "Images"), QString("Images"));
    QCOMPARE(window.images()->streamNames(), QStringList{"validation_input"});
    QCOMPARE(window.images()->imageCount(), 2);
    QCOMPARE(window.images()->caption(), QString("validation_input — epoch 2, step 64"));
    QCOMPARE(window.images()->currentImage().size(), QSize(2 * 8 + 3, 2 * 8 + 3));

    // A new run starts with an empty panel.
    QVERIFY(window.openProject(writeProject(dir, [](nlohmann::json& doc) {
      doc["max_epoch"] = 1;
      doc["callbacks"] = nlohmann::json::array();
    })));
    action(window, "actionStart")->trigger();
    QVERIFY(window.images()->streamNames().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->state() == bridge::RunState::Finished, 120000);
    QVERIFY(window.images()->streamNames().isEmpty());

    // Run History > Show images loads the first run's PNG files; the second run has none.
    window.history()->refresh();
    QCOMPARE(window.history()->runCount(), 2);
    for (int row = 0; row < 2; ++row) {
      std::unique_ptr<QMenu> menu(window.history()->createContextMenu(row, &window));
      auto* show = menu->findChild<QAction*>("showImagesAction");
      QVERIFY(show);
      const bool hasImages =
          QFileInfo(window.history()->runDirAt(row)).fileName() == QFileInfo(imagesRun).fileName();
      QCOMPARE(show->isEnabled(), hasImages);
      if (hasImages) show->trigger();
    }
    QCOMPARE(window.images()->imageCount(), 2);
    QCOMPARE(window.images()->caption(), QString("validation_input — epoch 2, step 64"));
  }

  void stopFromTheMenuAndAFailureKeepTheWindow() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(writeProject(dir, [](nlohmann::json& doc) {
      doc["max_epoch"] = 1000;
      doc["callbacks"] = nlohmann::json::array();
    })));
    action(window, "actionStart")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->globalStep() >= 10, 60000);
    QVERIFY(action(window, "actionStop")->isEnabled());
    action(window, "actionStop")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->state() == bridge::RunState::Stopped, 60000);
    QVERIFY(window.logView()->toPlainText().contains("run stopped"));

    // A project whose data cannot be read: the run fails, the window says so and stays usable.
    // (A directory that does not exist is refused before Start: test_InputChecks; this one
    // exists and holds no Fashion-MNIST files.)
    const QString empty = dir.filePath("no-fashion");
    QVERIFY(QDir().mkpath(empty));
    QVERIFY(window.openProject(writeProject(dir, [&](nlohmann::json& doc) {
      doc["data"]["train"] = {{"type", "fashion-mnist"}, {"dir", empty.toStdString()}};
    })));
    action(window, "actionStart")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.runs()->state() == bridge::RunState::Failed, 60000);
    QVERIFY(window.logView()->toPlainText().contains(empty));
    QVERIFY2(window.runStatusBar()->stateText().startsWith("Failed"),
             qPrintable(window.runStatusBar()->stateText()));
    QTRY_VERIFY(window.findChild<QMessageBox*>("messageBox") != nullptr);
    QVERIFY(action(window, "actionStart")->isEnabled());
  }

  // The panel's total is the engine's count: a GAN with d_steps 2 takes two batches per tower.
  void strategyPanelShowsTheEnginesSamplesPerStep() {
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(window.openProject(writeProject(dir, [&](nlohmann::json& doc) {
      doc["model"] = {{"type", "dcgan"}, {"d_steps", 2}};
      doc["data"] = {{"train", {{"type", "fashion-mnist"}, {"limit", 128}}}, {"batch_size", 16}};
      doc["trainer"] = {{"strategy", "sync_replicated"}, {"devices", {"cpu", "cpu"}}};
      doc["callbacks"] = nlohmann::json::array();
    })));
    QVERIFY2(window.editor()->isValid(), qPrintable(window.editor()->issues().value(0).message));
    QCOMPARE(window.editor()->summary().samplesPerStep, qint64(64));
    QVERIFY2(window.devicePanel()->totalBatchText().contains(
                 "16 per tower × 2 tower(s) × 2 discriminator steps = <b>64 samples per step"),
             qPrintable(window.devicePanel()->totalBatchText()));
  }

  void strategyPanelEditsTheProject() {
    QTemporaryDir dir;
    MainWindow window;
    window.setAsker([](auto&&...) { return QMessageBox::Discard; });
    QVERIFY(window.openProject(writeProject(dir, {})));
    auto* combo = window.devicePanel()->findChild<QComboBox*>("strategyCombo");
    auto* towers = window.devicePanel()->findChild<QSpinBox*>("cpuTowers");
    QVERIFY(combo && towers);
    combo->setCurrentIndex(combo->findData("sync_replicated"));
    towers->setValue(2);
    const QJsonObject trainer = window.editor()->trainerSection();
    QCOMPARE(trainer.value("strategy").toString(), QString("sync_replicated"));
    QCOMPARE(trainer.value("devices").toArray().size(), 2);
    QVERIFY(window.editor()->isModified());
    QVERIFY2(window.devicePanel()->totalBatchText().contains("128 samples per step"),
             qPrintable(window.devicePanel()->totalBatchText()));
    window.editor()->validateNow();
    QVERIFY(window.editor()->isValid());
    // Save writes what the panel chose.
    QVERIFY(window.saveProjectAs(dir.filePath("saved.json")));
    QFile saved(dir.filePath("saved.json"));
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QVERIFY(saved.readAll().contains("sync_replicated"));
    QVERIFY(!window.editor()->isModified());
  }

  void templatesAreEmbedded() {
    const QStringList templates = MainWindow::templates();
    QVERIFY2(templates.contains(":/templates/fashion-mnist-convnet.json"),
             qPrintable(templates.join(", ")));
    MainWindow window;
    QVERIFY(window.newFromTemplate(":/templates/synthetic-mlp.json"));
    QVERIFY(window.projectPath().isEmpty());
    QVERIFY(window.windowTitle().contains("untitled"));
    // Every template of projects/ is listed in resources/towerbench.qrc.
    QCOMPARE(templates.size(), QDir(TB_SOURCE_DIR "/projects").entryList({"*.json"}).size());
  }

  // Issue 37: Help had no documentation. Its three documents are in the window (compiled in),
  // one window each, raised when asked again.
  void helpShowsTheGuideAndTheProjectFormat() {
    MainWindow window;
    window.show();
    for (const auto& [action, expected] : {std::pair{"actionHelpGuide", "## Two commands"},
                                           std::pair{"actionHelpProjectFormat", "### init"},
                                           std::pair{"actionHelpWriteATrainer", "Trainer"}}) {
      tbench::testing::windowAction(window, action)->trigger();
      HelpBrowser* shown = nullptr;
      for (auto* b : window.findChildren<HelpBrowser*>()) {
        if (b->markdown().contains(expected)) shown = b;
      }
      QVERIFY2(shown != nullptr && shown->isVisible(), action);
    }
    QCOMPARE(window.findChildren<HelpBrowser*>().size(), 3);
    tbench::testing::windowAction(window, "actionHelpGuide")->trigger();
    QCOMPARE(window.findChildren<HelpBrowser*>().size(), 3);  // the same window again
    if (const QString dir = qEnvironmentVariable("TB_SCREENSHOT_DIR"); !dir.isEmpty()) {
      for (auto* b : window.findChildren<HelpBrowser*>()) {
        if (b->markdown().contains("## Two commands")) {
          QVERIFY(b->grab().save(QDir(dir).filePath("help-guide.png")));
        }
      }
    }
  }

  void theWindowAndTheAboutBoxCarryTheApplicationIcon() {
    // resources/: the icon in the sizes a desktop asks for, from the compiled-in .qrc.
    MainWindow window;
    const QIcon icon = window.windowIcon();
    QVERIFY(!icon.isNull());
    for (int size : {16, 32, 48, 256}) {
      QVERIFY2(icon.availableSizes().contains(QSize(size, size)),
               qPrintable(QString::number(size)));
    }
    QVERIFY(QFile::exists(":/icons/towerbench.svg"));
    const QImage large = icon.pixmap(256, 256).toImage();
    QCOMPARE(large.size(), QSize(256, 256));
    // Not blank: the icon's dark tile fills the centre.
    QVERIFY(qGray(large.pixel(128, 236)) < 100);
  }

 private:
  QTemporaryDir settingsDir_;
};

TB_TEST_MAIN(TestMainWindow)
#include "test_MainWindow.moc"
