// The engine's project services as the window sees them (analyze: issues and the
// learning-rate preview; canonicalize), checkpoint export and device discovery.
#include <QTemporaryDir>
#include <QtTest>

#include "app/bridge/EngineServices.h"
#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryServices.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ProjectServices {

using namespace tbench::bridge;

namespace {
// The smallest valid project: name, model and training data are required.
const QString kMinimal = R"({"format": 1, "name": "x", "model": {"type": "mlp"},
                             "data": {"train": {"type": "synthetic"}}})";
}  // namespace

class TestProjectServices : public QObject {
  Q_OBJECT

 private slots:
  void analyzeGivesPathsAndNeverThrows() {
    const ProjectServices services = makeProjectServices();
    QVERIFY(services.analyze(kMinimal).issues.isEmpty());
    const auto issues =
        services
            .analyze(R"({"format": 1, "data": {"batch_size": 0}, "optimizer": {"tpye": "sgd"}})")
            .issues;
    QStringList paths;
    for (const auto& issue : issues) paths << issue.path;
    QVERIFY2(paths.contains("$.data.batch_size"), qPrintable(paths.join(", ")));
    QVERIFY2(paths.contains("$.optimizer.tpye"), qPrintable(paths.join(", ")));
    const auto syntax = services.analyze("{\"format\": 1,").issues;
    QCOMPARE(syntax.size(), 1);
    QCOMPARE(syntax.front().path, QString("$"));
    QVERIFY(syntax.front().message.contains("not valid JSON"));
    QVERIFY(!services.analyze("[1, 2]").issues.isEmpty());
  }

  void canonicalizeWritesEveryDefault() {
    const ProjectServices services = makeProjectServices();
    QString error;
    const QString full = services.canonicalize(kMinimal, &error);
    QVERIFY2(!full.isEmpty(), qPrintable(error));
    QVERIFY(full.contains("\"batch_size\": 128"));
    QVERIFY(full.contains("\"strategy\": \"queue_input\""));
    QVERIFY(services.canonicalize("{\"format\": 2}", &error).isEmpty());
    QVERIFY(error.contains("$.format"));
  }

  void learningRateCurveFollowsTheSchedule() {
    const ProjectServices services = makeProjectServices();
    // Synthetic data: 1000 samples / batch 100 = 10 steps per epoch, 4 epochs; the point
    // (3, 0.01) applies after epoch 3 (tensorpack's meaning): the rate is 0.1 (the
    // optimizer's) for epochs 1-3 and 0.01 in epoch 4, from global step 30.
    const QString project = R"({"format": 1, "name": "lr", "model": {"type": "mlp"}, "max_epoch": 4,
      "data": {"train": {"type": "synthetic", "num_samples": 1000}, "batch_size": 100},
      "optimizer": {"type": "sgd", "learning_rate": 0.1},
      "schedule": {"learning_rate": {"unit": "epoch", "points": [[3, 0.01]]}}})";
    const auto curve = services.analyze(project).learningRateCurve;
    QVERIFY(!curve.isEmpty());
    QCOMPARE(curve.front(), QPointF(0, 0.1));
    QCOMPARE(curve.back(), QPointF(40, 0.01));
    for (const QPointF& p : curve) {
      if (p.x() < 30) QCOMPARE(p.y(), 0.1);
      if (p.x() > 30) QCOMPARE(p.y(), 0.01);
    }
    bool sawDrop = false;
    for (int i = 1; i < curve.size(); ++i) {
      if (curve[i - 1].y() == 0.1 && curve[i].y() == 0.01) {
        QCOMPARE(curve[i].x(), 30.0);
        sawDrop = true;
      }
    }
    QVERIFY(sawDrop);

    // Linear by step: halfway between (0, 1.0) and (100, 0.5) is 0.75.
    const QString linear = R"({"format": 1, "name": "lr", "model": {"type": "mlp"},
      "max_epoch": 1, "steps_per_epoch": 100,
      "data": {"train": {"type": "synthetic"}},
      "schedule": {"learning_rate": {"unit": "step", "interpolation": "linear",
                                     "points": [[0, 1.0], [100, 0.5]]}}})";
    const auto line = services.analyze(linear).learningRateCurve;
    QVERIFY(!line.isEmpty());
    bool sawHalf = false;
    for (const QPointF& p : line) {
      QVERIFY(qAbs(p.y() - (1.0 - 0.5 * p.x() / 100.0)) < 1e-9);
      if (p.x() == 50) sawHalf = true;
    }
    QVERIFY(sawHalf);
    QVERIFY(services.analyze("{\"format\": 1, \"max_epoch\": 0}").learningRateCurve.isEmpty());
  }

  void exporterNamesTheFileItCannotRead() {
    QTemporaryDir dir;
    const CheckpointExporter exporter = makeCheckpointExporter();
    QString message;
    QVERIFY(!exporter(dir.filePath("missing.pt"), "pt", dir.filePath("out.pt"), false, &message));
    QVERIFY2(message.contains("missing.pt"), qPrintable(message));
    QVERIFY(!QFile::exists(dir.filePath("out.pt")));
  }

  void devicesListTheCpuAndExplainCuda() {
    QString note;
    const DeviceEntries devices = discoverDevices(&note);
    QVERIFY(!devices.isEmpty());
    QCOMPARE(devices.front().id, QString("cpu"));
    QVERIFY(devices.front().name.contains("cores"));
    if (devices.size() == 1) QVERIFY2(note.contains("No CUDA device"), qPrintable(note));
    QVERIFY(engineVersionText().startsWith("LibTorch 1."));
  }
};

}  // namespace test_ProjectServices

TB_TEST_MAIN(test_ProjectServices::TestProjectServices)
#include "test_ProjectServices.moc"
