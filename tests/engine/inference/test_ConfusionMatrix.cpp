// ConfusionMatrix: exact counts on known outputs, and through the real loop on a tiny synthetic
// dataset (the JSON file per epoch, per-class scalars, the heat map and misclassified images).

#include <QtTest>

#include <torch/torch.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/datasets/SyntheticData.h"
#include "engine/inference/ConfusionMatrix.h"
#include "engine/inference/InferenceRunner.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ConfusionMatrix {

using namespace tbench;

namespace {

class ImageRecorder : public TrainingMonitor {
 public:
  std::map<std::string, std::vector<ImageData>> images;
  void processImage(const std::string& name, const ImageData& image, const MetricStamp&) override {
    images[name].push_back(image);
  }
};

std::map<std::string, torch::Tensor> outputs(std::vector<int64_t> labels,
                                             std::vector<int64_t> predictions) {
  return {{"label", torch::tensor(labels)}, {"prediction", torch::tensor(predictions)}};
}

}  // namespace

class TestConfusionMatrix : public QObject {
  Q_OBJECT

 private slots:
  void countsExactlyOverUnevenBatches() {
    ConfusionMatrix matrix(3, {"cat", "dog", "a/b"}, /*maxMisclassified=*/2);
    for (int pass = 0; pass < 2; ++pass) {  // a second pass starts afresh
      matrix.beforeInference();
      const torch::Tensor images = torch::arange(5 * 4, torch::kFloat32).reshape({5, 1, 2, 2});
      matrix.onBatchWithInputs({images, torch::zeros({5}, torch::kLong)},
                               outputs({0, 0, 1, 2, 2}, {0, 1, 1, 2, 0}), 5);
      matrix.onBatch(outputs({1, 0}, {0, 0}), 2);
      const auto scalars = matrix.afterInference();
      const std::vector<std::vector<int64_t>> expected{{2, 1, 0}, {1, 1, 0}, {1, 0, 1}};
      QCOMPARE(matrix.counts(), expected);
      QCOMPARE(scalars.size(), size_t{3});
      QCOMPARE(scalars.at("validation_accuracy/cat"), 2.0 / 3.0);
      QCOMPARE(scalars.at("validation_accuracy/dog"), 0.5);
      QCOMPARE(scalars.at("validation_accuracy/a_b"), 0.5);
      QCOMPARE(matrix.misclassified().size(), size_t{2});  // capped
      QCOMPARE(matrix.misclassified()[0].index, int64_t{1});
      QCOMPARE(matrix.misclassified()[1].index, int64_t{4});
      QCOMPARE(matrix.misclassified()[1].trueClass, int64_t{2});
      QCOMPARE(matrix.misclassified()[1].predicted, int64_t{0});
    }
    const nlohmann::json doc = matrix.toJson(4, 40);
    QCOMPARE(doc["epoch"].get<int>(), 4);
    QCOMPARE(doc["samples"].get<int>(), 7);
    QCOMPARE(doc["accuracy"].get<double>(), 4.0 / 7.0);
    QCOMPARE(doc["class_names"][2].get<std::string>(), std::string("a/b"));
    const auto& cat = doc["per_class"][0];
    QCOMPARE(cat["samples"].get<int>(), 3);
    QCOMPARE(cat["precision"].get<double>(), 2.0 / 4.0);  // column 0 sums to 4
    QCOMPARE(cat["recall"].get<double>(), 2.0 / 3.0);
    QCOMPARE(cat["accuracy"].get<double>(), 2.0 / 3.0);  // as validation_accuracy/cat: recall
    QCOMPARE(cat["one_vs_rest"].get<double>(), (2.0 + 2.0) / 7.0);  // TP 2, TN 2 (dog/a/b rows)
    QCOMPARE(doc["misclassified"][0]["predicted"].get<int>(), 1);
  }

  void undefinedRatiosAreNull() {
    ConfusionMatrix matrix(2, {});
    matrix.onBatch(outputs({0, 0}, {0, 0}), 2);
    const nlohmann::json doc = matrix.toJson(1, 1);
    QVERIFY(doc["per_class"][1]["precision"].is_null());
    QVERIFY(doc["per_class"][1]["recall"].is_null());
    QCOMPARE(doc["class_names"][1].get<std::string>(), std::string("1"));
    QCOMPARE(matrix.afterInference().count("validation_accuracy/1"), size_t{0});
  }

  void rejectsOutOfRangeClassesAndMissingOutputs() {
    ConfusionMatrix matrix(2, {});
    QVERIFY_THROWS_EXCEPTION(CheckError, matrix.onBatch(outputs({0, 2}, {0, 0}), 2));
    QVERIFY_THROWS_EXCEPTION(CheckError, matrix.onBatch({{"label", torch::zeros({2})}}, 2));
    QVERIFY_THROWS_EXCEPTION(CheckError, ConfusionMatrix(3, {"a"}));
  }

  void heatMapColoursRowShares() {
    const ImageData map = confusionHeatMap({{3, 1}, {0, 0}});
    QCOMPARE(map.channels, 3);
    QCOMPARE(map.width, 2 * 32 + 1);
    const auto px = [&](int y, int x, int c) { return map.pixels[(y * map.width + x) * 3 + c]; };
    QCOMPARE(int(px(0, 0, 0)), 160);                               // grid
    QCOMPARE(int(px(10, 10, 0)), int(uint8_t(255 - 0.75 * 247)));  // 3 of 4: dark
    QCOMPARE(int(px(10, 40, 2)), int(uint8_t(255 - 0.25 * 148)));
    QCOMPARE(int(px(40, 40, 1)), 255);  // an empty row is white
  }

  void writesAFilePerEpochThroughTheRealLoop() {
    const std::string dir = QDir::temp().filePath("tb-confusion-test").toStdString();
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    auto validation = std::make_shared<SyntheticData>(
        SyntheticData::Options().numSamples(203).imageSize(8).numClasses(4).noise(2.0).dataSeed(
            99));
    auto matrix =
        std::make_shared<ConfusionMatrix>(4, std::vector<std::string>{"a", "b", "c", "d"});
    auto runner = std::make_shared<InferenceRunner>(
        std::make_shared<BatchData>(validation, 64, /*remainder=*/true),
        std::vector<InferencerPtr>{matrix});
    auto history = std::make_shared<ScalarHistory>();
    auto images = std::make_shared<ImageRecorder>();
    TrainConfig config = TrainConfig::quiet();
    config.model = testing::tinyMlpModel();
    config.dataflow = std::make_shared<BatchData>(
        std::make_shared<SyntheticData>(
            SyntheticData::Options().numSamples(256).imageSize(8).numClasses(4).noise(2.0)),
        32);
    config.callbacks = {runner};
    config.monitors = std::vector<TrainingMonitorPtr>{history, images};
    config.maxEpoch = 2;
    config.seed = 5;
    config.runDir = dir;
    SimpleTrainer trainer;
    launchTrainWithConfig(config, trainer);

    for (int epoch : {1, 2}) {
      const std::string file = dir + "/confusion/epoch-" + std::to_string(epoch) + ".json";
      QVERIFY2(std::filesystem::exists(file), file.c_str());
    }
    const auto doc = nlohmann::json::parse(readFile(dir + "/confusion/epoch-2.json"));
    QCOMPARE(doc["epoch"].get<int>(), 2);
    QCOMPARE(doc["samples"].get<int>(), 203);
    // The same counts by hand with the trained replica in eval mode.
    auto& net = trainer.mainModule();
    net.eval();
    torch::NoGradGuard noGrad;
    const auto predicted = SupervisedModel::logits(net, validation->images()).argmax(1);
    const auto labels = validation->labels();
    int64_t wrong = 0;
    for (int64_t t = 0; t < 4; ++t) {
      for (int64_t p = 0; p < 4; ++p) {
        const int64_t n = ((labels == t) & (predicted == p)).sum().item<int64_t>();
        QCOMPARE(doc["counts"][t][p].get<int64_t>(), n);
        if (t != p) wrong += n;
      }
    }
    QCOMPARE(history->get("validation_accuracy/a").size(), size_t{2});
    QCOMPARE(images->images["confusion_matrix"].size(), size_t{2});
    QCOMPARE(images->images["confusion_matrix"][0].width, 4 * 32 + 1);
    // Noise 2.0 leaves mistakes after two epochs; each listed one is a real mistake of the
    // sample it names.
    QVERIFY(wrong > 0);
    QCOMPARE(images->images["misclassified"].size(), size_t{2});
    QCOMPARE(doc["misclassified"].size(), size_t(std::min<int64_t>(wrong, 32)));
    for (const auto& m : doc["misclassified"]) {
      const int64_t index = m["index"].get<int64_t>();
      QCOMPARE(m["true"].get<int64_t>(), labels[index].item<int64_t>());
      QCOMPARE(m["predicted"].get<int64_t>(), predicted[index].item<int64_t>());
      QVERIFY(m["true"] != m["predicted"]);
    }
    std::filesystem::remove_all(dir);
  }
};

}  // namespace test_ConfusionMatrix

TB_TEST_GUILESS_MAIN(test_ConfusionMatrix::TestConfusionMatrix)
#include "test_ConfusionMatrix.moc"
