// SimpleTrainer against a hand-written LibTorch loop, and learning on synthetic data.

#include <QtTest>

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/DataFromList.h"
#include "engine/data/datasets/SyntheticData.h"
#include "engine/input/FeedInput.h"
#include "engine/input/QueueInput.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/ExpectError.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_SimpleTrainer {

using namespace tbench;

namespace {

const testing::TinyMlp kMlp{8, 4, /*hidden=*/{32}};

std::shared_ptr<SupervisedModel> makeModel(double lr) {
  return testing::tinyMlpModel(kMlp, testing::sgd(lr, 0.9));
}

std::vector<Datapoint> fixedBatches(int n) { return testing::randomBatches(n, 16, kMlp); }

}  // namespace

class TestSimpleTrainer : public QObject {
  Q_OBJECT
 private slots:
  void matchesHandWrittenLoopExactly() {
    const auto batches = fixedBatches(6);

    // Towerbench: SimpleTrainer + FeedInput over the same batches, 2 epochs of 3 steps.
    TrainConfig config = TrainConfig::quiet();
    config.model = makeModel(0.05);
    config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches));
    config.stepsPerEpoch = 3;
    config.maxEpoch = 2;
    config.seed = 123;
    config.numThreads = 1;
    SimpleTrainer trainer;
    launchTrainWithConfig(config, trainer);

    // The same by hand.
    torch::manual_seed(123);
    Mlp net(kMlp.options());
    torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
    for (const auto& b : batches) {
      opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net.forward(b[0]), b[1]);
      loss.backward();
      opt.step();
    }

    auto mine = trainer.mainModule().named_parameters();
    auto reference = net.named_parameters();
    QCOMPARE(mine.size(), reference.size());
    for (const auto& item : reference) {
      QVERIFY2(torch::equal(mine[item.key()], item.value()), item.key().c_str());
    }
    QCOMPARE(trainer.globalStep(), int64_t{6});
  }

  void learnsSyntheticDataThroughQueueInput() {
    auto data = std::make_shared<SyntheticData>(
        SyntheticData::Options().numSamples(512).imageSize(8).numClasses(4).shuffle(true).seed(3));
    auto history = std::make_shared<ScalarHistory>();
    TrainConfig config = TrainConfig::quiet();
    config.model = makeModel(0.05);
    // The producer thread forced (on a CPU whose cores the step takes, Auto would make the
    // batches on the training thread and put no queue statistics).
    auto queue = std::make_shared<QueueInput>(std::make_shared<BatchData>(data, 32));
    queue->setProducer(QueueInput::Producer::Thread);
    config.input = queue;
    config.monitors = std::vector<TrainingMonitorPtr>{history};
    config.maxEpoch = 4;  // 16 steps per epoch from the data size
    config.seed = 1;
    SimpleTrainer trainer;
    launchTrainWithConfig(config, trainer);

    QCOMPARE(trainer.stepsPerEpoch(), int64_t{16});
    const auto& cost = history->get("cost");
    QCOMPARE(cost.size(), size_t{64});
    double first = 0, last = 0;
    for (int i = 0; i < 8; ++i) {
      first += cost[i].value / 8;
      last += cost[cost.size() - 1 - i].value / 8;
    }
    QVERIFY2(last < 0.5 * first, qPrintable(QString("cost %1 -> %2").arg(first).arg(last)));
    QVERIFY(history->get("train_error").back().value <= 0.1);
    QVERIFY(!history->get("QueueInput/queue_size").empty());
    QCOMPARE(trainer.samplesPerStep(), int64_t{32});
  }

  void learningRateHyperParamDrivesTheOptimizer() {
    TrainConfig config = TrainConfig::quiet();
    config.model = makeModel(0.05);
    config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(fixedBatches(2)));
    config.stepsPerEpoch = 1;
    SimpleTrainer trainer;
    launchTrainWithConfig(config, trainer);
    HyperParam* lr = trainer.hyperParam("learning_rate");
    QVERIFY(lr != nullptr);
    QCOMPARE(lr->get(), 0.05);
    lr->set(0.01);
    QCOMPARE(trainer.optimizer().param_groups().front().options().get_lr(), 0.01);
  }

  void wrongInputShapeNamesTheInput() {
    TrainConfig config;
    config.model = makeModel(0.05);
    config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(
        std::vector<Datapoint>{{torch::zeros({4, 1, 9, 9}), torch::zeros({4}, torch::kInt64)}}));
    config.extraCallbacks = std::vector<CallbackPtr>{};
    config.stepsPerEpoch = 1;
    SimpleTrainer trainer;
    const auto message =
        tbench::testing::messageOf<InputError>([&] { launchTrainWithConfig(config, trainer); });
    QVERIFY(message.has_value());
    for (const char* part : {"\"image\"", "[?, 1, 8, 8]", "[4, 1, 9, 9]"}) {
      QVERIFY2(tbench::testing::contains(message, part), message->c_str());
    }
  }
};

}  // namespace test_SimpleTrainer

TB_TEST_GUILESS_MAIN(test_SimpleTrainer::TestSimpleTrainer)
#include "test_SimpleTrainer.moc"
