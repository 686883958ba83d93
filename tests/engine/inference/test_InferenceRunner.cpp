// Inferencers and InferenceRunner: exact metrics over uneven batches, through the real loop.

#include <QtTest>

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/datasets/SyntheticData.h"
#include "engine/inference/ClassificationError.h"
#include "engine/inference/InferenceRunner.h"
#include "engine/inference/ScalarStats.h"
#include "engine/inference/TopKAccuracy.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_InferenceRunner {

using namespace tbench;

namespace {

std::shared_ptr<SupervisedModel> tinyModel() {
  // Inference must run in eval mode: dropout off.
  return testing::tinyMlpModel({8, 4, {16}, /*dropout=*/0.5});
}

/// Samples of the patterns drawn from seed 1; `sampleSeed` 0 gives the training samples, another
/// seed held-out samples of the same classes.
std::shared_ptr<SyntheticData> synthetic(int64_t n, uint64_t sampleSeed) {
  return std::make_shared<SyntheticData>(SyntheticData::Options()
                                             .numSamples(n)
                                             .imageSize(8)
                                             .numClasses(4)
                                             .noise(2.0)
                                             .dataSeed(1)
                                             .sampleSeed(sampleSeed));
}

}  // namespace

class TestInferenceRunner : public QObject {
  Q_OBJECT
 private slots:
  void classificationErrorIsExactOverUnevenBatches() {
    ClassificationError error;
    error.beforeInference();
    error.onBatch({{"wrong", torch::tensor({1.f, 0.f, 0.f, 0.f})}}, 4);
    error.onBatch({{"wrong", torch::tensor({1.f, 1.f, 0.f, 0.f})}}, 4);
    error.onBatch({{"wrong", torch::tensor({1.f})}}, 1);
    QCOMPARE(error.afterInference().at("validation_error"), 4.0 / 9.0);  // not (1/4+2/4+1)/3
    // A new pass starts from zero.
    error.beforeInference();
    error.onBatch({{"wrong", torch::tensor({0.f, 1.f})}}, 2);
    QCOMPARE(error.afterInference().at("validation_error"), 0.5);
  }

  // Issue 37: top-k accuracy, exact over uneven batches; k = 1 is 1 - the error; k at least
  // the classes counts every sample; the totals shard and add up.
  void topKAccuracyCountsTheLabelAmongTheKLargest() {
    // 3 classes. Sample: label, rank of the label's logit (1 = largest).
    const torch::Tensor logits1 = torch::tensor({{3.f, 2.f, 1.f},    // label 0: 1st
                                                 {3.f, 2.f, 1.f},    // label 1: 2nd
                                                 {3.f, 2.f, 1.f},    // label 2: 3rd
                                                 {0.f, 5.f, 1.f}});  // label 2: 2nd
    const torch::Tensor labels1 = torch::tensor({0, 1, 2, 2}, torch::kInt64);
    const torch::Tensor logits2 = torch::tensor({{1.f, 0.f, 2.f}});  // label 0: 2nd
    const torch::Tensor labels2 = torch::tensor({0}, torch::kInt64);
    const auto pass = [&](TopKAccuracy& accuracy) {
      accuracy.beforeInference();
      accuracy.onBatch({{"logits", logits1}, {"label", labels1}}, 4);
      accuracy.onBatch({{"logits", logits2}, {"label", labels2}}, 1);
      return accuracy.afterInference().at(accuracy.scalarName());
    };
    TopKAccuracy top1(1), top2(2), top5(5);
    QCOMPARE(pass(top1), 1.0 / 5.0);
    QCOMPARE(pass(top2), 4.0 / 5.0);  // not the mean of the batches' (3/4 + 1) / 2
    QCOMPARE(pass(top5), 1.0);        // k beyond the 3 classes
    QCOMPARE(top2.scalarName(), std::string("validation_top2_accuracy"));
    // Two shards' totals add up to the one pass's.
    TopKAccuracy a(2), b(2);
    a.beforeInference();
    a.onBatch({{"logits", logits1}, {"label", labels1}}, 4);
    b.beforeInference();
    b.onBatch({{"logits", logits2}, {"label", labels2}}, 1);
    a.setTotals(a.totals() + b.totals());
    QCOMPARE(a.afterInference().at("validation_top2_accuracy"), 4.0 / 5.0);
    QVERIFY_THROWS_EXCEPTION(CheckError, TopKAccuracy(0));
  }

  void scalarStatsWeightsBatchesBySize() {
    ScalarStats stats;
    stats.beforeInference();
    stats.onBatch({{"cost", torch::tensor(1.0)}}, 4);
    stats.onBatch({{"cost", torch::tensor(4.0)}}, 2);
    QCOMPARE(stats.afterInference().at("validation_cost"), 2.0);
  }

  void missingOutputIsNamed() {
    ClassificationError error("wrong-top5");
    error.beforeInference();
    try {
      error.onBatch({{"wrong", torch::zeros({2})}}, 2);
      QFAIL("expected a CheckError");
    } catch (const CheckError& e) {
      QVERIFY2(std::string(e.what()).find("\"wrong-top5\"") != std::string::npos, e.what());
    }
  }

  void runsEveryEpochAndMatchesAHandComputation() {
    // Held-out samples of the training classes (a validation set drawn from other patterns,
    // as this test once had, stays at chance whatever the training: its "improvement" was luck).
    auto validation = synthetic(203, 99);  // 203 = 3 batches of 64 + 11
    auto runner = std::make_shared<InferenceRunner>(
        std::make_shared<BatchData>(validation, 64, /*remainder=*/true),
        std::vector<InferencerPtr>{std::make_shared<ScalarStats>(),
                                   std::make_shared<ClassificationError>()});
    auto history = std::make_shared<ScalarHistory>();
    TrainConfig config = TrainConfig::quiet();
    config.model = tinyModel();
    config.dataflow = std::make_shared<BatchData>(synthetic(512, 0), 32);
    config.callbacks = {runner};
    config.monitors = std::vector<TrainingMonitorPtr>{history};
    config.maxEpoch = 3;
    config.seed = 5;
    SimpleTrainer trainer;
    launchTrainWithConfig(config, trainer);

    const auto& error = history->get("validation_error");
    QCOMPARE(error.size(), size_t{3});
    QCOMPARE(error[2].epochNum, int64_t{3});
    QCOMPARE(history->get("validation_cost").size(), size_t{3});
    QVERIFY2(error[2].value < error[0].value || error[2].value < 0.05,
             qPrintable(QString("%1 -> %2").arg(error[0].value).arg(error[2].value)));

    // The same by hand with the trained replica in eval mode, over all 203 samples at once.
    auto& net = trainer.mainModule();
    QVERIFY(net.is_training());  // inference used its own replica
    net.eval();
    torch::NoGradGuard noGrad;
    auto logits = SupervisedModel::logits(net, validation->images());
    const double wrong =
        (logits.argmax(1) != validation->labels()).to(torch::kFloat64).sum().item<double>();
    QCOMPARE(error[2].value, wrong / 203.0);
    QCOMPARE(runner->lastResults().at("validation_error"), error[2].value);
  }
};

}  // namespace test_InferenceRunner

TB_TEST_GUILESS_MAIN(test_InferenceRunner::TestInferenceRunner)
#include "test_InferenceRunner.moc"
