// A smoke run of every project in projects/: validate, build and train a few steps.

#include <QtTest>

#include <filesystem>
#include <fstream>

#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
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

  // The confusion matrix has the model's classes, not the validation file's: validation rows
  // that look like class 3 but whose file names classes 0..2 only (its labels give 3 classes)
  // are predicted as 3, and the run goes on with a 4 x 4 matrix.
  void aValidationSetWithoutTheLastClassGetsTheModelsClasses() {
    QTemporaryDir dir;
    std::ofstream train(dir.filePath("train.csv").toStdString());
    std::ofstream validation(dir.filePath("validation.csv").toStdString());
    for (int i = 0; i < 200; ++i) {
      const int label = i % 4;
      const double x = label * 10.0 + (i % 7) * 0.1, y = -label * 5.0 + (i % 5) * 0.1;
      train << x << "," << y << "," << label << "\n";
      if (label == 3) validation << x << "," << y << ",2\n";  // class 3's rows, labelled 2
      if (label < 3 && i < 40) validation << x << "," << y << "," << label << "\n";
    }
    train.close();
    validation.close();
    const nlohmann::json doc = {
        {"format", 1},
        {"name", "three-of-four"},
        {"model", {{"type", "mlp"}, {"hidden", {16}}}},
        {"data",
         {{"train", {{"type", "csv"}, {"path", dir.filePath("train.csv").toStdString()}}},
          {"validation",
           {{"type", "csv"},
            {"path", dir.filePath("validation.csv").toStdString()},
            {"split", "train"}}},
          {"batch_size", 20}}},
        {"optimizer", {{"type", "adam"}, {"learning_rate", 0.05}}},
        {"max_epoch", 5},
        {"callbacks", {{{"type", "inference"}}}},
        {"monitors", {{"scalar_printer", false}}}};
    Project project = projectFromJson(doc, "three-of-four.json");
    BuiltRun run = buildRun(project, dir.filePath("run").toStdString());
    launchTrainWithConfig(run.config, *run.trainer);
    std::ifstream in(dir.filePath("run/confusion/epoch-5.json").toStdString());
    const nlohmann::json matrix = nlohmann::json::parse(in);
    QCOMPARE(matrix["counts"].size(), size_t{4});
    // Class 3's rows (labelled 2) mostly predicted as 3, the class the file never names.
    QVERIFY2(matrix["counts"][2][3].get<int>() > 25, matrix["counts"].dump().c_str());
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
