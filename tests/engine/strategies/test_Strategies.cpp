// The data-parallel strategies against each other on CPU towers: one tower on batch 2b vs two
// towers on batch b, starting from the same weights and seeing the same samples. On a machine
// with a GPU and a CUDA LibTorch (scripts/gpu-check.sh), the same comparison with the towers
// on cuda:0, and NCCL's all-reduce; without one those cases are skipped.

#include <QtTest>

#include <set>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/comm/InProcessCommunicator.h"
#include "engine/comm/NcclCommunicator.h"
#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/DataFromList.h"
#include "engine/data/datasets/SyntheticData.h"
#include "engine/input/FeedInput.h"
#include "engine/models/ConvNet.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/strategies/AsyncTrainer.h"
#include "engine/strategies/DistributedTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncParameterServerTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Strategies {

using namespace tbench;

namespace {

constexpr int64_t kB = 8;      // per-tower batch
constexpr int64_t kSteps = 6;  // steps compared

const testing::TinyMlp kMlp{/*side=*/6, /*classes=*/3, /*hidden=*/{24}};
MlpOptions mlpOptions() { return kMlp.options(); }

std::shared_ptr<SupervisedModel> model(const std::string& optimizer, double lr) {
  return testing::tinyMlpModel(kMlp, optimizer == "adam" ? testing::adam(lr) : testing::sgd(lr));
}

/// kSteps batches of 2b samples; with `towers` = 2 each is split into two batches of b, in
/// order, so that tower 0 takes the first half and tower 1 the second.
std::vector<Datapoint> batches(int towers) {
  torch::manual_seed(42);
  std::vector<Datapoint> out;
  for (int64_t s = 0; s < kSteps; ++s) {
    auto x = torch::randn({2 * kB, 1, 6, 6});
    auto y = torch::randint(0, 3, {2 * kB}, torch::kInt64);
    if (towers == 1) {
      out.push_back({x, y});
    } else {
      out.push_back({x.slice(0, 0, kB), y.slice(0, 0, kB)});
      out.push_back({x.slice(0, kB), y.slice(0, kB)});
    }
  }
  return out;
}

std::map<std::string, torch::Tensor> trainWith(SingleCostTrainer& trainer, int towers,
                                               const std::string& optimizer, double lr,
                                               std::shared_ptr<ScalarHistory> history = nullptr,
                                               GradientProcessing gradients = {}) {
  TrainConfig config = TrainConfig::quiet();
  config.gradients = gradients;
  config.model = model(optimizer, lr);
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches(towers)));
  if (history) config.monitors->push_back(history);
  config.stepsPerEpoch = kSteps / 2;
  config.maxEpoch = 2;
  config.seed = 9;
  launchTrainWithConfig(config, trainer);
  std::map<std::string, torch::Tensor> params;
  for (const auto& item : trainer.mainModule().named_parameters()) {
    params[item.key()] = item.value().detach().clone();
  }
  return params;
}

double maxDifference(const std::map<std::string, torch::Tensor>& a,
                     const std::map<std::string, torch::Tensor>& b) {
  double worst = 0;
  for (const auto& [name, t] : a)
    worst = std::max(worst, (t - b.at(name)).abs().max().item<double>());
  return worst;
}

const std::vector<Device> kTwoCpuTowers = {Device{}, Device{}};

/// The MLP with a parameter the cost never uses (Note [Unused parameters]).
class MlpWithUnusedParameter : public ClassifierNet {
 public:
  explicit MlpWithUnusedParameter(const MlpOptions& o)
      : mlp_(register_module("mlp", std::make_shared<Mlp>(o))),
        unused_(register_parameter("unused", torch::ones({4}))) {}
  torch::Tensor forward(torch::Tensor images) override { return mlp_->forward(images); }

 private:
  std::shared_ptr<Mlp> mlp_;
  torch::Tensor unused_;
};

/// A model whose cost throws on one tower.
class FailingModel : public SupervisedModel {
 public:
  FailingModel() : SupervisedModel(*model("sgd", 0.1)) {}
  torch::Tensor cost(TowerContext& tower, torch::nn::Module& net, const Batch& batch) override {
    if (tower.index() == 1) throw std::runtime_error("tower1 ran out of luck");
    return SupervisedModel::cost(tower, net, batch);
  }
};

}  // namespace

class TestStrategies : public QObject {
  Q_OBJECT
 private slots:
  void parameterServerMatchesOneTowerOnTwiceTheBatch() {
    for (const char* opt : {"sgd", "adam"}) {
      SimpleTrainer single;
      SyncParameterServerTrainer ps(kTwoCpuTowers);
      const auto reference = trainWith(single, 1, opt, 0.05);
      const auto mine = trainWith(ps, 2, opt, 0.05);
      QVERIFY2(maxDifference(reference, mine) < 1e-5,
               qPrintable(QString("%1: %2").arg(opt).arg(maxDifference(reference, mine))));
      QCOMPARE(ps.samplesPerStep(), 2 * kB);
    }
  }

  void replicatedMatchesOneTowerAndKeepsReplicasEqual() {
    for (const char* opt : {"sgd", "adam"}) {
      SimpleTrainer single;
      SyncReplicatedTrainer replicated(kTwoCpuTowers, SyncReplicatedOptions().verify());
      const auto reference = trainWith(single, 1, opt, 0.05);
      const auto mine = trainWith(replicated, 2, opt, 0.05);
      QVERIFY2(maxDifference(reference, mine) < 1e-5,
               qPrintable(QString("%1: %2").arg(opt).arg(maxDifference(reference, mine))));
      QCOMPARE(replicated.maxReplicaDifference(), 0.0);
      QCOMPARE(replicated.communicator().name(), std::string("in-process"));
    }
  }

  void replicatedSumEqualsAverageWithScaledLearningRate() {
    SyncReplicatedTrainer average(kTwoCpuTowers);
    SyncReplicatedTrainer sum(kTwoCpuTowers, SyncReplicatedOptions().sum());
    const auto a = trainWith(average, 2, "sgd", 0.1);
    const auto s = trainWith(sum, 2, "sgd", 0.1 / 2);
    QVERIFY2(maxDifference(a, s) < 1e-6, qPrintable(QString::number(maxDifference(a, s))));
  }

  // Issue 25 (F11): the replicated all-reduce gave a parameter without a gradient zeros, so
  // AdamW's weight decay (and Adam's moments) moved it; a lone tower leaves it alone.
  void aParameterNoTowerUsesStaysUntouched() {
    const MlpOptions o = mlpOptions();
    const auto withUnused = [o] {
      return std::make_shared<SupervisedModel>(
          o.image, [o] { return std::make_shared<MlpWithUnusedParameter>(o); },
          [](std::vector<torch::Tensor> p) -> std::unique_ptr<torch::optim::Optimizer> {
            return std::make_unique<torch::optim::AdamW>(
                p, torch::optim::AdamWOptions(0.05).weight_decay(0.5));
          });
    };
    const auto train = [&](SingleCostTrainer& trainer, int towers) {
      TrainConfig config = TrainConfig::quiet();
      config.model = withUnused();
      config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches(towers)));
      config.stepsPerEpoch = kSteps;
      config.maxEpoch = 1;
      config.seed = 9;
      launchTrainWithConfig(config, trainer);
      std::map<std::string, torch::Tensor> params;
      for (const auto& item : trainer.mainModule().named_parameters())
        params[item.key()] = item.value().detach().clone();
      return params;
    };
    SimpleTrainer single;
    SyncReplicatedTrainer replicated(kTwoCpuTowers);
    const auto reference = train(single, 1);
    const auto mine = train(replicated, 2);
    QVERIFY(torch::equal(reference.at("unused"), torch::ones({4})));
    QVERIFY2(torch::equal(mine.at("unused"), torch::ones({4})),
             qPrintable(QString("replicated moved the unused parameter to %1")
                            .arg(mine.at("unused")[0].item<double>())));
    QVERIFY2(maxDifference(reference, mine) < 1e-5,
             qPrintable(QString::number(maxDifference(reference, mine))));
    for (int t = 0; t < 2; ++t) {
      for (const auto& item : replicated.replica(t).named_parameters()) {
        if (item.key() == "unused") QVERIFY(!item.value().grad().defined());
      }
    }
    // Issue 34 (N6): the parameter server's and the async master's gradients were zeros that
    // were never reset, so AdamW's decay moved the parameter there too.
    SyncParameterServerTrainer ps(kTwoCpuTowers);
    const auto psParams = train(ps, 2);
    QVERIFY2(torch::equal(psParams.at("unused"), torch::ones({4})),
             qPrintable(QString("sync_parameter_server moved the unused parameter to %1")
                            .arg(psParams.at("unused")[0].item<double>())));
    QVERIFY2(maxDifference(reference, psParams) < 1e-5,
             qPrintable(QString::number(maxDifference(reference, psParams))));
    AsyncTrainer async(kTwoCpuTowers);
    const auto asyncParams = train(async, 2);
    QVERIFY2(torch::equal(asyncParams.at("unused"), torch::ones({4})),
             qPrintable(QString("async moved the unused parameter to %1")
                            .arg(asyncParams.at("unused")[0].item<double>())));
  }

  // Issue 25 (F8), Note [Rank random streams]: a stream per (rank, step), the same every time.
  void rankStreamsDifferAndRepeat() {
    std::set<uint64_t> seeds;
    for (int rank = 0; rank < 4; ++rank) {
      for (int64_t step = 1; step <= 4; ++step) seeds.insert(rankStepSeed(7, rank, step));
    }
    QCOMPARE(seeds.size(), size_t{16});
    QCOMPARE(rankStepSeed(7, 1, 3), rankStepSeed(7, 1, 3));
    QVERIFY(rankStepSeed(7, 1, 3) != rankStepSeed(8, 1, 3));
  }

  void asyncConvergesAndLosesNoUpdate() {
    auto data = std::make_shared<SyntheticData>(
        SyntheticData::Options().numSamples(640).imageSize(6).numClasses(3).noise(0.5).shuffle(
            true));
    auto history = std::make_shared<ScalarHistory>();
    AsyncTrainer trainer(kTwoCpuTowers);
    TrainConfig config = TrainConfig::quiet();
    config.model = model("sgd", 0.1);
    config.dataflow = std::make_shared<BatchData>(data, 16);  // 40 batches: 20 steps of 2 towers
    config.monitors = std::vector<TrainingMonitorPtr>{history};
    config.stepsPerEpoch = 20;
    config.maxEpoch = 4;
    config.seed = 1;
    launchTrainWithConfig(config, trainer);
    QCOMPARE(trainer.updatesApplied(), int64_t{2 * 80});
    const auto& cost = history->get("cost");
    QVERIFY2(cost.back().value < 0.5 * cost.front().value,
             qPrintable(QString("%1 -> %2").arg(cost.front().value).arg(cost.back().value)));
    QVERIFY(history->get("train_error").back().value <= 0.2);
  }

  void aFailingTowerStopsTheRunWithItsMessage() {
    SyncReplicatedTrainer trainer(kTwoCpuTowers);
    TrainConfig config;
    config.model = std::make_shared<FailingModel>();
    config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches(2)));
    config.extraCallbacks = std::vector<CallbackPtr>{};
    config.stepsPerEpoch = 2;
    try {
      launchTrainWithConfig(config, trainer);
      QFAIL("expected the tower's exception");
    } catch (const std::runtime_error& e) {
      QCOMPARE(std::string(e.what()), std::string("tower1 ran out of luck"));
    }
    QCOMPARE(trainer.globalStep(), int64_t{0});
  }

  void checkpointsOfEveryStrategyLoadIntoASimpleTrainer() {
    QTemporaryDir dir;
    std::vector<std::unique_ptr<SingleCostTrainer>> trainers;
    trainers.push_back(std::make_unique<SyncParameterServerTrainer>(kTwoCpuTowers));
    trainers.push_back(std::make_unique<SyncReplicatedTrainer>(kTwoCpuTowers));
    trainers.push_back(std::make_unique<AsyncTrainer>(kTwoCpuTowers));
    for (auto& trainer : trainers) {
      const auto trained = trainWith(*trainer, 2, "sgd", 0.05);
      const std::string path = dir.path().toStdString() + "/ckpt.pt";
      trainer->saveCheckpoint(path);
      const MlpOptions o = mlpOptions();
      Mlp fresh(o);
      const RestoreReport report = restoreModel(fresh, readCheckpointFile(path));
      QVERIFY2(report.missing.empty() && report.unexpected.empty() && report.shapeMismatch.empty(),
               report.toString().c_str());
      QCOMPARE(report.loaded.size(), trained.size());
      for (const auto& item : fresh.named_parameters()) {
        QVERIFY(torch::equal(item.value(), trained.at(item.key())));
      }
    }
  }

  // grad_norm_every (issue 24): the norm is put every N steps and at every epoch's last step,
  // on one tower and on replicas alike; with clipping it is computed, and put, every step.
  void gradNormIsPutEveryNStepsAndAtEpochEnds() {
    const int64_t perEpoch = kSteps / 2;
    const auto every = GradientProcessing().reportEvery(2);
    std::vector<int64_t> expected;
    for (int64_t step = 1; step <= 2 * perEpoch; ++step) {
      if (step % 2 == 0 || step % perEpoch == 0) expected.push_back(step);
    }
    QVERIFY(expected.size() < static_cast<size_t>(kSteps));  // the test must drop some steps
    auto steps = [](const ScalarHistory& history) {
      std::vector<int64_t> out;
      for (const auto& point : history.get("grad_norm")) out.push_back(point.globalStep);
      return out;
    };
    auto everyStep = std::make_shared<ScalarHistory>();
    SimpleTrainer reference;
    trainWith(reference, 1, "sgd", 0.5, everyStep);
    QCOMPARE(steps(*everyStep).size(), size_t{kSteps});
    auto one = std::make_shared<ScalarHistory>();
    SimpleTrainer single;
    trainWith(single, 1, "sgd", 0.5, one, every);
    QCOMPARE(steps(*one), expected);
    // The values are the norms of those steps: the same training, fewer reports.
    for (const auto& point : one->get("grad_norm")) {
      QCOMPARE(point.value, everyStep->get("grad_norm")[point.globalStep - 1].value);
    }
    auto two = std::make_shared<ScalarHistory>();
    SyncReplicatedTrainer replicated(kTwoCpuTowers);
    trainWith(replicated, 2, "sgd", 0.5, two, every);
    QCOMPARE(steps(*two), expected);
    auto clipped = std::make_shared<ScalarHistory>();
    SimpleTrainer clipping;
    trainWith(clipping, 1, "sgd", 0.5, clipped, GradientProcessing(every).clipGlobalNorm(100));
    QCOMPARE(steps(*clipped).size(), size_t{kSteps});
  }

  void gradientClippingAgreesAcrossStrategies() {
    // Clipping acts on the gradients the update uses (the towers' average), so two towers on b
    // still match one tower on 2b, and grad_norm is the same global norm.
    const auto clip = GradientProcessing().clipGlobalNorm(0.05).clipValue(0.01);
    auto referenceHistory = std::make_shared<ScalarHistory>();
    SimpleTrainer single;
    const auto reference = trainWith(single, 1, "sgd", 0.5, referenceHistory, clip);
    const auto unclipped = [&] {
      SimpleTrainer plain;
      return trainWith(plain, 1, "sgd", 0.5);
    }();
    QVERIFY2(maxDifference(reference, unclipped) > 1e-3, "clipping changed nothing");
    std::vector<std::unique_ptr<SingleCostTrainer>> trainers;
    trainers.push_back(std::make_unique<SyncParameterServerTrainer>(kTwoCpuTowers));
    trainers.push_back(std::make_unique<SyncReplicatedTrainer>(kTwoCpuTowers));
    for (auto& trainer : trainers) {
      auto history = std::make_shared<ScalarHistory>();
      const auto mine = trainWith(*trainer, 2, "sgd", 0.5, history, clip);
      QVERIFY2(maxDifference(reference, mine) < 1e-5,
               qPrintable(QString::number(maxDifference(reference, mine))));
      const auto norms = history->get("grad_norm");
      const auto expected = referenceHistory->get("grad_norm");
      QCOMPARE(norms.size(), size_t{kSteps});
      QCOMPARE(expected.size(), size_t{kSteps});
      for (size_t i = 0; i < norms.size(); ++i) {
        QVERIFY(norms[i].value > 0.05);  // these gradients are above the limit: clipping acted
        QVERIFY(std::abs(norms[i].value - expected[i].value) < 1e-5);
        QCOMPARE(norms[i].globalStep, int64_t(i + 1));
      }
    }
  }

  void batchNormStatisticsFollowTowerZeroUnderEveryStrategy() {
    // Issue 10: with the parameter server and async the master's running statistics stayed at
    // mean 0 / variance 1, so checkpoints and validation used them.
    ConvNetOptions net;
    net.image = ImageShape{1, 8, 8};
    net.numClasses = 4;
    net.conv1Channels = 4;
    net.conv2Channels = 6;
    net.kernelSize = 3;
    net.fcWidth = 16;
    net.batchNorm = true;
    std::vector<std::pair<std::string, std::unique_ptr<MultiTowerTrainer>>> trainers;
    trainers.emplace_back("ps", std::make_unique<SyncParameterServerTrainer>(kTwoCpuTowers));
    trainers.emplace_back("replicated", std::make_unique<SyncReplicatedTrainer>(kTwoCpuTowers));
    trainers.emplace_back("async", std::make_unique<AsyncTrainer>(kTwoCpuTowers));
    for (auto& [label, trainer] : trainers) {
      TrainConfig config = TrainConfig::quiet();
      config.model = std::make_shared<SupervisedModel>(
          net.image, [net] { return std::make_shared<ConvNet>(net); },
          [](std::vector<torch::Tensor> p) {
            return std::make_unique<torch::optim::SGD>(p, torch::optim::SGDOptions(0.05));
          });
      config.dataflow = std::make_shared<BatchData>(
          std::make_shared<SyntheticData>(SyntheticData::Options().numSamples(160).noise(0.5)), 8);
      config.stepsPerEpoch = 5;
      config.seed = 4;
      launchTrainWithConfig(config, *trainer);
      auto main = trainer->mainModule().named_buffers();
      const torch::Tensor mean = main["bn1.running_mean"];
      const torch::Tensor var = main["bn1.running_var"];
      QVERIFY2(mean.abs().max().item<double>() > 1e-4, label.c_str());
      QVERIFY2((var - 1).abs().max().item<double>() > 1e-4, label.c_str());
      QCOMPARE(main["bn1.num_batches_tracked"].item<int64_t>(), int64_t{5});
      for (int t = 0; t < trainer->numTowers(); ++t) {
        if (label != "replicated" && t > 0) continue;  // only tower 0 counts for ps and async
        for (const auto& item : trainer->replica(t).named_buffers()) {
          QVERIFY2(
              torch::equal(item.value(), main[item.key()]),
              qPrintable(
                  QString("%1: tower %2 %3").arg(label.c_str()).arg(t).arg(item.key().c_str())));
        }
      }
      // The checkpoint keeps them (what validation and export use).
      QTemporaryDir dir;
      const std::string path = dir.path().toStdString() + "/bn.pt";
      trainer->saveCheckpoint(path);
      for (const auto& [name, tensor] : readCheckpointFile(path).model) {
        if (name == "bn1.running_mean") QVERIFY(torch::equal(tensor, mean));
      }
    }
  }

  // Every strategy with its towers on the GPU (two towers share cuda:0 where a strategy needs
  // two) against one CPU tower on twice the batch: float32 on both, the GPU's kernels summing
  // in another order, hence 1e-4 instead of 1e-5. The async strategy is left out: its towers
  // race by design (asyncConvergesAndLosesNoUpdate covers it).
  void strategiesOnTheGpuMatchOneCpuTower() {
    if (!torch::cuda::is_available()) {
      QSKIP(
          "no CUDA device here (torch::cuda::is_available() is false): runs on a GPU "
          "machine (scripts/gpu-check.sh)");
    }
    const Device gpu = Device::parse("cuda:0");
    const std::vector<Device> twoOnGpu{gpu, gpu};
    for (const char* opt : {"sgd", "adam"}) {
      SimpleTrainer reference;
      const auto want = trainWith(reference, 1, opt, 0.05);
      auto check = [&](const char* name, SingleCostTrainer& trainer, int towers) {
        auto got = trainWith(trainer, towers, opt, 0.05);
        for (auto& [key, t] : got) t = t.cpu();
        QVERIFY2(maxDifference(want, got) < 1e-4,
                 qPrintable(QString("%1 with %2: %3")
                                .arg(QString::fromUtf8(name), QString::fromUtf8(opt))
                                .arg(maxDifference(want, got))));
      };
      SimpleTrainer simple(gpu);
      check("simple on cuda:0", simple, 1);
      SyncParameterServerTrainer ps(twoOnGpu, gpu);
      check("sync_parameter_server on cuda:0 x2", ps, 2);
      SyncReplicatedTrainer replicated(twoOnGpu, SyncReplicatedOptions().verify());
      check("sync_replicated on cuda:0 x2", replicated, 2);
      QCOMPARE(replicated.maxReplicaDifference(), 0.0);
    }
  }

  void inProcessAllReduceAndBroadcast() {
    InProcessCommunicator comm;
    Communicator::PerTower t = {{torch::tensor({1.0, 2.0})}, {torch::tensor({3.0, 6.0})}};
    comm.allReduce(t, Communicator::ReduceOp::Average);
    QVERIFY(torch::equal(t[0][0], torch::tensor({2.0, 4.0})));
    QVERIFY(torch::equal(t[1][0], torch::tensor({2.0, 4.0})));
    t[1][0].fill_(7.0);
    comm.broadcast(t, 1);
    QVERIFY(torch::equal(t[0][0], torch::tensor({7.0, 7.0})));
    Communicator::PerTower bad = {{torch::zeros({2})}, {torch::zeros({3})}};
    QVERIFY_THROWS_EXCEPTION(CheckError, comm.allReduce(bad, Communicator::ReduceOp::Sum));
  }

  void ncclLinksAndReportsItsVersion() {
    if (!ncclBuiltIn()) QSKIP("built without NCCL (CMake found no CUDA/NCCL)");
    const std::string version = ncclVersionText();
    QVERIFY2(version.rfind("NCCL 2.", 0) == 0, version.c_str());
  }

  void ncclRunsOnlyWithAGpu() {
    if (!ncclBuiltIn()) QSKIP("built without NCCL (CMake found no CUDA/NCCL)");
    if (cudaRuntimeDeviceCount() == 0) {
      // The honest failure: it names NCCL's version and says that no device is available.
      try {
        NcclCommunicator comm({Device::parse("cuda:0")});
        QFAIL("NcclCommunicator must refuse to start without a CUDA device");
      } catch (const CheckError& e) {
        QVERIFY2(std::string(e.what()).find("no CUDA device is available") != std::string::npos,
                 e.what());
      }
      QSKIP("no CUDA device: NCCL all-reduce not exercised on this machine");
    }
    if (!torch::cuda::is_available()) {
      QSKIP("a GPU is present but this LibTorch has no CUDA: NCCL needs CUDA tensors");
    }
    const int n = static_cast<int>(torch::cuda::device_count());
    std::vector<Device> devices;
    Communicator::PerTower t;
    for (int i = 0; i < n; ++i) {
      devices.push_back(Device{Device::Kind::Cuda, i});
      t.push_back({torch::full({4}, static_cast<double>(i + 1),
                               torch::TensorOptions().device(torch::Device(torch::kCUDA, i)))});
    }
    NcclCommunicator comm(devices);
    comm.allReduce(t, Communicator::ReduceOp::Sum);
    const double expected = n * (n + 1) / 2.0;
    for (int i = 0; i < n; ++i) QCOMPARE(t[i][0].cpu()[0].item<double>(), expected);
  }
};

}  // namespace test_Strategies

TB_TEST_GUILESS_MAIN(test_Strategies::TestStrategies)
#include "test_Strategies.moc"
