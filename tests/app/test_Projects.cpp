// A smoke run of every project in projects/: validate, build and train a few steps.

#include <QtTest>

#include <filesystem>
#include <fstream>

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

  void aGanProjectNeedsAStrategyWithAGanForm() {
    std::ifstream in(std::string(TB_SOURCE_DIR) + "/projects/fashion-mnist-dcgan.json");
    const nlohmann::json gan = nlohmann::json::parse(in);
    QVERIFY(validateProjectJson(gan).empty());
    auto issuesOf = [](const nlohmann::json& doc) {
      std::string text;
      for (const auto& issue : validateProjectJson(doc)) text += issue.toString() + "\n";
      return text;
    };
    for (const char* strategy : {"async", "sync_parameter_server"}) {
      nlohmann::json doc = gan;
      doc["trainer"] = {{"strategy", strategy}, {"devices", {"cpu", "cpu"}}};
      const std::string text = issuesOf(doc);
      QVERIFY2(
          text.find("$.trainer: strategy \"" + std::string(strategy) +
                    "\" trains single-cost models; the GAN model \"dcgan\"") != std::string::npos,
          text.c_str());
    }
    nlohmann::json replicated = gan;
    replicated["trainer"] = {{"strategy", "sync_replicated"}, {"devices", {"cpu", "cpu"}}};
    QVERIFY(validateProjectJson(replicated).empty());
    nlohmann::json mlp = gan;
    mlp["model"] = {{"type", "mlp"}};
    const std::string text = issuesOf(mlp);
    QVERIFY2(text.find("a \"gan_samples\" callback needs a GAN model") != std::string::npos,
             text.c_str());
  }

  void aReplicatedGanProjectTrains() {
    Project project =
        loadProjectFile(std::string(TB_SOURCE_DIR) + "/projects/fashion-mnist-dcgan.json");
    project.trainer = ComponentSpec::of("strategy", "sync_replicated");
    project.trainer.settings.set("devices", {"cpu", "cpu"});
    project.maxEpoch = 1;
    project.stepsPerEpoch = 2;
    QTemporaryDir dir;
    BuiltRun run = buildRun(project, dir.path().toStdString());
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(run.trainer->numTowers(), 2);
    QCOMPARE(run.trainer->samplesPerStep(), int64_t{128});
    // The fixed-noise grid of the epoch: 8 x 8 samples of 28 x 28 with 1-pixel padding.
    const QDir images(dir.filePath("images/samples"));
    QCOMPARE(images.entryList({"*.png"}).size(), 1);
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
