// Exact resume: 2 epochs in one go vs 1 epoch + resume for 1 more, bitwise identical.

#include <QtTest>

#include <torch/torch.h>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/callbacks/HyperParamSetter.h"
#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/SyntheticData.h"
#include "engine/models/ClassificationModel.h"
#include "engine/models/Mlp.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/train/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"

using namespace tbench;

namespace {

struct Outcome {
  std::vector<std::pair<std::string, torch::Tensor>> params;
  std::vector<double> costs;
  std::vector<double> learningRates;
  int64_t globalStep = 0;
};

/// Trains the tiny MLP (with dropout, Adam, a schedule and shuffled data whose passes do not
/// line up with epochs) up to `maxEpoch`; saves a checkpoint at the end of every epoch to
/// <dir>/epoch-<E>.pt; resumes from `resumeFrom` when given.
Outcome train(const std::string& dir, int64_t maxEpoch, const std::string& resumeFrom = "") {
  MlpOptions o;
  o.image = ImageShape{1, 8, 8};
  o.numClasses = 4;
  o.hidden = {32, 16};
  o.dropout = 0.3;
  auto history = std::make_shared<ScalarHistory>();
  TrainConfig config;
  config.model = std::make_shared<ClassificationModel>(
      o.image, [o] { return std::make_shared<Mlp>(o); },
      [](std::vector<torch::Tensor> p) {
        return std::make_unique<torch::optim::Adam>(p, torch::optim::AdamOptions(1e-2));
      });
  config.dataflow = std::make_shared<BatchData>(
      std::make_shared<SyntheticData>(
          SyntheticData::Options().numSamples(300).noise(1.0).shuffle(true).seed(11)),
      16);  // 18 batches a pass, 7 steps an epoch: passes straddle epochs
  config.stepsPerEpoch = 7;
  config.maxEpoch = maxEpoch;
  config.seed = 3;
  config.resumeFrom = resumeFrom;
  config.extraCallbacks = std::vector<CallbackPtr>{};
  config.monitors = std::vector<TrainingMonitorPtr>{history};
  config.callbacks = {
      std::make_shared<ScheduledHyperParamSetter>(
          "learning_rate", std::vector<std::pair<int64_t, double>>{{1, 1e-2}, {3, 2e-3}}),
      std::make_shared<CallbackFactory>("save",
                                        CallbackFactory::Hooks{{},
                                                               {},
                                                               {},
                                                               {},
                                                               [dir](TrainerContext& c) {
                                                                 c.saveCheckpoint(
                                                                     dir + "/epoch-" +
                                                                     std::to_string(c.epochNum()) +
                                                                     ".pt");
                                                               },
                                                               {}})};
  SimpleTrainer trainer;
  launchTrainWithConfig(config, trainer);
  Outcome out;
  for (const auto& item : trainer.mainModule().named_parameters()) {
    out.params.emplace_back(item.key(), item.value().clone());
  }
  for (const auto& p : history->get("cost")) out.costs.push_back(p.value);
  for (const auto& p : history->get("learning_rate")) out.learningRates.push_back(p.value);
  out.globalStep = trainer.globalStep();
  return out;
}

}  // namespace

class TestResume : public QObject {
  Q_OBJECT
 private slots:
  void resumedRunIsBitwiseIdentical() {
    QTemporaryDir straight, split;
    const Outcome whole = train(straight.path().toStdString(), 4);
    const Outcome first = train(split.path().toStdString(), 2);
    const Outcome rest =
        train(split.path().toStdString(), 4, split.path().toStdString() + "/epoch-2.pt");

    QCOMPARE(rest.globalStep, int64_t{28});
    QCOMPARE(whole.params.size(), rest.params.size());
    for (size_t i = 0; i < whole.params.size(); ++i) {
      QVERIFY2(torch::equal(whole.params[i].second, rest.params[i].second),
               whole.params[i].first.c_str());
    }
    // The steps of the resumed half saw the same batches and dropout masks.
    std::vector<double> joined = first.costs;
    joined.insert(joined.end(), rest.costs.begin(), rest.costs.end());
    QCOMPARE(joined, whole.costs);
    // The schedule gives the resumed epochs their own values.
    QCOMPARE(rest.learningRates, (std::vector<double>{2e-3, 2e-3}));
    // And the split run's 2-epoch checkpoint differs from the end state (it did train on).
    QVERIFY(!torch::equal(first.params[0].second, rest.params[0].second));
  }

  void resumingAFinishedRunIsAClearError() {
    QTemporaryDir dir;
    train(dir.path().toStdString(), 2);
    try {
      train(dir.path().toStdString(), 2, dir.path().toStdString() + "/epoch-2.pt");
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("raise max_epoch") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestResume)
#include "test_Resume.moc"
