// Reading run directories (status, progress, scalars, checkpoints; damaged files) and the run
// history panel (rows, overlay selection, context menu, automatic and manual refresh).

#include <QAction>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryServices.h"
#include "app/gui/rundir/RunCheckpoints.h"

#include <QSysInfo>

#include <sys/wait.h>
#include <unistd.h>
#include <cmath>
#include <memory>

#include "app/gui/history/RunHistoryPanel.h"
#include "app/gui/history/RunHistoryRows.h"
#include "app/gui/rundir/RunAnnotations.h"
#include "app/gui/rundir/RunComparison.h"
#include "app/gui/rundir/RunDirectoryInfo.h"
#include "app/gui/rundir/RunStats.h"
#include "tests/app/gui/history/RunDirFixture.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_RunHistory {

using namespace tbench::gui;
using tbench::gui::testing::FakeRun;
using tbench::gui::testing::logLine;
using tbench::gui::testing::writeText;

namespace {

const QString kProject = QStringLiteral("synthetic-mlp");
// Whole seconds: the log keeps no fraction.
const QDateTime kStart = QDateTime(QDate(2025, 3, 14), QTime(9, 31, 52));

/// A run that trained all of its 3 epochs of 32 steps and kept three checkpoints.
FakeRun finishedRun(const QString& root, const QString& runId, const QDateTime& start) {
  FakeRun run(root, kProject, runId, start);
  run.writeProject(kProject, 3);
  run.writeStats(3, 32);
  run.writeLog(3, 32, {QString(logLine(start, "INF", "ModelSaver: saved model-96.pt")).trimmed()});
  run.writeCheckpoints({32, 64, 96}, {32}, 64, 0.125);
  // The log has no year: it comes from the files' times, so they must be of the run's time.
  run.age(start.addSecs(300));
  return run;
}

QString cellText(const QTableWidget* table, int row, const QString& header) {
  for (int c = 0; c < table->columnCount(); ++c) {
    if (table->horizontalHeaderItem(c)->text() == header) {
      return table->item(row, c) ? table->item(row, c)->text() : QString();
    }
  }
  return QStringLiteral("<no column %1>").arg(header);
}

}  // namespace

class RunHistoryTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    installRunDirectoryReaders(
        tbench::bridge::runDirectoryReaders());  // the engine reads the run directory
  }
  void readsAFinishedRun() {
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "20250314-093152", kStart);
    const RunDirectoryInfo info = readRunDirectory(run.dir);

    QCOMPARE(info.dir, QDir(run.dir).absolutePath());
    QCOMPARE(info.runId, QStringLiteral("20250314-093152"));
    QCOMPARE(info.projectName, kProject);
    QCOMPARE(toString(info.status), QStringLiteral("finished"));
    QCOMPARE(info.startTime, kStart);
    QCOMPARE(info.command, QStringLiteral("towerbench-cli train project.json"));
    QCOMPARE(info.lastEpoch, 3);
    QCOMPARE(info.lastGlobalStep, 96);
    QCOMPARE(info.maxEpoch, 3);
    QCOMPARE(info.lastScalars.keys(), (QStringList{"cost", "train_error", "validation_error"}));
    QCOMPARE(info.lastScalars.value("cost"), 1.0 / 3);
    QCOMPARE(info.lastScalars.value("validation_error"), 0.4 / 3);
    QVERIFY2(info.problems().isEmpty(), qPrintable(info.problems().join("; ")));

    const RunCheckpoints& c = info.checkpoints;
    QVERIFY(c.fromIndex);
    QCOMPARE(c.latest.file, QStringLiteral("model-96.pt"));
    QCOMPARE(c.latest.globalStep, 96);
    QVERIFY(c.latest.exists);
    QCOMPARE(c.all.size(), 3);
    QCOMPARE(c.all[0].file, QStringLiteral("model-32.pt"));
    QCOMPARE(c.all[0].globalStep, 32);
    QVERIFY(c.all[0].keptForGood);
    QVERIFY(!c.all[1].keptForGood);
    QCOMPARE(c.all[2].path, run.path("model-96.pt"));
    QCOMPARE(c.best.size(), 1);
    QCOMPARE(c.best[0].stat, QStringLiteral("validation_error"));
    QCOMPARE(c.best[0].value, 0.125);
    QCOMPARE(c.best[0].checkpoint.globalStep, 64);
    QCOMPARE(c.best[0].checkpoint.file, QStringLiteral("min-validation_error.pt"));
    QVERIFY(c.best[0].checkpoint.exists);
    QCOMPARE(c.existingCount(), 4);
  }

  void reportsCheckpointFilesThatAreGone() {
    QTemporaryDir root;
    FakeRun run(root.path(), kProject, "r", kStart);
    run.writeCheckpoints({32, 64}, {}, -1, 0, {32});
    const RunCheckpoints c = readRunDirectory(run.dir).checkpoints;
    QCOMPARE(c.all.size(), 2);
    QVERIFY(!c.all[0].exists);
    QVERIFY(c.all[1].exists);
    QCOMPARE(c.existingCount(), 1);
    QVERIFY(c.best.isEmpty());
  }

  void infersTheStatusFromTheLastStart_data() {
    QTest::addColumn<QStringList>("extraLines");
    QTest::addColumn<int>("epochsInStats");
    QTest::addColumn<int>("minutesSinceLastChange");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("detail");

    const QString stop =
        logLine(kStart, "INF", "training stopped at epoch 2, global step 40: stop requested")
            .trimmed();
    const QString fail =
        logLine(kStart, "ERR", "training failed: cost is NaN at global step 50").trimmed();
    const QString restart = logLine(kStart.addSecs(60), "INF",
                                    "command: towerbench-cli train "
                                    "--resume")
                                .trimmed();
    const QString resumed =
        logLine(kStart.addSecs(60), "INF", "resuming from model-40.pt at epoch 2, global step 40")
            .trimmed();
    const QString plannedMore =
        logLine(kStart.addSecs(60), "INF", "training 4 epochs of 32 steps on 1 tower(s)").trimmed();
    QTest::newRow("finished") << QStringList() << 3 << 120 << "finished"
                              << "reached epoch 3 of 3";
    QTest::newRow("stopped") << QStringList{stop} << 1 << 120 << "stopped"
                             << "stop requested";
    QTest::newRow("failed") << QStringList{fail} << 1 << 1 << "failed"
                            << "cost is NaN";
    QTest::newRow("running") << QStringList() << 1 << 1 << "running"
                             << "last change";
    QTest::newRow("killed long ago") << QStringList() << 1 << 120 << "unknown"
                                     << "killed";
    // A resume after a stop: only the last start counts; it plans epochs 2..5.
    QTest::newRow("resumed, running")
        << QStringList{stop, restart, resumed, plannedMore} << 3 << 1 << "running"
        << "";
    QTest::newRow("resumed, finished")
        << QStringList{stop, restart, resumed, plannedMore} << 5 << 120 << "finished"
        << "reached epoch 5 of 5";
    QTest::newRow("resumed, not reached")
        << QStringList{fail, restart, resumed, plannedMore} << 4 << 120 << "unknown"
        << "";
  }

  void infersTheStatusFromTheLastStart() {
    QFETCH(QStringList, extraLines);
    QFETCH(int, epochsInStats);
    QFETCH(int, minutesSinceLastChange);
    QFETCH(QString, status);
    QFETCH(QString, detail);
    QTemporaryDir root;
    FakeRun run(root.path(), kProject, "run", kStart);
    run.writeProject(kProject, 3);
    run.writeStats(epochsInStats, 20);
    run.writeLog(3, 20, extraLines);
    const QDateTime lastChange = kStart.addSecs(3600);
    run.age(lastChange);
    const RunDirectoryInfo info =
        readRunDirectory(run.dir, lastChange.addSecs(60 * minutesSinceLastChange));
    QCOMPARE(toString(info.status), status);
    QVERIFY2(info.statusDetail.contains(detail), qPrintable(info.statusDetail));
    QCOMPARE(info.lastEpoch, epochsInStats);
    QCOMPARE(info.lastActivity, lastChange);
  }

  void runJsonDecidesTheStatusWhateverTheLogSays_data() {
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("writer");  // "this", "gone", "elsewhere"
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("detail");
    QTest::newRow("finished") << "finished"
                              << "this"
                              << "finished"
                              << "global step 60";
    QTest::newRow("stopped") << "stopped"
                             << "this"
                             << "stopped"
                             << "epoch 3";
    QTest::newRow("failed") << "failed"
                            << "this"
                            << "failed"
                            << "the disk caught fire";
    QTest::newRow("running") << "running"
                             << "this"
                             << "running"
                             << "process";
    QTest::newRow("killed") << "running"
                            << "gone"
                            << "unknown"
                            << "killed or crashed";
    QTest::newRow("other host") << "running"
                                << "elsewhere"
                                << "running"
                                << "another-host";
  }

  void runJsonDecidesTheStatusWhateverTheLogSays() {
    // Issue 11: the status came from matching log lines; a log with none it recognises (or a
    // reworded one) gave "unknown". run.json is the status as data.
    QFETCH(QString, state);
    QFETCH(QString, writer);
    QFETCH(QString, status);
    QFETCH(QString, detail);
    QTemporaryDir root;
    FakeRun run(root.path(), kProject, "run", kStart);
    run.writeProject(kProject, 3);
    writeText(run.path("log.log"), "nothing this reader recognises\n\x01\x02 binary noise\n");
    qint64 pid = QCoreApplication::applicationPid();
    if (writer == "gone") {
      const pid_t child = ::fork();
      if (child == 0) ::_exit(0);
      ::waitpid(child, nullptr, 0);
      pid = child;
    }
    QJsonObject doc{
        {"format", 1},
        {"state", state},
        {"origin", "towerbench-cli train p.json"},
        {"project", kProject},
        {"host", writer == "elsewhere" ? "another-host" : QSysInfo::machineHostName()},
        {"pid", pid},
        {"started", "2025-03-14T09:31:52Z"},
        {"updated", "2025-03-14T10:31:52Z"},
        {"ended", state == "running" ? QJsonValue() : QJsonValue("2025-03-14T10:31:52Z")},
        {"epoch", 3},
        {"global_step", 60},
        {"max_epoch", 3},
        {"steps_per_epoch", 20},
        {"last_scalars", QJsonObject{{"cost", 0.25}}},
        {"best", QJsonObject{}}};
    if (state == "failed") doc.insert("error", "the disk caught fire");
    writeText(run.path("run.json"), QJsonDocument(doc).toJson());
    const RunDirectoryInfo info = readRunDirectory(run.dir, kStart.addDays(30));
    QCOMPARE(toString(info.status), status);
    QVERIFY2(info.statusDetail.contains(detail), qPrintable(info.statusDetail));
    QCOMPARE(info.command, QStringLiteral("towerbench-cli train p.json"));
    QCOMPARE(info.lastGlobalStep, 60);
    QCOMPARE(info.lastScalars.value("cost"), 0.25);
    QVERIFY(info.runStatusError.isEmpty());
  }

  void aDamagedRunJsonIsReportedAndTheLogDecides() {
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "r", kStart);
    writeText(run.path("run.json"), "{\"state\": ");
    const RunDirectoryInfo info = readRunDirectory(run.dir, kStart.addDays(1));
    QVERIFY(info.runStatusError.contains("run.json"));
    QVERIFY(info.problems().contains(info.runStatusError));
    QCOMPARE(toString(info.status), QStringLiteral("finished"));
  }

  void anEmptyDirectoryIsUnknownWithoutCrashing() {
    QTemporaryDir root;
    FakeRun run(root.path(), kProject, "20250314-101010", kStart);
    const RunDirectoryInfo info = readRunDirectory(run.dir, kStart.addDays(1));
    QCOMPARE(toString(info.status), QStringLiteral("unknown"));
    QCOMPARE(info.projectName, kProject);  // from the folder above the run
    QVERIFY(info.projectError.contains("project.json"));
    QCOMPARE(info.startTime, QDateTime(QDate(2025, 3, 14), QTime(10, 10, 10)));  // from the id
    QCOMPARE(info.lastEpoch, -1);
    QCOMPARE(info.checkpoints.existingCount(), 0);
  }

  void aCorruptStatsFileGivesAnErrorNotACrash_data() {
    QTest::addColumn<QByteArray>("content");
    QByteArray full =
        QByteArray("[\n {\n  \"cost\": 0.5,\n  \"epoch_num\": 1,\n  \"global_step\": 32\n }") +
        ",\n {\n  \"cost\": 0.25,\n  \"epoch_num\": 2,\n  \"global_step\": 64\n }\n]\n";
    QTest::newRow("truncated") << full.left(full.size() / 2);
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("binary") << QByteArray("\x00\xff\x13garbage", 10);
    QTest::newRow("not a list") << QByteArray("{\"cost\": 1}");
    // Valid JSON syntax, but no double holds it: the engine's reader says so, never throws.
    QTest::newRow("number out of range")
        << QByteArray("[{\"cost\": 1e999, \"epoch_num\": 1, \"global_step\": 32}]");
  }

  void aCorruptStatsFileGivesAnErrorNotACrash() {
    QFETCH(QByteArray, content);
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "r", kStart);
    writeText(run.path("stats.json"), content);
    const RunDirectoryInfo info = readRunDirectory(run.dir);
    QVERIFY2(info.statsError.contains("stats.json"), qPrintable(info.statsError));
    QVERIFY(info.problems().contains(info.statsError));
    QVERIFY(info.lastScalars.isEmpty());
    QCOMPARE(info.lastEpoch, -1);
    QCOMPARE(info.lastGlobalStep, 96);  // from the latest checkpoint instead
    QString error;
    QVERIFY(readScalarSeries(run.dir, &error).isEmpty());
    QCOMPARE(error, info.statsError);
  }

  void keepsTheGoodEntriesOfAPartlyOddStatsFile() {
    QTemporaryDir root;
    FakeRun run(root.path(), kProject, "r", kStart);
    // The engine writes non-finite values as strings; an entry that is not an object is skipped.
    writeText(run.path("stats.json"),
              "[{\"cost\": 2.0, \"epoch_num\": 1, \"global_step\": 10}, 7,"
              " {\"cost\": \"nan\", \"lr\": \"inf\", \"note\": true, \"epoch_num\": 2, "
              "\"global_step\": 20}]");
    const RunStats stats = readStatsFile(run.path("stats.json"));
    QVERIFY(stats.error.contains("entry 1 is not an object"));
    QVERIFY(stats.error.contains("\"note\" is not a number"));
    QCOMPARE(stats.entries, 3);
    QCOMPARE(stats.points.size(), 3);
    QVERIFY(std::isnan(stats.lastValues.value("cost")));
    QVERIFY(std::isinf(stats.lastValues.value("lr")));
    QCOMPARE(stats.lastEpoch, 2);
    QCOMPARE(stats.lastGlobalStep, 20);
  }

  void aCorruptIndexFallsBackToTheModelFiles() {
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "r", kStart);
    writeText(run.path("checkpoint"), "{\"latest\": \"../../etc/passwd\"}");
    RunCheckpoints c = readRunDirectory(run.dir).checkpoints;
    QVERIFY2(c.error.contains("\"latest\" must be a file name inside the run directory"),
             qPrintable(c.error));
    QVERIFY(!c.fromIndex);
    QCOMPARE(c.latest.file, QStringLiteral("model-96.pt"));
    QCOMPARE(c.all.size(), 3);
    QCOMPARE(c.all[0].globalStep, 32);

    writeText(run.path("checkpoint"), "{\"latest\": \"model-96.pt\", \"all\": [");
    c = readRunDirectory(run.dir).checkpoints;
    QVERIFY(c.error.contains("not valid JSON"));
    QCOMPARE(c.latest.globalStep, 96);
  }

  void readsTheFullScalarSeries() {
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "r", kStart);
    QString error = "unchanged?";
    const ScalarSeries series = readScalarSeries(run.dir, &error);
    QVERIFY(error.isEmpty());
    QCOMPARE(series.size(), 9);  // 3 epochs x (cost, train_error, validation_error)
    QCOMPARE(series[0].name, QStringLiteral("cost"));
    QCOMPARE(series[0].epoch, 1);
    QCOMPARE(series[0].step, 32);
    QCOMPARE(series[0].value, 1.0);
    QCOMPARE(series[8].name, QStringLiteral("validation_error"));
    QCOMPARE(series[8].step, 96);
    QCOMPARE(series[8].value, 0.4 / 3);
    QVERIFY(readScalarSeries(root.filePath("nowhere"), &error).isEmpty());
    QVERIFY(error.isEmpty());  // no stats yet is not an error
  }

  void scansRunsNewestFirst() {
    QTemporaryDir root;
    finishedRun(root.path(), "20250314-093152", kStart);
    finishedRun(root.path(), "20250314-093152-2", kStart);   // same second, made later
    finishedRun(root.path(), "20250314-093152-10", kStart);  // natural order: after -2
    finishedRun(root.path(), "custom-name", kStart.addDays(2));
    finishedRun(root.path(), "20250101-000000", kStart.addDays(-30));
    FakeRun(root.path(), "other-project", "20990101-000000", kStart);  // not ours
    QVector<QString> ids;
    for (const auto& run : scanRuns(root.path(), kProject)) ids << run.runId;
    QCOMPARE(ids, (QVector<QString>{"custom-name", "20250314-093152-10", "20250314-093152-2",
                                    "20250314-093152", "20250101-000000"}));
    QVERIFY(scanRuns(root.path(), "no-such-project").isEmpty());
    QVERIFY(scanRuns(QString(), kProject).isEmpty());
  }

  void panelListsRunsAndEmitsTheOverlay() {
    QTemporaryDir root;
    const FakeRun older = finishedRun(root.path(), "20250314-093152", kStart);
    FakeRun newer(root.path(), kProject, "20250315-080000", kStart.addDays(1));
    newer.writeProject(kProject, 10);
    newer.writeStats(2, 32, 4.0);
    newer.writeLog(10, 32,
                   {logLine(newer.start, "ERR", "training failed: out of memory").trimmed()});
    newer.age(newer.start.addSecs(300));

    RunHistoryPanel panel;
    panel.resize(900, 300);
    panel.setRunRoot(root.path(), kProject);
    panel.show();
    QCOMPARE(panel.runCount(), 2);
    auto* table = panel.findChild<QTableWidget*>("runTable");
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(cellText(table, 0, "Run"), QStringLiteral("20250315-080000"));
    QCOMPARE(cellText(table, 0, "Status"), QStringLiteral("failed"));
    QCOMPARE(cellText(table, 0, "Epoch"), QStringLiteral("2 / 10"));
    // The runs differ in max_epoch only: that is the one parameter column.
    QCOMPARE(cellText(table, 0, "max_epoch"), QStringLiteral("10"));
    QCOMPARE(cellText(table, 1, "max_epoch"), QStringLiteral("3"));
    QCOMPARE(cellText(table, 0, "Best validation_error \u2193"), QStringLiteral("0.2"));
    QCOMPARE(cellText(table, 0, "Duration"), QStringLiteral("5 min 00 s"));
    QCOMPARE(cellText(table, 0, "Checkpoints"), QStringLiteral("0"));
    QCOMPARE(cellText(table, 1, "Run"), QStringLiteral("20250314-093152"));
    QCOMPARE(cellText(table, 1, "Status"), QStringLiteral("finished"));
    QCOMPARE(cellText(table, 1, "Step"), QStringLiteral("96"));
    QCOMPARE(cellText(table, 1, "Best validation_error \u2193"), QString::number(0.4 / 3, 'g', 4));
    QCOMPARE(cellText(table, 1, "Checkpoints"), QStringLiteral("4"));
    QCOMPARE(cellText(table, 1, "Started"), QStringLiteral("2025-03-14 09:31"));
    QVERIFY(panel.findChild<QLabel*>("runRootLabel")->text().contains("2 runs in"));

    QSignalSpy spy(&panel, &RunHistoryPanel::overlayChanged);
    table->item(1, 0)->setCheckState(Qt::Checked);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toStringList(), QStringList{older.dir});
    table->item(0, 0)->setCheckState(Qt::Checked);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toStringList(), (QStringList{newer.dir, older.dir}));
    QCOMPARE(panel.selectedRuns(), (QStringList{newer.dir, older.dir}));

    // The selection survives a refresh; a run that disappears leaves it.
    panel.refresh();
    QCOMPARE(spy.count(), 0);
    QCOMPARE(panel.selectedRuns(), (QStringList{newer.dir, older.dir}));
    QVERIFY(QDir(newer.dir).removeRecursively());
    panel.refresh();
    QCOMPARE(panel.runCount(), 1);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toStringList(), QStringList{older.dir});
  }

  void flattensAndComparesProjects() {
    const QJsonObject a{
        {"name", "p"},
        {"optimizer", QJsonObject{{"type", "adam"}, {"learning_rate", 0.001}}},
        {"model", QJsonObject{{"type", "mlp"}, {"hidden", QJsonArray{256, 128}}}},
        {"callbacks", QJsonArray{QJsonObject{{"type", "inference"}},
                                 QJsonObject{{"type", "min_saver"}, {"stat", "validation_error"}},
                                 QJsonObject{{"type", "min_saver"}, {"stat", "cost"}}}},
        {"trainer",
         QJsonObject{{"strategy", "sync_replicated"}, {"devices", QJsonArray{"cpu", "cpu"}}}}};
    const QMap<QString, QString> flat = flattenProject(a);
    QCOMPARE(flat.value("optimizer.learning_rate"), QString("0.001"));
    QCOMPARE(flat.value("model.hidden"), QString("[256,128]"));
    QCOMPARE(flat.value("callbacks.inference"), QString("on"));
    QCOMPARE(flat.value("callbacks.min_saver.stat"), QString("validation_error"));
    QCOMPARE(flat.value("callbacks.min_saver#2.stat"), QString("cost"));
    QVERIFY(!flat.contains("callbacks.min_saver.type"));
    QCOMPARE(strategySummary(a), QString("sync_replicated \u00d7 2"));

    QJsonObject b = a;
    b["name"] = "q";  // names never count
    b["optimizer"] = QJsonObject{{"type", "adam"}, {"learning_rate", 0.003}};
    b["seed"] = 7;  // only in b
    b["model"] = QJsonObject{{"type", "mlp"}, {"hidden", QJsonArray{512}}};
    QCOMPARE(differingParameters({flattenProject(a), flattenProject(b)}),
             (QStringList{"optimizer.learning_rate", "model.hidden", "seed"}));
    QCOMPARE(differingParameters({flat}), QStringList{});
    QCOMPARE(parameterHeaders({"optimizer.learning_rate", "model.hidden", "a.x", "b.x"}),
             (QStringList{"learning_rate", "hidden", "a.x", "b.x"}));

    RunDirectoryInfo run;
    run.project = a;
    QVERIFY(!higherIsBetter("validation_error", {run}));
    QVERIFY(higherIsBetter("validation_accuracy", {run}));
    run.project["callbacks"] = QJsonArray{QJsonObject{{"type", "max_saver"}, {"stat", "score"}}};
    QVERIFY(higherIsBetter("score", {run}));  // the saver decides, not the name
    run.minScalars = {{"score", 0.5}, {"cost", 0.1}, {"QueueInput/queue_fullness", 0.9}};
    run.maxScalars = {{"score", 0.9}, {"cost", 2.0}, {"QueueInput/queue_fullness", 1.0}};
    QCOMPARE(comparableMetrics({run}), (QStringList{"cost", "score"}));
    QCOMPARE(defaultWatchedMetric({run}), QString("score"));
    QCOMPARE(*bestValue(run, "score", true), 0.9);
    QCOMPARE(*bestValue(run, "cost", false), 0.1);
    QVERIFY(!bestValue(run, "validation_error", false));
    QCOMPARE(durationText(42), QString("42 s"));
    QCOMPARE(durationText(185), QString("3 min 05 s"));
    QCOMPARE(durationText(7440), QString("2 h 04 min"));
    QCOMPARE(durationText(-1), QString("\u2013"));
  }

  void comparesSortsFiltersAndLabelsRuns() {
    QTemporaryDir root;
    // Three runs that differ in learning rate, batch size and strategy.
    const struct {
      const char* id;
      double lr;
      int batch;
      const char* strategy;
      int towers;
      double firstCost;
    } specs[] = {{"20250314-090000", 0.01, 64, "simple", 1, 3.0},
                 {"20250314-100000", 0.001, 64, "simple", 1, 1.0},
                 {"20250314-110000", 0.003, 128, "sync_replicated", 2, 2.0}};
    QStringList dirs;
    int n = 0;
    for (const auto& spec : specs) {
      FakeRun run(root.path(), kProject, spec.id, kStart.addSecs(3600 * n));
      QJsonArray devices;
      for (int t = 0; t < spec.towers; ++t) devices.append("cpu");
      run.writeProject(
          kProject, 3,
          {{"optimizer", QJsonObject{{"type", "sgd"}, {"learning_rate", spec.lr}}},
           {"data", QJsonObject{{"batch_size", spec.batch}}},
           {"trainer", QJsonObject{{"strategy", spec.strategy}, {"devices", devices}}}});
      run.writeStats(3, 32, spec.firstCost);
      run.writeLog(3, 32);
      run.age(run.start.addSecs(60 * (n + 1)));
      dirs << run.dir;
      ++n;
    }
    RunHistoryPanel panel;
    panel.resize(1200, 300);
    panel.setRunRoot(root.path(), kProject);
    auto* table = panel.findChild<QTableWidget*>("runTable");
    const QStringList headers = panel.columnHeaders();
    for (const char* header : {"learning_rate", "batch_size", "Strategy", "Duration", "Notes"}) {
      QVERIFY2(headers.contains(QLatin1String(header)), qPrintable(headers.join(" | ")));
    }
    QVERIFY(!headers.contains("max_epoch"));  // the same everywhere
    QVERIFY(!headers.contains("strategy"));   // in the Strategy column
    QCOMPARE(cellText(table, 0, "Strategy"), QString("sync_replicated \u00d7 2"));
    QCOMPARE(cellText(table, 0, "learning_rate"), QString("0.003"));
    QCOMPARE(cellText(table, 2, "Duration"), QString("1 min 00 s"));

    // Sorting: numbers as numbers, again to reverse; unknown titles go back to newest first.
    panel.sortByColumn("learning_rate", Qt::AscendingOrder);
    QCOMPARE((QStringList{panel.runDirAt(0), panel.runDirAt(1), panel.runDirAt(2)}),
             (QStringList{dirs[1], dirs[2], dirs[0]}));
    table->horizontalHeader()->sectionClicked(int(headers.indexOf("learning_rate")));
    QCOMPARE(panel.runDirAt(0), dirs[0]);  // descending: 0.01 first
    // The Best column (validation_error by default) sorts by value; choosing another metric
    // keeps the sort on the Best column, and it survives a refresh.
    panel.sortByColumn(headers.filter("Best").first(), Qt::AscendingOrder);
    panel.refresh();
    QCOMPARE(panel.watchedMetric(), QString());
    panel.setWatchedMetric("cost");
    QVERIFY(panel.columnHeaders().contains("Best cost \u2193"));
    QCOMPARE(panel.runDirAt(0), dirs[1]);  // its cost ends lowest (1.0 / 3)
    QCOMPARE(cellText(table, 0, "Best cost \u2193"), QString::number(1.0 / 3, 'g', 4));

    // A label and #tagged notes: saved in the run, shown, found by the filter.
    QSignalSpy appearance(&panel, &RunHistoryPanel::runAppearanceChanged);
    QString error;
    QVERIFY(panel.annotate(dirs[1], "low lr", "the one to beat #baseline", &error));
    QCOMPARE(readRunAnnotations(dirs[1]).label, QString("low lr"));
    QCOMPARE(readRunAnnotations(dirs[1]).tags(), QStringList{"baseline"});
    QCOMPARE(panel.runName(dirs[1]), QString("low lr"));
    QCOMPARE(appearance.count(), 1);
    panel.setFilterText("#baseline");
    QCOMPARE(panel.visibleRunCount(), 1);
    QVERIFY(!table->isRowHidden(panel.rowOf(dirs[1])));
    QVERIFY(panel.findChild<QLabel*>("runRootLabel")->text().contains("1 of 3 runs shown"));
    panel.setFilterText("sync_replicated 128");  // every word must match
    QCOMPARE(panel.visibleRunCount(), 1);
    QVERIFY(!table->isRowHidden(panel.rowOf(dirs[2])));
    panel.setFilterText(QString());
    QCOMPARE(panel.visibleRunCount(), 3);
    // Editing the Run cell relabels; typing the id back removes the label.
    QTableWidgetItem* name = table->item(panel.rowOf(dirs[0]), 1);
    name->setText("high lr");
    QTRY_COMPARE(panel.runName(dirs[0]), QString("high lr"));
    table->item(panel.rowOf(dirs[0]), 1)->setText("20250314-090000");
    QTRY_COMPARE(panel.runName(dirs[0]), QString("20250314-090000"));
    QVERIFY(!QFile::exists(QDir(dirs[0]).filePath("annotations.json")));
    // A damaged annotations file is reported, not fatal.
    writeText(QDir(dirs[2]).filePath("annotations.json"), "{oops");
    panel.refresh();
    QCOMPARE(panel.runCount(), 3);
    QVERIFY(panel.runs().at(0).problems().join(' ').contains("annotations.json"));

    // Colours: by age, so a new run does not change the others'.
    const QColor first = panel.runColour(dirs[0]), third = panel.runColour(dirs[2]);
    QVERIFY(first != third);
    FakeRun later(root.path(), kProject, "20250315-000000", kStart.addDays(1));
    later.writeProject(kProject, 3);
    panel.refresh();
    QCOMPARE(panel.runCount(), 4);
    QCOMPARE(panel.runColour(dirs[0]), first);
    QCOMPARE(panel.runColour(dirs[2]), third);
  }

  void contextMenuResumesAndClones() {
    QTemporaryDir root;
    const FakeRun done = finishedRun(root.path(), "20250314-093152", kStart);
    FakeRun stopped(root.path(), kProject, "20250315-093152", kStart.addDays(1));
    stopped.writeProject(kProject, 3);
    stopped.writeStats(1, 32);
    stopped.writeLog(3, 32,
                     {QString(logLine(stopped.start, "INF",
                                      "training stopped at epoch 1, "
                                      "global step 32: stop requested"))
                          .trimmed()});
    stopped.writeCheckpoints({32}, {}, 32, 0.5);
    stopped.age(stopped.start.addSecs(100));
    RunHistoryPanel panel;
    panel.setRunRoot(root.path(), kProject);
    QSignalSpy resumeSpy(&panel, &RunHistoryPanel::resumeRequested);
    QSignalSpy cloneSpy(&panel, &RunHistoryPanel::cloneRequested);
    std::unique_ptr<QMenu> stoppedMenu(panel.createContextMenu(panel.rowOf(stopped.dir), &panel));
    auto* resume = stoppedMenu->findChild<QAction*>("resumeAction");
    QVERIFY(resume->isEnabled());
    resume->trigger();
    QCOMPARE(resumeSpy.count(), 1);
    QCOMPARE(resumeSpy.at(0).at(0).toString(), stopped.dir);
    std::unique_ptr<QMenu> doneMenu(panel.createContextMenu(panel.rowOf(done.dir), &panel));
    QVERIFY(!doneMenu->findChild<QAction*>("resumeAction")->isEnabled());  // it finished
    QVERIFY(doneMenu->findChild<QAction*>("resumeAction")->toolTip().contains("clone"));
    doneMenu->findChild<QAction*>("cloneAction")->trigger();
    QCOMPARE(cloneSpy.count(), 1);
    QCOMPARE(cloneSpy.at(0).at(0).toString(), done.dir);
    panel.setLiveRun(stopped.dir);  // running now: nothing to resume
    std::unique_ptr<QMenu> liveMenu(panel.createContextMenu(panel.rowOf(stopped.dir), &panel));
    QVERIFY(!liveMenu->findChild<QAction*>("resumeAction")->isEnabled());
  }

  void contextMenuExportsAndTogglesTheOverlay() {
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "20250314-093152", kStart);
    RunHistoryPanel panel;
    panel.setRunRoot(root.path(), kProject);
    QSignalSpy exportSpy(&panel, &RunHistoryPanel::exportRequested);
    QSignalSpy overlaySpy(&panel, &RunHistoryPanel::overlayChanged);
    std::unique_ptr<QMenu> menu(panel.createContextMenu(0, &panel));
    QVERIFY(menu);
    QVERIFY(menu->findChild<QAction*>("openFolderAction"));
    menu->findChild<QAction*>("exportCheckpointAction")->trigger();
    QCOMPARE(exportSpy.count(), 1);
    QCOMPARE(exportSpy.at(0).at(0).toString(), run.dir);
    auto* overlay = menu->findChild<QAction*>("overlayAction");
    QVERIFY(!overlay->isChecked());
    overlay->trigger();
    QCOMPARE(overlaySpy.count(), 1);
    QCOMPARE(panel.selectedRuns(), QStringList{run.dir});
    QVERIFY(panel.createContextMenu(5, &panel) == nullptr);
  }

  void picksUpANewRun() {
    QTemporaryDir root;
    finishedRun(root.path(), "20250314-093152", kStart);
    RunHistoryPanel panel;
    panel.setRunRoot(root.path(), kProject);
    QCOMPARE(panel.runCount(), 1);

    // By itself: the watcher sees the project folder change.
    finishedRun(root.path(), "20250316-120000", kStart.addDays(2));
    QTRY_COMPARE_WITH_TIMEOUT(panel.runCount(), 2, 5000);
    QCOMPARE(panel.runs().first().runId, QStringLiteral("20250316-120000"));

    // And on refresh(), at once.
    finishedRun(root.path(), "20250317-120000", kStart.addDays(3));
    panel.refresh();
    QCOMPARE(panel.runCount(), 3);
    QCOMPARE(panel.runDirAt(0), QDir(root.filePath(kProject + "/20250317-120000")).absolutePath());

    // A project with no run folder yet: watched from the root until it appears.
    RunHistoryPanel empty;
    empty.setRunRoot(root.path(), "later");
    QCOMPARE(empty.runCount(), 0);
    QVERIFY(empty.findChild<QLabel*>("runRootLabel")->text().contains("No runs yet"));
    FakeRun(root.path(), "later", "20250318-000000", kStart);
    QTRY_COMPARE_WITH_TIMEOUT(empty.runCount(), 1, 5000);
  }

  void theLiveRunShowsAsRunning() {
    QTemporaryDir root;
    const FakeRun run = finishedRun(root.path(), "20250314-093152", kStart);
    RunHistoryPanel panel;
    panel.setRunRoot(root.path(), kProject);
    QCOMPARE(toString(panel.runs().first().status), QStringLiteral("finished"));
    panel.setLiveRun(run.dir);
    QCOMPARE(toString(panel.runs().first().status), QStringLiteral("running"));
    panel.setLiveRun(QString());
    QCOMPARE(toString(panel.runs().first().status), QStringLiteral("finished"));
  }
};

}  // namespace test_RunHistory

TB_TEST_MAIN(test_RunHistory::RunHistoryTest)
#include "test_RunHistory.moc"
