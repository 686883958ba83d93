// StagingInput on CPU towers: the batches, their order and the skipping are the wrapped
// input's, taken `stages` per tower ahead; a two-tower run with it trains exactly as without.
// On a machine with a GPU and a CUDA LibTorch (scripts/gpu-check.sh runs these there), the
// batches land on the GPU through the side stream with the host's values, and two CUDA towers
// fed through it train as two CPU towers do; without one, those cases are skipped.

#include <QtTest>

#include <torch/cuda.h>
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
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_StagingInput {

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

const char* kNoCuda =
    "no CUDA device here (torch::cuda::is_available() is false): the side-stream copy runs "
    "on a GPU machine (scripts/gpu-check.sh)";

/// The MLP's weights after 2 epochs of 6 steps on two towers on `devices`, fed through
/// QueueInput, staged or not.
std::vector<torch::Tensor> trainTwoTowers(const std::vector<Device>& devices, bool staged) {
  const testing::TinyMlp shape{/*side=*/4, /*classes=*/3};
  const std::vector<Datapoint> batches = testing::randomBatches(12, 8, shape, 2);
  InputSourcePtr input = std::make_shared<QueueInput>(std::make_shared<DataFromList>(batches));
  if (staged) input = std::make_shared<StagingInput>(input, devices);
  TrainConfig config = TrainConfig::quiet();
  config.model = testing::tinyMlpModel(shape, testing::sgd(0.1));
  config.input = input;
  config.stepsPerEpoch = 6;
  config.maxEpoch = 2;
  config.seed = 4;
  config.numThreads = 1;
  SyncReplicatedTrainer trainer(devices);
  launchTrainWithConfig(config, trainer);
  std::vector<torch::Tensor> params;
  for (auto& p : trainer.mainModule().parameters()) params.push_back(p.detach().cpu().clone());
  return params;
}

double maxDifference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  }
  return worst;
}

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
    const std::vector<Device> cpu{Device{}, Device{}};
    const auto plain = trainTwoTowers(cpu, false);
    const auto staged = trainTwoTowers(cpu, true);
    QCOMPARE(plain.size(), staged.size());
    for (size_t i = 0; i < plain.size(); ++i) QVERIFY(torch::equal(plain[i], staged[i]));
  }

  // On a GPU: each batch is on cuda:0 with the host batch's values, in order, while the next
  // `stages` are already in flight; the step's stream waits for the copy, so work queued on it
  // right away reads the copied values, not the memory before the copy landed.
  void copiesToTheGpuAheadOfTheStep() {
    if (!torch::cuda::is_available()) QSKIP(kNoCuda);
    const Device gpu = Device::parse("cuda:0");
    StagingInput staging(std::make_shared<FeedInput>(numbered(6)), {gpu}, /*stages=*/2);
    staging.setup(kSpecs);
    QVERIFY(staging.overlaps());
    for (int i = 0; i < 8; ++i) {
      const Batch batch = staging.nextBatch();
      QVERIFY(batch["x"].is_cuda());
      QCOMPARE(batch["x"].device().index(), c10::DeviceIndex{0});
      QCOMPARE(staging.batchesStaged(), int64_t{i + 3});  // two stages ahead, plus this one
      // Queued on the step's stream without a synchronisation in between.
      const torch::Tensor doubled = batch["x"] * 2;
      QVERIFY(torch::equal(doubled.cpu(), torch::full({3, 2}, 2.0f * static_cast<float>(i % 6))));
    }
  }

  // Two towers on one GPU, staged, train as two CPU towers do (float32 on both; the GPU's
  // kernels sum in another order, hence the tolerance), and staging changes nothing there.
  void trainsOnTheGpuAsOnTheCpu() {
    if (!torch::cuda::is_available()) QSKIP(kNoCuda);
    const std::vector<Device> gpu{Device::parse("cuda:0"), Device::parse("cuda:0")};
    const auto cpu = trainTwoTowers({Device{}, Device{}}, false);
    const auto staged = trainTwoTowers(gpu, true);
    const auto plain = trainTwoTowers(gpu, false);
    QVERIFY2(maxDifference(cpu, staged) < 1e-4,
             qPrintable(QString("CPU vs staged GPU: %1").arg(maxDifference(cpu, staged))));
    QVERIFY2(
        maxDifference(plain, staged) < 1e-6,
        qPrintable(QString("GPU with vs without staging: %1").arg(maxDifference(plain, staged))));
  }
};

}  // namespace test_StagingInput

TB_TEST_GUILESS_MAIN(test_StagingInput::TestStagingInput)
#include "test_StagingInput.moc"
