// A smoke run of every project in projects/: validate, build and train a few steps.

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>

#include "engine/callbacks/Callback.h"
#include "engine/core/HostRead.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Projects {

using namespace tbench;
namespace fs = std::filesystem;

namespace {

/// The engine's host reads (Note [Host reads]) counted before every step's beforeRun.
class ReadRecorder : public Callback {
 public:
  std::vector<int64_t> atStep;  ///< [k]: the count before step k + 1 ran

 private:
  void onBeforeRun() override { atStep.push_back(hostReadCount()); }
};

}  // namespace

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
    // The validation pass runs at each epoch's end over the first 256 samples: the whole
    // Fashion-MNIST test set made the ConvNet's 6 steps take 30 s.
    if (project.data.hasValidation) project.data.validation.set("limit", 256);
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

  // Issue 33: a step of the default ConvNet project with its default callbacks reads nothing
  // back from its device (Note [Host reads]) except where a callback asks: the progress bar at
  // every tenth of the epoch (stderr is no terminal here) and the step scalars' batch read
  // every 50 steps (Note [Step scalars read in batches]). Its cost and train_error had been
  // read at every step. The time limit of the batch read is off: how many steps fit in a
  // second depends on the machine. The throughput callback's host_syncs_per_step counts the
  // epoch's reads, the validation pass's (a few, not one a batch) included.
  void aConvNetStepReadsNothingBackBeyondItsCallbacks() {
    Project project =
        loadProjectFile(std::string(TB_SOURCE_DIR) + "/projects/fashion-mnist-convnet.json");
    project.maxEpoch = 1;
    project.stepsPerEpoch = 60;
    project.speed.readScalarsEverySeconds = 0;
    // 32 validation batches of 128: a read a batch would show (over 0.5 reads a step).
    project.data.validation.set("limit", 4096);
    QTemporaryDir dir;
    BuiltRun run = buildRun(project, dir.path().toStdString());
    auto recorder = std::make_shared<ReadRecorder>();
    run.config.callbacks.push_back(recorder);
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(recorder->atStep.size(), size_t{60});
    std::set<int64_t> asked = {50};                                   // the batch read
    for (int64_t done = 6; done < 60; done += 6) asked.insert(done);  // the progress bar
    int64_t reads = 0;
    for (int64_t step = 1; step < 60; ++step) {
      const int64_t made = recorder->atStep[step] - recorder->atStep[step - 1];
      reads += made;
      if (asked.count(step)) {
        QVERIFY2(made <= 1, qPrintable(QString("step %1 made %2 reads").arg(step).arg(made)));
      } else {
        QVERIFY2(
            made == 0,
            qPrintable(
                QString("step %1 made %2 reads, where no callback asked").arg(step).arg(made)));
      }
    }
    // The counter counts: at least the batch read at step 50 (the progress bar draws only when
    // the log shows Info, which TB_QUIET turns off in the suite).
    QVERIFY2(reads >= 1 && reads <= 10, qPrintable(QString::number(reads)));
    // Every step's values still reached the monitors, with their own steps.
    const auto& cost = history->get("cost");
    QCOMPARE(cost.size(), size_t{60});
    for (size_t i = 0; i < cost.size(); ++i) QCOMPARE(cost[i].globalStep, int64_t(i + 1));
    QCOMPARE(history->get("train_error").size(), size_t{60});
    const auto& syncs = history->get("ThroughputTracker/host_syncs_per_step");
    QCOMPARE(syncs.size(), size_t{1});
    QVERIFY2(syncs.front().value > 0 && syncs.front().value < 0.5,
             qPrintable(QString::number(syncs.front().value)));
  }

  // Issue 33: data.resident keeps the training set on the device and shuffles it there with
  // the same pass orders, so a run trains exactly as with the streaming pipeline (here across
  // pass boundaries: 2048 samples with batch 60 and remainder make 35 batches a pass, and 40
  // steps an epoch), resumes included: a run resumed from its epoch-1 checkpoint ends where the
  // whole run did.
  void aResidentTrainingSetTrainsAsTheStreamingOne() {
    const auto trainWith = [](bool resident, const std::string& runDir, int64_t maxEpoch,
                              bool resume) {
      Project project =
          loadProjectFile(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
      project.data.batchSize = 60;
      project.data.remainder = true;
      project.data.resident = resident;
      project.stepsPerEpoch = 40;
      project.maxEpoch = maxEpoch;
      project.callbacks = {ComponentSpec::of("callback", "model_saver")};
      BuiltRun run = buildRun(project, runDir);
      if (resume) run.config.resumeFrom = runDir + "/model-40.pt";
      launchTrainWithConfig(run.config, *run.trainer);
      std::map<std::string, torch::Tensor> params;
      for (const auto& [name, tensor] : run.trainer->parameters()) params[name] = tensor.clone();
      return params;
    };
    QTemporaryDir dir;
    const auto streaming = trainWith(false, dir.filePath("streaming").toStdString(), 2, false);
    const auto resident = trainWith(true, dir.filePath("resident").toStdString(), 2, false);
    trainWith(true, dir.filePath("resumed").toStdString(), 1, false);
    const auto resumed = trainWith(true, dir.filePath("resumed").toStdString(), 2, true);
    QCOMPARE(streaming.size(), resident.size());
    for (const auto& [name, tensor] : streaming) {
      QVERIFY2(torch::equal(tensor, resident.at(name)), name.c_str());
      QVERIFY2(torch::equal(tensor, resumed.at(name)), name.c_str());
    }
    // Refused where it cannot hold: a source that augments at random, ranks.
    nlohmann::json doc = nlohmann::json::parse(
        std::ifstream(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json"));
    doc["data"]["resident"] = true;
    doc["trainer"] = {{"strategy", "distributed"}, {"devices", {"cpu"}}};
    std::string text;
    for (const auto& issue : validateProjectJson(doc)) text += issue.toString() + "\n";
    QVERIFY2(text.find("$.data.resident: strategy \"distributed\"") != std::string::npos,
             text.c_str());
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

}  // namespace test_Projects

TB_TEST_GUILESS_MAIN(test_Projects::TestProjects)
#include "test_Projects.moc"
