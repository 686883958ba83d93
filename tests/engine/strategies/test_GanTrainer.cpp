// GanTrainer: the updates alternate as the schedule says, each touches only its network, the
// scalars are reported, replicas stay equal, and a run stopped mid-epoch and resumed ends
// bitwise equal to an uninterrupted one (Note [Trainer state]).

#include <QtTest>
#include <optional>

#include <torch/torch.h>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/callbacks/DumpTensorAsImage.h"
#include "engine/core/Check.h"
#include "engine/core/TorchCompat.h"
#include "engine/data/BatchData.h"
#include "engine/data/datasets/SyntheticData.h"
#include "engine/input/FeedInput.h"
#include "engine/models/Dcgan.h"
#include "engine/models/Mlp.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/strategies/GanTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/ExpectError.h"
#include "tests/support/StepCallbacks.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_GanTrainer {

using namespace tbench;
using tbench::testing::saveAndStopAfter;

namespace {

std::shared_ptr<DcganModel> tinyGan(GanSchedule schedule = {}) {
  DcganOptions o;
  o.image = ImageShape{1, 8, 8};
  o.noiseDim = 6;
  o.generatorChannels = 4;
  o.discriminatorChannels = 4;
  o.schedule = schedule;
  return std::make_shared<DcganModel>(o, [](std::vector<torch::Tensor> p) {
    return std::make_unique<torch::optim::Adam>(
        p, torch::optim::AdamOptions(2e-3).betas({0.5, 0.999}));
  });
}

DataFlowPtr batches(int64_t batchSize) {
  // 100 samples, 12 steps an epoch below: passes straddle epochs.
  return std::make_shared<BatchData>(
      std::make_shared<SyntheticData>(
          SyntheticData::Options().numSamples(100).shuffle(true).seed(5)),
      batchSize);
}

using State = std::vector<std::pair<std::string, torch::Tensor>>;

State snapshot(torch::nn::Module& module) {
  State state;
  for (const auto& item : module.named_parameters())
    state.emplace_back(item.key(), item.value().clone());
  for (const auto& item : module.named_buffers())
    state.emplace_back(item.key(), item.value().clone());
  return state;
}

/// Names of the tensors that differ between two snapshots.
std::set<std::string> changed(const State& a, const State& b) {
  std::set<std::string> names;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i].second, b[i].second)) names.insert(a[i].first);
  }
  return names;
}

bool allStartWith(const std::set<std::string>& names, const std::string& prefix) {
  for (const auto& n : names) {
    if (n.rfind(prefix, 0) != 0) return false;
  }
  return !names.empty();
}

/// Adam's step count and moments of every parameter, in parameter order. (The optimizer's
/// archive itself names parameters by address, so its bytes differ between processes.)
std::vector<torch::Tensor> adamMoments(torch::optim::Optimizer& optimizer) {
  std::vector<torch::Tensor> moments;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& p : group.params()) {
      auto it = optimizer.state().find(compat::optimizerStateKey(p));
      if (it == optimizer.state().end()) throw CheckError("a parameter without Adam state");
      auto& state = static_cast<torch::optim::AdamParamState&>(*it->second);
      moments.push_back(torch::scalar_tensor(state.step(), torch::kInt64));
      moments.push_back(state.exp_avg().clone());
      moments.push_back(state.exp_avg_sq().clone());
    }
  }
  return moments;
}

struct GanRun {
  int towers = 1;
  int64_t maxEpoch = 3;
  int64_t stopAfterStep = -1;  ///< save <dir>/mid.pt after this global step, then stop
  std::string resumeFrom;
  GanSchedule schedule;
};

struct Outcome {
  State state;
  std::map<std::string, std::vector<torch::Tensor>> optimizers;  ///< role -> Adam's moments
  std::vector<double> dLosses, gLosses;
  int64_t globalStep = 0, dUpdates = 0, gUpdates = 0;
};

Outcome train(const std::string& dir, const GanRun& run) {
  auto history = std::make_shared<ScalarHistory>();
  TrainConfig config = TrainConfig::quiet();
  config.model = tinyGan(run.schedule);
  config.dataflow = batches(8);
  config.stepsPerEpoch = 5;
  config.maxEpoch = run.maxEpoch;
  config.seed = 7;
  config.resumeFrom = run.resumeFrom;
  config.monitors = std::vector<TrainingMonitorPtr>{history};
  // The samples callback builds the inference tower at the first epoch's end: that must not
  // move the run's generator, or the resumed run would draw other noise.
  auto noise = tinyGan()->sampleNoise(4, at::detail::createCPUGenerator(3));
  config.callbacks = {std::make_shared<DumpTensorAsImage>("samples", Datapoint{noise}, "samples"),
                      saveAndStopAfter(run.stopAfterStep, dir + "/mid.pt")};
  GanTrainer trainer(std::vector<Device>(static_cast<size_t>(run.towers), Device{}));
  launchTrainWithConfig(config, trainer);
  Outcome out;
  out.state = snapshot(trainer.mainModule());
  for (const auto& slot : trainer.optimizerSlots()) {
    out.optimizers[slot.role] = adamMoments(*slot.copies.front());
  }
  for (const auto& p : history->get("d_loss")) out.dLosses.push_back(p.value);
  for (const auto& p : history->get("g_loss")) out.gLosses.push_back(p.value);
  out.globalStep = trainer.globalStep();
  out.dUpdates = trainer.discriminatorUpdates();
  out.gUpdates = trainer.generatorUpdates();
  if (run.towers > 1) {
    for (int t = 1; t < run.towers; ++t) {
      const State other = snapshot(trainer.replica(t));
      for (size_t i = 0; i < other.size(); ++i) {
        if (!torch::equal(other[i].second, out.state[i].second)) {
          throw CheckError("replica " + std::to_string(t) + " differs in " + other[i].first);
        }
      }
    }
  }
  return out;
}

/// `run` stopped after step `step` (saving <path>/mid.pt), then resumed from there to its end:
/// both runs' outcomes.
std::pair<Outcome, Outcome> stopAndResume(const std::string& path, const GanRun& run,
                                          int64_t step) {
  GanRun first = run;
  first.stopAfterStep = step;
  Outcome stopped = train(path, first);
  GanRun second = run;
  second.resumeFrom = path + "/mid.pt";
  return {std::move(stopped), train(path, second)};
}

void expectEqual(const Outcome& a, const Outcome& b) {
  QCOMPARE(a.globalStep, b.globalStep);
  QCOMPARE(a.dUpdates, b.dUpdates);
  QCOMPARE(a.gUpdates, b.gUpdates);
  QCOMPARE(a.state.size(), b.state.size());
  for (size_t i = 0; i < a.state.size(); ++i) {
    QVERIFY2(torch::equal(a.state[i].second, b.state[i].second), a.state[i].first.c_str());
  }
  QCOMPARE(a.optimizers.size(), size_t{2});
  QCOMPARE(b.optimizers.size(), size_t{2});
  for (const auto& [role, moments] : a.optimizers) {
    const auto& other = b.optimizers.at(role);
    QCOMPARE(moments.size(), other.size());
    QVERIFY(!moments.empty());
    for (size_t i = 0; i < moments.size(); ++i)
      QVERIFY2(torch::equal(moments[i], other[i]), role.c_str());
  }
}

}  // namespace

class TestGanTrainer : public QObject {
  Q_OBJECT
 private:
  std::optional<QTemporaryDir> dir_;
  /// A directory of this test function's own.
  std::string dir() const { return dir_->path().toStdString(); }

 private slots:
  void init() { dir_.emplace(); }
  void updatesAlternateAsScheduled() {
    std::vector<std::string> seen;
    auto history = std::make_shared<ScalarHistory>();
    TrainConfig config = TrainConfig::quiet();
    config.model = tinyGan({2, 1});
    config.dataflow = batches(8);
    config.stepsPerEpoch = 3;
    config.monitors = std::vector<TrainingMonitorPtr>{history};
    GanTrainer trainer({Device{}});
    trainer.setUpdateObserver([&](const GanUpdate& u) {
      seen.push_back(std::to_string(u.step) + (u.role == GanRole::Generator ? "g" : "d") +
                     std::to_string(u.index));
    });
    launchTrainWithConfig(config, trainer);
    const std::vector<std::string> expected{"1d0", "1d1", "1g0", "2d0", "2d1",
                                            "2g0", "3d0", "3d1", "3g0"};
    QCOMPARE(seen, expected);
    QCOMPARE(trainer.discriminatorUpdates(), int64_t{6});
    QCOMPARE(trainer.generatorUpdates(), int64_t{3});
    // Two discriminator batches of 8 a step.
    QCOMPARE(trainer.samplesPerStep(), int64_t{16});
    QCOMPARE(trainer.batchesPerStep(), int64_t{2});
    for (const char* name : {"d_loss", "g_loss", "accuracy_real", "accuracy_fake"}) {
      const auto points = history->get(name);
      QVERIFY2(points.size() == 3, name);
      QCOMPARE(points.front().globalStep, int64_t{1});
      QVERIFY(std::isfinite(points.back().value));
    }
    for (const auto& p : history->get("accuracy_real")) QVERIFY(p.value >= 0 && p.value <= 1);
    QVERIFY(history->get("cost").empty());
  }

  void eachUpdateChangesOnlyItsNetwork() {
    TrainConfig config = TrainConfig::quiet();
    config.model = tinyGan();
    config.dataflow = batches(8);
    config.stepsPerEpoch = 1;
    GanTrainer trainer({Device{}});
    State beforeD, beforeG;
    trainer.setUpdateObserver([&](const GanUpdate& u) {
      (u.role == GanRole::Discriminator ? beforeD : beforeG) = snapshot(trainer.mainModule());
    });
    launchTrainWithConfig(config, trainer);
    const State after = snapshot(trainer.mainModule());
    // The discriminator's update: discriminator parameters and buffers, and the generator's
    // BatchNorm statistics (it generated the fakes in training mode), never its parameters.
    const auto dChanged = changed(beforeD, beforeG);
    QVERIFY(!dChanged.empty());
    for (const auto& name : dChanged) {
      QVERIFY2(name.rfind("discriminator.", 0) == 0 || name.find("running_") != std::string::npos ||
                   name.find("num_batches") != std::string::npos,
               name.c_str());
    }
    QVERIFY(changed(beforeD, beforeG).count("discriminator.classify.weight"));
    auto gChanged = changed(beforeG, after);
    std::set<std::string> gParams;
    for (const auto& n : gChanged) {
      if (n.find("running_") == std::string::npos && n.find("num_batches") == std::string::npos)
        gParams.insert(n);
    }
    QVERIFY2(allStartWith(gParams, "generator."),
             "the generator's update changed the discriminator");
  }

  void stoppedMidEpochAndResumedIsBitwiseEqual() {
    GanRun whole;
    whole.schedule = {2, 1};
    const Outcome expected = train(dir(), whole);
    QCOMPARE(expected.globalStep, int64_t{15});

    const auto [stopped, resumed] = stopAndResume(dir(), whole, 7);  // epoch 2, step 2 of 5
    QCOMPARE(stopped.globalStep, int64_t{7});
    const TrainingState saved = readCheckpointFile(dir() + "/mid.pt");
    QCOMPARE(saved.namedOptimizers.size(), size_t{2});
    QCOMPARE(saved.namedOptimizers.at("generator").type, std::string("adam"));
    QCOMPARE(saved.trainerState.at("discriminator_updates").item<int64_t>(), int64_t{14});
    expectEqual(expected, resumed);
    // The resumed run's scalars are the uninterrupted run's last eight.
    QCOMPARE(resumed.dLosses.size(), size_t{8});
    for (size_t i = 0; i < 8; ++i) QCOMPARE(resumed.dLosses[i], expected.dLosses[7 + i]);
  }

  void replicatedTowersStayEqualAndResumeExactly() {
    GanRun whole;
    whole.towers = 2;
    whole.maxEpoch = 2;
    const Outcome expected = train(dir(), whole);  // throws if a replica differs
    QCOMPARE(expected.dUpdates, int64_t{10});
    expectEqual(expected, stopAndResume(dir(), whole, 3).second);
  }

  void aCheckpointOfAnotherTrainerIsRefused() {
    GanRun run;
    run.maxEpoch = 1;
    run.stopAfterStep = 2;
    train(dir(), run);
    TrainingState state = readCheckpointFile(dir() + "/mid.pt");
    state.namedOptimizers.erase("discriminator");
    state.path = "mid.pt";
    GanTrainer trainer({Device{}});
    trainer.setupGraph(std::make_shared<FeedInput>(batches(8)), tinyGan());
    testing::expectError([&] { trainer.restoreTrainingState(state); }, "mid.pt",
                         "mid.pt: the checkpoint has no state for the \"discriminator\" optimizer");
  }

  void aModelOfTheWrongKindIsRefused() {
    GanTrainer gan({Device{}});
    MlpOptions o;
    auto single = std::make_shared<SupervisedModel>(
        o.image, [o] { return std::make_shared<Mlp>(o); },
        [](std::vector<torch::Tensor> p) { return std::make_unique<torch::optim::SGD>(p, 0.1); });
    testing::expectError([&] { gan.setupGraph(std::make_shared<FeedInput>(batches(8)), single); },
                         "the GAN trainer trains a GAN model", "this model has a single cost");
    SimpleTrainer simple;
    testing::expectError(
        [&] { simple.setupGraph(std::make_shared<FeedInput>(batches(8)), tinyGan()); },
        "trains a single-cost model", "the model has other costs and needs its own trainer");
  }
};

}  // namespace test_GanTrainer

TB_TEST_GUILESS_MAIN(test_GanTrainer::TestGanTrainer)
#include "test_GanTrainer.moc"
