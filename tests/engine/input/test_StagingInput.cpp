// StagingInput on CPU towers: the batches, their order and the skipping are the wrapped
// input's, taken `stages` per tower ahead; a two-tower run with it trains exactly as without.
// (The CUDA copy on a side stream runs in scripts/gpu-check.sh.)

#include <QtTest>

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/input/QueueInput.h"
#include "engine/input/StagingInput.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/strategies/SyncReplicatedTrainer.h"
#include "engine/train/TrainConfig.h"

using namespace tbench;

namespace {

const std::vector<InputSpec> kSpecs = {{"x", torch::kFloat32, {-1, 2}}};

/// Batch i is filled with the value i.
std::shared_ptr<DataFromList> numbered(int n) {
  std::vector<Datapoint> batches;
  for (int i = 0; i < n; ++i) batches.push_back({torch::full({3, 2}, static_cast<float>(i))});
  return std::make_shared<DataFromList>(batches);
}

float valueOf(const Batch& batch) { return batch["x"][0][0].item<float>(); }

}  // namespace

class TestStagingInput : public QObject {
  Q_OBJECT
 private slots:
  void keepsOrderAndStaysAhead() {
    StagingInput staging(std::make_shared<FeedInput>(numbered(5)), {Device{}}, /*stages=*/1);
    staging.setup(kSpecs);
    QCOMPARE(staging.size(), std::optional<int64_t>(5));
    QVERIFY(!staging.overlaps());
    QCOMPARE(staging.batchesStaged(), int64_t{0});  // nothing read before the first batch
    std::vector<float> seen;
    for (int i = 0; i < 7; ++i) {
      seen.push_back(valueOf(staging.nextBatch()));
      QCOMPARE(staging.batchesStaged(), int64_t{i + 2});  // the next one is already staged
    }
    QCOMPARE(seen, (std::vector<float>{0, 1, 2, 3, 4, 0, 1}));
  }

  void stagesPerTowerAndPassesSkipsOn() {
    StagingInput staging(std::make_shared<FeedInput>(numbered(10)), {Device{}, Device{}},
                         /*stages=*/2);
    staging.setup(kSpecs);
    staging.skipBatches(3);  // as resuming does, before the first batch
    QCOMPARE(valueOf(staging.nextBatch()), 3.0f);
    QCOMPARE(staging.batchesStaged(), int64_t{5});  // 2 stages x 2 towers ahead, plus the next
    QCOMPARE(valueOf(staging.nextBatch()), 4.0f);
    QVERIFY_THROWS_EXCEPTION(CheckError, StagingInput(nullptr, {Device{}}));
    QVERIFY_THROWS_EXCEPTION(CheckError,
                             StagingInput(std::make_shared<FeedInput>(numbered(1)), {}, 1));
  }

  // Two CPU towers fed through QueueInput, with and without staging: the same weights.
  void trainsLikeTheWrappedInput() {
    auto train = [](bool staged) {
      MlpOptions o;
      o.image = ImageShape{1, 4, 4};
      o.numClasses = 3;
      o.hidden = {16};
      torch::manual_seed(2);
      std::vector<Datapoint> batches;
      for (int i = 0; i < 12; ++i) {
        batches.push_back({torch::randn({8, 1, 4, 4}), torch::randint(0, 3, {8}, torch::kInt64)});
      }
      const std::vector<Device> devices{Device{}, Device{}};
      InputSourcePtr input = std::make_shared<QueueInput>(std::make_shared<DataFromList>(batches));
      if (staged) input = std::make_shared<StagingInput>(input, devices);
      TrainConfig config;
      config.model = std::make_shared<SupervisedModel>(
          o.image, [o] { return std::make_shared<Mlp>(o); },
          [](std::vector<torch::Tensor> p) {
            return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(0.1));
          });
      config.input = input;
      config.extraCallbacks = std::vector<CallbackPtr>{};
      config.monitors = std::vector<TrainingMonitorPtr>{};
      config.stepsPerEpoch = 6;
      config.maxEpoch = 2;
      config.seed = 4;
      config.numThreads = 1;
      SyncReplicatedTrainer trainer(devices);
      launchTrainWithConfig(config, trainer);
      std::vector<torch::Tensor> params;
      for (auto& p : trainer.mainModule().parameters()) params.push_back(p.detach().clone());
      return params;
    };
    const auto plain = train(false);
    const auto staged = train(true);
    QCOMPARE(plain.size(), staged.size());
    for (size_t i = 0; i < plain.size(); ++i) QVERIFY(torch::equal(plain[i], staged[i]));
  }
};

QTEST_GUILESS_MAIN(TestStagingInput)
#include "test_StagingInput.moc"
