// The checkpoint export dialog with a fake exporter: what it lists, what it passes to the
// exporter, the overwrite confirmation, and how it shows success and failure.

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest>

#include <stdexcept>
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryServices.h"
#include "app/gui/rundir/RunCheckpoints.h"

#include "app/gui/history/ExportCheckpointDialog.h"
#include "tests/app/gui/history/RunDirFixture.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ExportCheckpointDialog {

using namespace tbench::gui;
using tbench::gui::testing::FakeRun;
using tbench::gui::testing::writeText;

namespace {

const QString kProject = QStringLiteral("synthetic-mlp");
const QDateTime kStart = QDateTime(QDate(2025, 3, 14), QTime(9, 31, 52));

/// Records its calls; writes "weights of <checkpoint> as <format>" to the destination, or fails
/// with `failWith` as the message.
struct FakeExporter {
  struct Call {
    QString checkpoint, format, out;
    bool weightAverage = false;
  };
  QVector<Call> calls;
  QString failWith;
  bool throwInstead = false;

  tbench::bridge::CheckpointExporter function() {
    return [this](const QString& checkpoint, const QString& format, const QString& out,
                  bool weightAverage, QString* message) {
      calls.push_back({checkpoint, format, out, weightAverage});
      if (throwInstead) throw std::runtime_error("exporter blew up");
      if (!failWith.isEmpty()) {
        *message = failWith;
        return false;
      }
      QFile file(out);
      if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *message = "cannot write " + out;
        return false;
      }
      file.write(QStringLiteral("weights of %1 as %2").arg(checkpoint, format).toUtf8());
      *message = QStringLiteral("wrote %1 (%2) from %3").arg(out, format, checkpoint);
      return true;
    };
  }
};

FakeRun makeRun(const QString& root, const QString& id, const QDateTime& start) {
  FakeRun run(root, kProject, id, start);
  run.writeProject(kProject, 3);
  run.writeStats(3, 32);
  run.writeLog(3, 32);
  run.writeCheckpoints({32, 64, 96}, {32}, 64, 0.125);
  run.age(start.addSecs(300));
  return run;
}

/// The dialog on one finished run (makeRun) in a directory of its own, exporting through a
/// FakeExporter.
struct OneRunDialog {
  QTemporaryDir root;
  const FakeRun run = makeRun(root.path(), "20250314-093152", kStart);
  FakeExporter fake;
  ExportCheckpointDialog dialog{fake.function(), nullptr};
  OneRunDialog() { dialog.setRuns({run.dir}); }
};

QByteArray contents(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class ExportCheckpointDialogTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    installRunDirectoryReaders(
        tbench::bridge::runDirectoryReaders());  // the engine reads the run directory
  }
  void init() {
    QVERIFY(out_.isValid());
    ExportCheckpointDialog::setLastDirectory(out_.path());
  }

  void listsLatestBestAndKeptCheckpoints() {
    QTemporaryDir root;
    const FakeRun first = makeRun(root.path(), "20250314-093152", kStart);
    FakeRun second(root.path(), kProject, "20250315-080000", kStart.addDays(1));
    second.writeCheckpoints({10, 20}, {}, -1, 0, {10});

    FakeExporter fake;
    ExportCheckpointDialog dialog(fake.function(), nullptr);
    dialog.setRuns({second.dir, first.dir}, first.dir);
    auto* runCombo = dialog.findChild<QComboBox*>("runCombo");
    auto* checkpoints = dialog.findChild<QComboBox*>("checkpointCombo");
    QVERIFY(runCombo && checkpoints);
    QCOMPARE(runCombo->count(), 2);
    QCOMPARE(dialog.runDir(), first.dir);  // preselected
    QVERIFY(runCombo->currentText().startsWith("20250314-093152"));

    QStringList labels;
    for (int i = 0; i < checkpoints->count(); ++i) labels << checkpoints->itemText(i);
    QCOMPARE(labels, (QStringList{"latest (step 96)", "best validation_error (step 64)",
                                  "step 96 (model-96.pt)", "step 64 (model-64.pt)",
                                  "step 32 (model-32.pt), kept for good", "Other file\u2026"}));
    QCOMPARE(dialog.checkpointComboCount(), 6);
    QCOMPARE(dialog.checkpointPath(), first.path("model-96.pt"));
    QCOMPARE(dialog.format(), QStringLiteral("pt"));
    QCOMPARE(dialog.destination(),
             QDir(out_.path()).filePath("synthetic-mlp-20250314-093152-step96.pt"));

    dialog.selectCheckpointIndex(1);
    QCOMPARE(dialog.checkpointPath(), first.path("min-validation_error.pt"));
    QCOMPARE(dialog.destination(),
             QDir(out_.path()).filePath("synthetic-mlp-20250314-093152-step64.pt"));
    dialog.setFormat("safetensors");
    QCOMPARE(dialog.destination(),
             QDir(out_.path()).filePath("synthetic-mlp-20250314-093152-step64.safetensors"));

    // The other run: no project.json (the folder names the project), one file gone.
    runCombo->setCurrentIndex(0);
    QCOMPARE(dialog.runDir(), second.dir);
    QCOMPARE(checkpoints->itemText(0), QStringLiteral("latest (step 20)"));
    QCOMPARE(checkpoints->itemText(2), QStringLiteral("step 10 (model-10.pt) \u2014 missing"));
    auto* model = qobject_cast<QStandardItemModel*>(checkpoints->model());
    QVERIFY(model->item(0)->isEnabled());
    QVERIFY(!model->item(2)->isEnabled());
    QCOMPARE(dialog.destination(),
             QDir(out_.path()).filePath("synthetic-mlp-20250315-080000-step20.safetensors"));
  }

  void exportCallsTheExporterWithTheChoices() {
    OneRunDialog d;
    d.dialog.selectCheckpointIndex(4);  // step 32
    d.dialog.setFormat("safetensors");
    const QString dest = QDir(out_.path()).filePath("mine.safetensors");
    d.dialog.setDestination(dest);
    QSignalSpy exported(&d.dialog, &ExportCheckpointDialog::exported);
    bool asked = false;
    d.dialog.setConfirmOverwrite([&](const QString&) { return asked = true; });

    QVERIFY(d.dialog.exportNow());
    QVERIFY(!asked);  // nothing to replace
    QCOMPARE(d.fake.calls.size(), 1);
    QCOMPARE(d.fake.calls[0].checkpoint, d.run.path("model-32.pt"));
    QCOMPARE(d.fake.calls[0].format, QStringLiteral("safetensors"));
    QCOMPARE(d.fake.calls[0].out, dest);
    QVERIFY(!d.fake.calls[0].weightAverage);
    QCOMPARE(exported.count(), 1);
    QCOMPARE(exported.at(0).at(0).toString(), dest);
    const QByteArray written = contents(dest);
    QVERIFY(written.startsWith("weights of"));
    const QString result = d.dialog.resultText();
    QVERIFY2(result.contains("wrote " + dest + " (safetensors)"), qPrintable(result));
    QVERIFY2(result.contains("Wrote " + dest), qPrintable(result));
    QVERIFY2(result.contains(QLocale().formattedDataSize(written.size())), qPrintable(result));
    QCOMPARE(d.dialog.findChild<QLabel*>("resultLabel")->text(), result);

    // The Export button does the same.
    d.dialog.setDestination(QDir(out_.path()).filePath("by-button.safetensors"));
    d.dialog.findChild<QCheckBox*>("weightAverageBox")->setChecked(true);  // the EMA weights
    d.dialog.findChild<QPushButton*>("exportButton")->click();
    QCOMPARE(d.fake.calls.size(), 2);
    QVERIFY(d.fake.calls[1].weightAverage);
    QVERIFY(QFileInfo::exists(QDir(out_.path()).filePath("by-button.safetensors")));
  }

  void neverOverwritesWithoutConfirmation() {
    OneRunDialog d;
    const QString dest = QDir(out_.path()).filePath("taken.pt");
    writeText(dest, "precious");
    d.dialog.setDestination(dest);
    QStringList asked;
    bool answer = false;
    d.dialog.setConfirmOverwrite([&](const QString& path) {
      asked << path;
      return answer;
    });

    QVERIFY(!d.dialog.exportNow());
    QCOMPARE(asked, QStringList{dest});
    QVERIFY(d.fake.calls.isEmpty());
    QCOMPARE(contents(dest), QByteArray("precious"));
    QVERIFY2(d.dialog.resultText().contains("already exists"), qPrintable(d.dialog.resultText()));

    answer = true;
    QVERIFY(d.dialog.exportNow());
    QCOMPARE(asked.size(), 2);
    QCOMPARE(d.fake.calls.size(), 1);
    QVERIFY(contents(dest).startsWith("weights of " + d.run.path("model-96.pt").toUtf8()));

    // Never onto the checkpoint itself, even when confirmed.
    d.dialog.setDestination(d.run.path("model-96.pt"));
    QVERIFY(!d.dialog.exportNow());
    QCOMPARE(d.fake.calls.size(), 1);
    QVERIFY(d.dialog.resultText().contains("checkpoint itself"));
  }

  void showsTheExportersError() {
    OneRunDialog d;
    d.fake.failWith = "unsupported dtype Half in tensor fc.weight";
    d.dialog.setDestination(QDir(out_.path()).filePath("x.pt"));
    QSignalSpy exported(&d.dialog, &ExportCheckpointDialog::exported);
    QVERIFY(!d.dialog.exportNow());
    QCOMPARE(d.fake.calls.size(), 1);
    QCOMPARE(exported.count(), 0);
    const QString result = d.dialog.resultText();
    QVERIFY2(result.contains("Export failed: unsupported dtype Half in tensor fc.weight"),
             qPrintable(result));
    QVERIFY2(result.contains(d.run.path("model-96.pt")), qPrintable(result));  // names the file

    d.fake.failWith.clear();
    d.fake.throwInstead = true;
    QVERIFY(!d.dialog.exportNow());
    QVERIFY(d.dialog.resultText().contains("exporter blew up"));

    // Problems found before the exporter runs.
    d.fake.throwInstead = false;
    d.dialog.setDestination(QDir(out_.path()).filePath("no/such/folder/x.pt"));
    QVERIFY(!d.dialog.exportNow());
    QVERIFY(d.dialog.resultText().contains("does not exist"));
    QCOMPARE(d.fake.calls.size(), 2);
    QVERIFY(QFile::remove(d.run.path("model-96.pt")));
    d.dialog.setDestination(QDir(out_.path()).filePath("y.pt"));
    QVERIFY(!d.dialog.exportNow());
    QVERIFY(d.dialog.resultText().contains(d.run.path("model-96.pt")));
    QCOMPARE(d.fake.calls.size(), 2);
  }

  void exportsAnyOtherFile() {
    OneRunDialog d;
    const QString other = QDir(out_.path()).filePath("model-7000.pt");
    writeText(other, "PK other");
    QString pickerStart;
    QString pick;
    d.dialog.setCheckpointFilePicker([&](const QString& start) {
      pickerStart = start;
      return pick;
    });
    const int otherEntry = d.dialog.checkpointComboCount() - 1;
    d.dialog.selectCheckpointIndex(2);
    d.dialog.selectCheckpointIndex(otherEntry);  // cancelled: back to the previous choice
    QCOMPARE(pickerStart, d.run.dir);
    QCOMPARE(d.dialog.checkpointPath(), d.run.path("model-96.pt"));
    QCOMPARE(d.dialog.checkpointComboCount(), otherEntry + 1);

    pick = other;
    d.dialog.selectCheckpointIndex(otherEntry);
    QCOMPARE(d.dialog.checkpointPath(), other);
    QCOMPARE(d.dialog.checkpointComboCount(), otherEntry + 2);
    QCOMPARE(d.dialog.destination(),
             QDir(out_.path()).filePath("synthetic-mlp-20250314-093152-step7000.pt"));
    d.dialog.setConfirmOverwrite([](const QString&) { return false; });
    QVERIFY(d.dialog.exportNow());
    QCOMPARE(d.fake.calls.last().checkpoint, other);
    // The next default name is in the folder last exported to.
    QCOMPARE(ExportCheckpointDialog::lastDirectory(), out_.path());
  }

  void aRunWithoutCheckpointsOffersOnlyOtherFile() {
    QTemporaryDir root;
    FakeRun run(root.path(), kProject, "empty", kStart);
    FakeExporter fake;
    ExportCheckpointDialog dialog(fake.function(), nullptr);
    dialog.setRuns({run.dir});
    QCOMPARE(dialog.checkpointComboCount(), 1);
    QVERIFY(dialog.checkpointPath().isEmpty());
    QVERIFY(dialog.destination().isEmpty());
    QVERIFY(!dialog.exportNow());
    QVERIFY(fake.calls.isEmpty());
    QVERIFY(dialog.resultText().contains("Choose a checkpoint"));
  }

 private:
  QTemporaryDir out_;
};

}  // namespace test_ExportCheckpointDialog

TB_TEST_MAIN(test_ExportCheckpointDialog::ExportCheckpointDialogTest)
#include "test_ExportCheckpointDialog.moc"
