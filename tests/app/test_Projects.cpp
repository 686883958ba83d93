// A smoke run of every project in projects/: validate, build and train a few steps.

#include <QtTest>

#include <filesystem>

#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"

using namespace tbench;
namespace fs = std::filesystem;

class TestProjects : public QObject {
  Q_OBJECT
 private slots:
  void everyProjectTrainsAFewSteps_data() {
    QTest::addColumn<QString>("path");
    int count = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(TB_SOURCE_DIR) / "projects")) {
      if (entry.path().extension() != ".json") continue;
      QTest::newRow(entry.path().filename().c_str()) << QString::fromStdString(entry.path());
      ++count;
    }
    QVERIFY(count >= 3);
  }

  void everyProjectTrainsAFewSteps() {
    QFETCH(QString, path);
    Project project = loadProjectFile(path.toStdString());
    project.maxEpoch = 2;
    project.stepsPerEpoch = 3;
    QTemporaryDir dir;
    BuiltRun run = buildRun(project, dir.path().toStdString());
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(run.trainer->globalStep(), int64_t{6});
    // "cost", or a GAN's "d_loss" and "g_loss".
    for (const std::string& cost : run.trainer->progressScalars()) {
      QCOMPARE(history->get(cost).size(), size_t{6});
      QVERIFY(std::isfinite(history->get(cost).back().value));
    }
    QVERIFY(fs::exists(dir.path().toStdString() + "/stats.json"));
  }

  void projectsRoundTripThroughJson() {
    for (const auto& entry : fs::directory_iterator(fs::path(TB_SOURCE_DIR) / "projects")) {
      if (entry.path().extension() != ".json") continue;
      const Project p = loadProjectFile(entry.path());
      QCOMPARE(projectToJson(projectFromJson(projectToJson(p))), projectToJson(p));
    }
  }
};

QTEST_GUILESS_MAIN(TestProjects)
#include "test_Projects.moc"
