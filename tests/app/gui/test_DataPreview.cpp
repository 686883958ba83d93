// The data preview through the window: Run > Preview Data opens it on the editor's document, the
// engine's first training samples arrive off the GUI thread and fill the grid (images) or the
// row table (feature vectors) with their labels, and the class counts; a source that cannot be
// opened says why, naming the file.
#include <QAction>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/bridge/ProjectViews.h"
#include "app/gui/MainWindow.h"
#include "app/gui/project/DataPreviewDialog.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_DataPreview {

using namespace tbench;
using namespace tbench::gui;

namespace {

QString writeProject(const QTemporaryDir& dir, const nlohmann::json& train) {
  return tbench::testing::writeProjectFrom(dir, "project.json", [&](nlohmann::json& doc) {
    doc["data"]["train"] = train;
    doc["data"].erase("validation");
    doc["callbacks"] = nlohmann::json::array();
  });
}

/// Opens `project` in a window, triggers Run > Preview Data and waits for the preview.
DataPreviewDialog* preview(MainWindow& window, const QString& project) {
  tbench::testing::showDiscarding(window);
  if (!window.openProject(project)) return nullptr;
  auto* action = window.findChild<QAction*>("actionPreviewData");
  if (action == nullptr) return nullptr;
  action->trigger();
  auto* dialog = window.findChild<DataPreviewDialog*>("dataPreviewDialog");
  if (dialog == nullptr) return nullptr;
  QSignalSpy shown(dialog, &DataPreviewDialog::shown);
  if (!shown.wait(60000)) return nullptr;
  return dialog;
}

}  // namespace

class TestDataPreview : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { tbench::testing::prepareWindowTests(settingsDir_); }

  void imagesWithLabelsAndClassCounts() {
    QTemporaryDir dir;
    MainWindow window;
    DataPreviewDialog* dialog = preview(window, writeProject(dir, {{"type", "synthetic"},
                                                                   {"num_samples", 300},
                                                                   {"image_size", 12},
                                                                   {"num_classes", 4}}));
    QVERIFY(dialog != nullptr);
    QVERIFY(dialog->isVisible());
    const bridge::DataPreviewView& view = dialog->preview();
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QCOMPARE(view.pixels.size(), DataPreviewDialog::kSamples);
    QCOMPARE(view.labels.size(), DataPreviewDialog::kSamples);
    QCOMPARE(view.height, 12);
    QCOMPARE(view.pixels.front().size(), qsizetype{12 * 12});
    QCOMPARE(view.classNames, (QStringList{"0", "1", "2", "3"}));
    // Synthetic labels are drawn when the data is generated: the counts are not known upfront.
    QVERIFY(view.classCounts.isEmpty());
    // Each sample is scaled for display from its own range: something is black, something white.
    const auto* first = reinterpret_cast<const uchar*>(view.pixels.front().constData());
    const auto [lo, hi] = std::minmax_element(first, first + view.pixels.front().size());
    QCOMPARE(*lo, uchar(0));
    QCOMPARE(*hi, uchar(255));
    // On screen: a picture and its label per sample, a row per class.
    auto* label = dialog->findChild<QLabel*>("sampleLabel5");
    QVERIFY(label != nullptr);
    QCOMPARE(label->text(), view.labels[5]);
    QVERIFY(!dialog->findChild<QLabel*>("sample31")->pixmap().isNull());
    auto* classes = dialog->findChild<QTableWidget*>("classTable");
    QCOMPARE(classes->rowCount(), 4);
    QCOMPARE(classes->item(2, 1)->text(), QString("?"));

    // Refresh reads the (edited) document again: the same first samples for the same seed.
    const QStringList before = view.labels;
    QSignalSpy shown(dialog, &DataPreviewDialog::shown);
    dialog->findChild<QPushButton*>("refreshButton")->click();
    QVERIFY(dialog->busy());
    QVERIFY(shown.wait(60000));
    QCOMPARE(dialog->preview().labels, before);
  }

  void tableRows() {
    QTemporaryDir dir;
    QVERIFY(testing::runPython({"-c",
                                "import sys, numpy as np; d = sys.argv[1]\n"
                                "np.save(d + '/x.npy', np.arange(40 * 3, dtype='<f4')"
                                ".reshape(40, 3))\n"
                                "np.save(d + '/y.npy', (np.arange(40) % 2).astype('<i8'))",
                                dir.path()})
                .ok);
    MainWindow window;
    DataPreviewDialog* dialog =
        preview(window, writeProject(dir, {{"type", "numpy"},
                                           {"features", dir.filePath("x.npy").toStdString()},
                                           {"labels", dir.filePath("y.npy").toStdString()}}));
    QVERIFY(dialog != nullptr);
    const bridge::DataPreviewView& view = dialog->preview();
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QVERIFY(view.pixels.isEmpty());
    QCOMPARE(view.rows.size(), DataPreviewDialog::kSamples);
    QCOMPARE(view.rows.front().size(), 3);
    auto* rows = dialog->findChild<QTableWidget*>("rowTable");
    QVERIFY(rows != nullptr);
    QCOMPARE(rows->rowCount(), DataPreviewDialog::kSamples);
    QCOMPARE(rows->columnCount(), 4);                                // label + 3 features
    QCOMPARE(rows->horizontalHeaderItem(1)->text(), QString("x0"));  // .npy has no names
    // The row shown is the sample the engine gave: feature j of sample i is 3 i + j.
    const double x0 = view.rows[0][0];
    QCOMPARE(view.rows[0][1], x0 + 1);
    QCOMPARE(view.labels[0], QString::number(int(x0 / 3) % 2));
    QCOMPARE(view.classCounts, (QList<qint64>{20, 20}));
  }

  void csvColumnsKeepTheirHeaderNames() {
    QTemporaryDir dir;
    {
      std::ofstream csv(dir.filePath("t.csv").toStdString());
      csv << "width,height,kind\n";
      for (int i = 0; i < 40; ++i) csv << i << "," << 2 * i << "," << (i % 2 ? "b" : "a") << "\n";
    }
    MainWindow window;
    DataPreviewDialog* dialog =
        preview(window, writeProject(dir, {{"type", "csv"},
                                           {"path", dir.filePath("t.csv").toStdString()},
                                           {"header", true},
                                           {"target", "kind"}}));
    QVERIFY(dialog != nullptr);
    QVERIFY2(dialog->preview().error.isEmpty(), qPrintable(dialog->preview().error));
    auto* rows = dialog->findChild<QTableWidget*>("rowTable");
    QVERIFY(rows != nullptr);
    QCOMPARE(rows->horizontalHeaderItem(1)->text(), QString("width"));
    QCOMPARE(rows->horizontalHeaderItem(2)->text(), QString("height"));
    QCOMPARE(dialog->preview().classNames, (QStringList{"a", "b"}));
    QCOMPARE(dialog->preview().classCounts, (QList<qint64>{20, 20}));
  }

  void aSourceThatCannotOpenSaysWhy() {
    QTemporaryDir dir;
    MainWindow window;
    const std::string missing = dir.filePath("nothere.npy").toStdString();
    DataPreviewDialog* dialog = preview(
        window, writeProject(dir, {{"type", "numpy"}, {"features", missing}, {"labels", missing}}));
    QVERIFY(dialog != nullptr);
    QVERIFY(dialog->preview().error.contains("nothere.npy"));
    QVERIFY(dialog->findChild<QLabel*>("summaryLabel")->text().startsWith("No preview"));
    QVERIFY(dialog->findChild<QLabel*>("sample0") == nullptr);
  }

 private:
  QTemporaryDir settingsDir_;
};

}  // namespace test_DataPreview

TB_TEST_MAIN(test_DataPreview::TestDataPreview)
#include "test_DataPreview.moc"
