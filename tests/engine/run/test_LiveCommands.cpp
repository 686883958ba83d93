// Note [Live commands]: a hyper-parameter set and a checkpoint saved during a run, through the
// engine's own functions, in the real loop of every kind of trainer behind the window's F8 and
// "Save now": every replica's optimizer follows, the values the window may send are checked by
// one rule, and a save lands in the run directory's index.

#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <filesystem>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/Check.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/run/LiveCommands.h"
#include "engine/strategies/AsyncTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncParameterServerTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/StepCallbacks.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyMlp.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_LiveCommands {

using namespace tbench;
using tbench::testing::atStep;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<SupervisedModel> makeModel() {
  return testing::tinyMlpModel({/*side=*/4, /*classes=*/3, /*hidden=*/{8}});
}

/// Trains 6 steps with `callbacks`; returns the history.
std::shared_ptr<ScalarHistory> train(SingleCostTrainer& trainer, std::vector<CallbackPtr> callbacks,
                                     const std::string& runDir = {}) {
  torch::manual_seed(3);
  std::vector<Datapoint> batches;
  for (int i = 0; i < 12; ++i) {
    batches.push_back({torch::randn({4, 1, 4, 4}), torch::randint(0, 3, {4}, torch::kInt64)});
  }
  auto history = std::make_shared<ScalarHistory>();
  TrainConfig config = TrainConfig::quiet();
  config.model = makeModel();
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(batches));
  config.monitors->push_back(history);
  config.callbacks = std::move(callbacks);
  config.runDir = runDir;
  config.stepsPerEpoch = 6;
  config.maxEpoch = 1;
  launchTrainWithConfig(config, trainer);
  return history;
}

std::vector<double> ratesOf(SingleCostTrainer& trainer) {
  std::vector<double> rates;
  for (torch::optim::Optimizer* optimizer : trainer.optimizers()) {
    for (auto& group : optimizer->param_groups()) rates.push_back(group.options().get_lr());
  }
  return rates;
}

}  // namespace

class TestLiveCommands : public QObject {
  Q_OBJECT
 private slots:
  // F8 on every kind of trainer: each optimizer behind the one "learning_rate" follows (every
  // replica of sync_replicated, the master of the parameter server and async), and the chart
  // gets the value at the step it applies to.
  void aRateSetDuringTheRunReachesEveryOptimizer() {
    const std::vector<Device> two = {Device{}, Device{}};
    SimpleTrainer simple;
    SyncReplicatedTrainer replicated(two);
    SyncParameterServerTrainer ps(two);
    AsyncTrainer async(two);
    for (SingleCostTrainer* trainer :
         std::vector<SingleCostTrainer*>{&simple, &replicated, &ps, &async}) {
      double before = 0;
      auto history = train(*trainer, {atStep(3, [&](TrainerContext& c) {
        before = live::setHyperParam(c, "learning_rate", 0.0125, "a test", false);
      })});
      QCOMPARE(before, 1e-2);
      const std::vector<double> rates = ratesOf(*trainer);
      QVERIFY(!rates.empty());
      for (double r : rates) QCOMPARE(r, 0.0125);
      if (trainer == &replicated) QCOMPARE(rates.size(), size_t{2});
      const auto& samples = history->get("learning_rate");
      QVERIFY(!samples.empty());
      QCOMPARE(samples.front().value, 0.0125);
      QCOMPARE(samples.front().globalStep, int64_t{3});
    }
  }

  // Both GAN roles' optimizers sit behind the GAN trainer's one learning rate.
  void oneRateSetsEveryOptimizerBehindIt() {
    auto a = torch::zeros({2}, torch::requires_grad());
    auto b = torch::zeros({2}, torch::requires_grad());
    torch::optim::Adam generator({a}, torch::optim::AdamOptions(1e-3));
    torch::optim::SGD discriminator({b}, torch::optim::SGDOptions(1e-2));
    auto rate = learningRateOf({&generator, &discriminator});
    rate->set(0.5);
    QCOMPARE(generator.param_groups()[0].options().get_lr(), 0.5);
    QCOMPARE(discriminator.param_groups()[0].options().get_lr(), 0.5);
  }

  // One rule for the window's field, its dialog and the engine.
  void badValuesAreRefusedWithTheReason() {
    QCOMPARE(live::valueProblem("learning_rate", 3e-4), std::string());
    QVERIFY(live::valueProblem("learning_rate", 0).find("must be > 0") != std::string::npos);
    QVERIFY(live::valueProblem("learning_rate", -1).find("must be > 0") != std::string::npos);
    QVERIFY(live::valueProblem("learning_rate", std::nan("")).find("finite") != std::string::npos);
    QCOMPARE(live::valueProblem("momentum", 0), std::string());
    SimpleTrainer trainer;
    std::string refused, unknown;
    train(trainer, {atStep(2, [&](TrainerContext& c) {
            try {
              live::setHyperParam(c, "learning_rate", -0.1, "a test", false);
            } catch (const InputError& e) {
              refused = e.what();
            }
            try {
              live::setHyperParam(c, "momentum", 0.5, "a test", false);
            } catch (const InputError& e) {
              unknown = e.what();
            }
          })});
    QVERIFY2(refused.find("learning_rate must be > 0, got -0.1") != std::string::npos,
             refused.c_str());
    QVERIFY2(unknown.find("no hyper-parameter \"momentum\"") != std::string::npos, unknown.c_str());
    for (double r : ratesOf(trainer)) QCOMPARE(r, 1e-2);
  }

  // "Save now" without a saver: the file at the step, listed as manual in the index; the final
  // save of a stop is listed as the latest.
  void saveNowWritesTheStepAndListsIt() {
    QTemporaryDir dir;
    const std::string runDir = dir.path().toStdString();
    SimpleTrainer trainer;
    std::string manual, final;
    train(trainer,
          {atStep(2,
                  [&](TrainerContext& c) {
                    manual = live::saveNow(c, nullptr, runDir, live::SaveKind::Manual);
                  }),
           atStep(5,
                  [&](TrainerContext& c) {
                    final = live::saveNow(c, nullptr, runDir, live::SaveKind::Final);
                  })},
          runDir);
    QCOMPARE(manual, (fs::path(runDir) / "model-2.pt").string());
    QCOMPARE(final, (fs::path(runDir) / "model-5.pt").string());
    QVERIFY(fs::exists(manual) && fs::exists(final));
    const auto index = CheckpointIndex::read(runDir);
    QVERIFY(index.has_value());
    QCOMPARE(index->latest, std::string("model-5.pt"));
    QVERIFY(std::find(index->manual.begin(), index->manual.end(), "model-2.pt") !=
            index->manual.end());
  }
};

}  // namespace test_LiveCommands

TB_TEST_GUILESS_MAIN(test_LiveCommands::TestLiveCommands)
#include "test_LiveCommands.moc"
