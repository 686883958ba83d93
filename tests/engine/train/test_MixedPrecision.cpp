// Mixed precision: autocast scopes, the gradient scaler on its own and in the real loop
// (overflowing steps skipped, the scale backed off and grown, its state resumed), bf16-mixed
// training against 32-bit, and the project key's validation. On a machine with a GPU and a
// CUDA LibTorch (scripts/gpu-check.sh), also the fused unscale kernel against the CPU path, and
// 16-mixed and bf16-mixed training on cuda:0 against 32-bit; without one those are skipped.

#include <QtTest>

#include <torch/cuda.h>
#include <torch/torch.h>

#include <atomic>
#include <optional>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/checkpoint/Checkpoint.h"
#include "engine/core/Check.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectJson.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"
#include "engine/train/MixedPrecision.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_MixedPrecision {

using namespace tbench;

namespace {

/// A linear regression whose cost is multiplied by `blowUpAt`'s factor at chosen calls, so
/// that its scaled gradients overflow float32 there.
class OverflowingModel : public ModelDesc {
 public:
  std::vector<int64_t> overflowCalls;  ///< 1-based calls of cost() that overflow
  std::atomic<int64_t> calls{0};

  std::vector<InputSpec> inputs() const override {
    return {{"x", torch::kFloat32, {-1, 4}}, {"y", torch::kFloat32, {-1, 1}}};
  }
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext&) override {
    return std::make_shared<torch::nn::LinearImpl>(4, 1);
  }
  torch::Tensor cost(TowerContext&, torch::nn::Module& net, const Batch& batch) override {
    auto& linear = dynamic_cast<torch::nn::LinearImpl&>(net);
    const int64_t call = ++calls;
    torch::Tensor c = (linear.forward(batch["x"]) - batch["y"]).pow(2).mean();
    for (int64_t k : overflowCalls) {
      if (k == call) c = c * 1e36;  // finite, but times the scale 65536 the gradient is not
    }
    return c;
  }
  std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) override {
    return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(0.05));
  }
};

GradScalerOptions scalerOptions(double initScale, int64_t growthInterval) {
  GradScalerOptions options;
  options.initScale = initScale;
  options.growthInterval = growthInterval;
  return options;
}

std::vector<Datapoint> regressionBatches(int n) {
  torch::manual_seed(5);
  const torch::Tensor w = torch::tensor({{1.0f}, {-2.0f}, {0.5f}, {3.0f}});
  std::vector<Datapoint> batches;
  for (int i = 0; i < n; ++i) {
    torch::Tensor x = torch::randn({8, 4});
    batches.push_back({x, x.mm(w)});
  }
  return batches;
}

TrainConfig baseConfig(ModelDescBasePtr model, std::vector<Datapoint> batches,
                       std::shared_ptr<ScalarHistory> history) {
  TrainConfig config = TrainConfig::quiet();
  config.model = std::move(model);
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(std::move(batches)));
  config.monitors = std::vector<TrainingMonitorPtr>{history};
  config.seed = 1;
  config.numThreads = 1;
  return config;
}

std::vector<torch::Tensor> weights(SingleCostTrainer& trainer) {
  std::vector<torch::Tensor> out;
  for (auto& p : trainer.mainModule().parameters()) out.push_back(p.detach().clone());
  return out;
}

/// The MLP on four noisy clusters, 40 steps of SGD with momentum on `device` under
/// `precision`: the first cost and the mean of the last ten. Throws if a weight is not float32.
std::pair<double, double> trainClusters(Precision precision, Device device = Device{},
                                        std::shared_ptr<ScalarHistory> history = nullptr) {
  auto model = testing::tinyMlpModel({8, 4, /*hidden=*/{64}}, testing::sgd(0.1, 0.9));
  torch::manual_seed(9);
  const torch::Tensor centres = torch::randn({4, 1, 8, 8});
  std::vector<Datapoint> batches;
  for (int i = 0; i < 40; ++i) {
    torch::Tensor y = torch::randint(0, 4, {32}, torch::kInt64);
    batches.push_back({centres.index_select(0, y) + 0.8 * torch::randn({32, 1, 8, 8}), y});
  }
  if (!history) history = std::make_shared<ScalarHistory>();
  TrainConfig config = baseConfig(model, batches, history);
  config.stepsPerEpoch = 40;
  config.precision = precision;
  SimpleTrainer trainer(device);
  launchTrainWithConfig(config, trainer);
  for (auto& p : trainer.mainModule().parameters()) {
    if (p.scalar_type() != torch::kFloat) throw std::runtime_error("weights not float32");
  }
  double last = 0;
  const auto costs = history->get("cost");
  for (size_t i = costs.size() - 10; i < costs.size(); ++i) last += costs[i].value / 10;
  return std::make_pair(costs.front().value, last);
}

const char* kNoCuda =
    "no CUDA device here (torch::cuda::is_available() is false): runs on a GPU machine "
    "(scripts/gpu-check.sh)";

}  // namespace

class TestMixedPrecision : public QObject {
  Q_OBJECT
 private slots:
  void parsesLightningNames() {
    QCOMPARE(parsePrecision("32"), Precision::Full32);
    QCOMPARE(parsePrecision("bf16-mixed"), Precision::Bf16Mixed);
    QCOMPARE(parsePrecision("16-mixed"), Precision::Fp16Mixed);
    QVERIFY_THROWS_EXCEPTION(InputError, parsePrecision("16"));
    QCOMPARE(precisionName(Precision::Fp16Mixed), std::string("16-mixed"));
  }

  void autocastScopeCastsAndRestores() {
    const torch::Tensor a = torch::randn({4, 4});
    QCOMPARE(torch::mm(a, a).scalar_type(), torch::kFloat);
    {
      AutocastScope outer(Precision::Bf16Mixed, c10::DeviceType::CPU);
      QCOMPARE(torch::mm(a, a).scalar_type(), torch::kBFloat16);
      {
        AutocastScope inner(Precision::Full32, c10::DeviceType::CPU);  // does nothing
        QCOMPARE(torch::mm(a, a).scalar_type(), torch::kBFloat16);
      }
      QCOMPARE(torch::mm(a, a).scalar_type(), torch::kBFloat16);
    }
    QCOMPARE(torch::mm(a, a).scalar_type(), torch::kFloat);
  }

  void scalerUnscalesBacksOffAndGrows() {
    GradScaler scaler(scalerOptions(1024, 3));
    torch::Tensor p = torch::zeros({3}, torch::requires_grad());
    QCOMPARE(scaler.scale(torch::tensor(2.0)).item<double>(), 2048.0);

    p.mutable_grad() = torch::tensor({1024.0f, 2048.0f, -512.0f});
    QVERIFY(scaler.unscale({p}));
    QVERIFY(torch::equal(p.grad(), torch::tensor({1.0f, 2.0f, -0.5f})));
    QVERIFY(!scaler.update());

    p.mutable_grad() = torch::tensor({1.0f, std::numeric_limits<float>::infinity(), 0.0f});
    QVERIFY(!scaler.unscale({p}));
    QVERIFY(scaler.update());  // skipped: backed off, growth count restarts
    QCOMPARE(scaler.currentScale(), 512.0);
    QCOMPARE(scaler.skippedSteps(), int64_t{1});

    p.mutable_grad() = torch::tensor({std::nanf(""), 0.0f, 0.0f});
    QVERIFY(!scaler.unscale({p}));
    QVERIFY(scaler.update());
    QCOMPARE(scaler.currentScale(), 256.0);

    for (int i = 0; i < 3; ++i) {
      p.mutable_grad() = torch::ones({3});
      QVERIFY(scaler.unscale({p}));
      QVERIFY(!scaler.update());
    }
    QCOMPARE(scaler.currentScale(), 512.0);  // grown after 3 clean steps

    GradScaler restored;
    QVERIFY(restored.restore(scaler.state()));
    QCOMPARE(restored.currentScale(), 512.0);
    QCOMPARE(restored.skippedSteps(), int64_t{2});
    QVERIFY(!restored.restore({}));
    auto bad = scaler.state();
    bad["grad_scaler.scale"] = torch::tensor(-1.0, torch::kDouble);
    QVERIFY_THROWS_EXCEPTION(InputError, restored.restore(bad));
  }

  // Issue 25 (F14): as _amp_update_scale_, the scale does not grow to infinity (float32's, in
  // which PyTorch keeps it and the cost is scaled).
  void scalerDoesNotGrowPastFloatMax() {
    GradScaler scaler(scalerOptions(2e38, 1));
    torch::Tensor p = torch::zeros({1}, torch::requires_grad());
    for (int i = 0; i < 3; ++i) {
      p.mutable_grad() = torch::ones({1});
      QVERIFY(scaler.unscale({p}));
      QVERIFY(!scaler.update());
    }
    QCOMPARE(scaler.currentScale(), 2e38);
    QVERIFY(std::isfinite(scaler.scale(torch::tensor(1.0f)).item<float>()));
  }

  // The scaler in the real loop: an overflowing step changes no weight, is counted, halves the
  // scale; the other steps equal plain SGD (the scale is a power of two, so scaling is exact).
  void overflowingStepIsSkippedInTheLoop() {
    const auto batches = regressionBatches(6);
    auto scaledModel = std::make_shared<OverflowingModel>();
    scaledModel->overflowCalls = {3};
    auto history = std::make_shared<ScalarHistory>();
    TrainConfig config = baseConfig(scaledModel, batches, history);
    config.stepsPerEpoch = 6;
    SimpleTrainer trainer;
    trainer.enableLossScaling();
    launchTrainWithConfig(config, trainer);
    QCOMPARE(history->get("skipped_steps").back().value, 1.0);
    QCOMPARE(history->get("skipped_steps")[1].value, 0.0);
    QCOMPARE(history->get("skipped_steps")[2].value, 1.0);  // step 3
    QCOMPARE(history->get("grad_scale").front().value, 65536.0);
    QCOMPARE(history->get("grad_scale").back().value, 32768.0);

    // Reference: the same SGD by hand, step 3 left out.
    torch::manual_seed(1);
    torch::nn::Linear linear(4, 1);
    torch::optim::SGD sgd(linear->parameters(), torch::optim::SGDOptions(0.05));
    for (size_t i = 0; i < batches.size(); ++i) {
      if (i == 2) continue;
      sgd.zero_grad();
      (linear->forward(batches[i][0]) - batches[i][1]).pow(2).mean().backward();
      sgd.step();
    }
    const auto got = weights(trainer);
    const auto want = linear->parameters();
    for (size_t i = 0; i < got.size(); ++i) {
      QVERIFY2(torch::allclose(got[i], want[i], 1e-6, 1e-7),
               qPrintable(QString("parameter %1 differs by %2")
                              .arg(i)
                              .arg((got[i] - want[i]).abs().max().item<double>())));
    }
  }

  // Two towers: both replicas skip the same step (their reduced gradients agree), and the
  // scaler's state survives a checkpoint.
  void replicasSkipTogetherAndScalerResumes() {
    QTemporaryDir dir;
    const std::string checkpoint = dir.filePath("mid.pt").toStdString();
    auto model = std::make_shared<OverflowingModel>();
    model->overflowCalls = {5};  // tower 0 or 1 of step 3: only one tower overflows
    auto history = std::make_shared<ScalarHistory>();
    TrainConfig config = baseConfig(model, regressionBatches(8), history);
    config.stepsPerEpoch = 4;
    config.callbacks = {std::make_shared<CallbackFactory>(
        "save", CallbackFactory::Hooks{
                    {}, {}, {}, {}, [&](TrainerContext& c) { c.saveCheckpoint(checkpoint); }, {}})};
    SyncReplicatedTrainer trainer(std::vector<Device>{Device{}, Device{}});
    trainer.enableLossScaling();
    launchTrainWithConfig(config, trainer);
    QCOMPARE(history->get("skipped_steps").back().value, 1.0);
    QCOMPARE(trainer.maxReplicaDifference(), 0.0);
    QCOMPARE(trainer.gradScaler()->currentScale(), 32768.0);

    const TrainingState state = readCheckpointFile(checkpoint);
    QVERIFY(state.trainerState.count("grad_scaler.scale") == 1);
    QCOMPARE(state.trainerState.at("grad_scaler.scale").item<double>(), 32768.0);

    auto resumedHistory = std::make_shared<ScalarHistory>();
    TrainConfig resumed =
        baseConfig(std::make_shared<OverflowingModel>(), regressionBatches(8), resumedHistory);
    resumed.stepsPerEpoch = 4;
    resumed.maxEpoch = 2;
    resumed.resumeFrom = checkpoint;
    // The same two towers: a resume on another topology is refused (test_Resume).
    SyncReplicatedTrainer next(std::vector<Device>{Device{}, Device{}});
    next.enableLossScaling();
    launchTrainWithConfig(resumed, next);
    QCOMPARE(next.gradScaler()->skippedSteps(), int64_t{1});
    QCOMPARE(resumedHistory->get("grad_scale").front().value, 32768.0);
  }

  // bf16-mixed on the CPU trains the MLP about as well as 32-bit: the same data and seed, the
  // final cost within 5% (bfloat16 keeps 8 bits of mantissa in the forward pass only).
  void bf16MixedTrainsLike32() {
    const auto full = trainClusters(Precision::Full32);
    const auto mixed = trainClusters(Precision::Bf16Mixed);
    QVERIFY2(full.second < 0.5 * full.first, "32-bit did not learn");
    QVERIFY2(std::abs(mixed.second - full.second) < 0.05 * full.first,
             qPrintable(
                 QString("final cost 32: %1, bf16-mixed: %2").arg(full.second).arg(mixed.second)));
    QVERIFY2(mixed.first != full.first, "bf16-mixed computed exactly as 32: autocast was not on");
  }

  // On a GPU, PyTorch's fused kernel (_amp_foreach_non_finite_check_and_unscale_) gives what
  // the CPU path gives: the same unscaled gradients, and an infinity or NaN found.
  void scalerOnTheGpuAgreesWithTheCpu() {
    if (!torch::cuda::is_available()) QSKIP(kNoCuda);
    const auto gpu = torch::Device(torch::kCUDA, 0);
    const float kInf = std::numeric_limits<float>::infinity();
    // One finite set of gradients, then one with an infinity, then one with a NaN.
    for (const std::optional<float> bad :
         {std::optional<float>{}, std::optional(kInf), std::optional(std::nanf(""))}) {
      torch::manual_seed(3);
      const torch::Tensor g1 = torch::randn({5, 7}) * 1000;
      torch::Tensor g2 = torch::randn({11}) * 1000;
      if (bad) g2[4] = *bad;
      auto params = [&](torch::Device device) {
        std::vector<torch::Tensor> out;
        for (const torch::Tensor& g : {g1, g2}) {
          torch::Tensor p =
              torch::zeros(g.sizes(), torch::TensorOptions().device(device).requires_grad(true));
          p.mutable_grad() = g.to(device).clone();
          out.push_back(p);
        }
        return out;
      };
      GradScaler onCpu, onGpu;
      const auto cpuParams = params(torch::kCPU);
      const auto gpuParams = params(gpu);
      const bool cpuFinite = onCpu.unscale(cpuParams);
      const bool gpuFinite = onGpu.unscale(gpuParams);
      QCOMPARE(gpuFinite, cpuFinite);
      QCOMPARE(cpuFinite, !bad.has_value());
      QCOMPARE(onGpu.update(), onCpu.update());
      QCOMPARE(onGpu.currentScale(), onCpu.currentScale());
      if (cpuFinite) {
        for (size_t i = 0; i < cpuParams.size(); ++i) {
          QVERIFY(torch::allclose(gpuParams[i].grad().cpu(), cpuParams[i].grad(), 1e-6, 0));
        }
      }
    }
  }

  // On a GPU, 16-mixed (float16 autocast with the scaler) and bf16-mixed train the MLP about
  // as well as 32-bit on the same GPU; autocast is on (the first costs differ), the weights stay
  // float32, and 16-mixed reports its scale and skipped steps every step.
  void mixedPrecisionOnTheGpuTrainsLike32() {
    if (!torch::cuda::is_available()) QSKIP(kNoCuda);
    const Device gpu = Device::parse("cuda:0");
    const auto full = trainClusters(Precision::Full32, gpu);
    QVERIFY2(full.second < 0.5 * full.first, "32-bit did not learn on the GPU");
    for (const Precision precision : {Precision::Fp16Mixed, Precision::Bf16Mixed}) {
      auto history = std::make_shared<ScalarHistory>();
      const auto mixed = trainClusters(precision, gpu, history);
      const QString name = QString::fromStdString(precisionName(precision));
      QVERIFY2(
          std::abs(mixed.second - full.second) < 0.05 * full.first,
          qPrintable(
              QString("final cost 32: %1, %2: %3").arg(full.second).arg(name).arg(mixed.second)));
      QVERIFY2(mixed.first != full.first, qPrintable(name + " computed exactly as 32"));
      if (precision == Precision::Fp16Mixed) {
        QCOMPARE(history->get("grad_scale").size(), size_t{40});
        QVERIFY(history->get("grad_scale").back().value > 0);
        QVERIFY(history->get("skipped_steps").back().value < 5);  // a few at most, early
      } else {
        QCOMPARE(history->count("grad_scale"), int64_t{0});
      }
    }
  }

  void sixteenMixedNeedsCuda() {
    SimpleTrainer trainer;
    try {
      trainer.setPrecision(Precision::Fp16Mixed);
      QFAIL("16-mixed on a CPU tower was accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("use \"bf16-mixed\" on a CPU"), e.what());
    }
  }

  void projectKeyIsValidated() {
    auto issuesOf = [](const std::string& precision) {
      nlohmann::json doc = nlohmann::json::parse(
          R"({"format": 1, "name": "p", "model": {}, "data": {"train": {}}})");
      doc["precision"] = precision;
      std::string text;
      for (const auto& issue : validateProjectJson(doc)) text += issue.toString() + "\n";
      return text;
    };
    QCOMPARE(issuesOf("bf16-mixed"), std::string());
    nlohmann::json numeric = nlohmann::json::parse(
        R"({"format": 1, "name": "p", "model": {}, "data": {"train": {}}, "precision": 32})");
    QCOMPARE(projectFromJson(numeric).precision, std::string("32"));
    QVERIFY(issuesOf("64").find("$.precision") != std::string::npos);
    const std::string fp16 = issuesOf("16-mixed");
    QVERIFY2(fp16.find("$.precision: \"16-mixed\" needs CUDA devices") != std::string::npos,
             fp16.c_str());
  }
};

}  // namespace test_MixedPrecision

TB_TEST_GUILESS_MAIN(test_MixedPrecision::TestMixedPrecision)
#include "test_MixedPrecision.moc"
