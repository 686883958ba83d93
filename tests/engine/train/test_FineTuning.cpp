// Fine-tuning tools (issue 37). optimizer.param_groups: which parameters train, at what rate
// and decay. Frozen parameters and frozen BatchNorm statistics stay bitwise unchanged under
// every strategy, the head trains, the groups' rates follow the learning rate, strategies agree
// (one tower on 2b vs two towers on b), and checkpoints carry the groups. trainer.accumulate:
// k micro-batches equal one k-times larger batch.

#include <QtTest>

#include <torch/torch.h>

#include <fstream>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/checkpoint/Checkpoint.h"
#include "engine/core/Check.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/LrFinder.h"
#include "engine/strategies/AsyncTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncParameterServerTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"
#include "engine/train/ParamGroupRules.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_FineTuning {

using namespace tbench;

namespace {

struct NetImpl : torch::nn::Module {
  explicit NetImpl(bool withNorm) {
    body = register_module("body", torch::nn::Linear(8, 16));
    if (withNorm) norm = register_module("norm", torch::nn::BatchNorm1d(16));
    head = register_module("head", torch::nn::Linear(16, 4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor h = body(x);
    return head(torch::relu(norm ? norm(h) : h));
  }
  torch::nn::Linear body{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
  torch::nn::Linear head{nullptr};
};

/// A classifier with a backbone (body, norm) and a head; SGD with momentum and weight decay.
class FineTuneModel : public ModelDesc {
 public:
  double lr = 0.1;
  double momentum = 0.9;
  bool withNorm = true;
  std::vector<InputSpec> inputs() const override {
    return {{"x", torch::kFloat32, {-1, 8}}, {"y", torch::kInt64, {-1}}};
  }
  std::shared_ptr<torch::nn::Module> buildTower(const TowerContext&) override {
    return std::make_shared<NetImpl>(withNorm);
  }
  torch::Tensor cost(TowerContext&, torch::nn::Module& net, const Batch& batch) override {
    auto& n = dynamic_cast<NetImpl&>(net);
    return torch::nn::functional::cross_entropy(n.forward(batch["x"]), batch["y"]);
  }
  std::unique_ptr<torch::optim::Optimizer> optimizer(std::vector<torch::Tensor> params) override {
    return std::make_unique<torch::optim::SGD>(
        params, torch::optim::SGDOptions(lr).momentum(momentum).weight_decay(0.01));
  }
};

std::vector<Datapoint> batchesOf(int n, int batch) {
  torch::manual_seed(5);
  const torch::Tensor centres = 2 * torch::randn({4, 8});
  std::vector<Datapoint> out;
  for (int i = 0; i < n; ++i) {
    torch::Tensor y = torch::randint(0, 4, {batch}, torch::kInt64);
    out.push_back({centres.index_select(0, y) + torch::randn({batch, 8}), y});
  }
  return out;
}

/// Each batch cut into `parts` equal batches, in order (two towers on b vs one on 2b).
std::vector<Datapoint> split(const std::vector<Datapoint>& batches, int64_t parts = 2) {
  std::vector<Datapoint> out;
  for (const Datapoint& d : batches) {
    const int64_t h = d[0].size(0) / parts;
    for (int64_t i = 0; i < parts; ++i) {
      out.push_back({d[0].narrow(0, i * h, h), d[1].narrow(0, i * h, h)});
    }
  }
  return out;
}

std::map<std::string, torch::Tensor> stateOf(torch::nn::Module& m) {
  std::map<std::string, torch::Tensor> out;
  for (const auto& p : m.named_parameters()) out[p.key()] = p.value().detach().clone();
  for (const auto& b : m.named_buffers()) out[b.key()] = b.value().detach().clone();
  return out;
}

std::vector<ParamGroupRule> freezeBackbone() {
  ParamGroupRule backbone;
  backbone.match = "^(body|norm)\\.";
  backbone.freeze = true;
  return {backbone};
}

struct Trained {
  std::map<std::string, torch::Tensor> initial, final;
};

/// Trains `steps` steps with `trainer` on `batches`, with `groups`.
Trained train(TowerTrainer& trainer, std::vector<Datapoint> batches, int64_t steps,
              ParamGroupSettings groups, std::shared_ptr<FineTuneModel> model = nullptr,
              std::string resumeFrom = "", std::string saveTo = "", int64_t accumulate = 1,
              std::shared_ptr<ScalarHistory> history = nullptr, double emaDecay = 0,
              std::vector<std::map<std::string, torch::Tensor>>* perStep = nullptr) {
  TrainConfig config = TrainConfig::quiet();
  config.model = model ? model : std::make_shared<FineTuneModel>();
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(std::move(batches)));
  config.paramGroups = std::move(groups);
  config.stepsPerEpoch = steps;
  config.maxEpoch = resumeFrom.empty() ? 1 : 2;
  config.seed = 4;
  config.numThreads = 1;
  config.resumeFrom = resumeFrom;
  config.accumulate = accumulate;
  config.emaDecay = emaDecay;
  if (history) config.monitors = std::vector<TrainingMonitorPtr>{history};
  Trained out;
  config.callbacks.push_back(std::make_shared<CallbackFactory>(
      "snapshot",
      CallbackFactory::Hooks{{},
                             [&](TrainerContext&) { out.initial = stateOf(trainer.mainModule()); },
                             {},
                             [&](TrainerContext&) {
                               if (perStep) perStep->push_back(stateOf(trainer.mainModule()));
                             },
                             {},
                             {}}));
  launchTrainWithConfig(config, trainer);
  if (!saveTo.empty()) trainer.saveCheckpoint(saveTo);
  out.final = stateOf(trainer.mainModule());
  return out;
}

double maxDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

}  // namespace

class TestFineTuning : public QObject {
  Q_OBJECT

 private slots:
  void rulesApplyInOrderAndFormGroups() {
    const std::vector<std::string> names{"body.weight", "body.bias",   "norm.weight",
                                         "norm.bias",   "head.weight", "head.bias"};
    std::vector<ParamGroupRule> rules(4);
    rules[0].match = ".";
    rules[0].lrMultiplier = 0.1;
    rules[1].match = "^head\\.";
    rules[1].lrMultiplier = 1.0;
    rules[2].match = "^norm\\.";
    rules[2].freeze = true;
    rules[3].match = "bias$";
    rules[3].weightDecay = 0.0;
    const ParamGroupLayout layout = assignParamGroups(names, rules);
    QCOMPARE(layout.frozen, int64_t{2});
    // (0.1, own decay): body.weight; (0.1, 0): body.bias; (1, own): head.weight; (1, 0): head.bias
    QCOMPARE(static_cast<int>(layout.groups.size()), 4);
    QCOMPARE(layout.params[0].group, 0);
    QCOMPARE(layout.params[0].lrMultiplier, 0.1);
    QVERIFY(!layout.params[0].weightDecay.has_value());
    QCOMPARE(layout.params[1].group, 1);
    QCOMPARE(*layout.params[1].weightDecay, 0.0);
    QVERIFY(layout.params[2].frozen);
    QCOMPARE(layout.params[2].group, -1);
    QCOMPARE(layout.params[4].group, 2);
    QCOMPARE(layout.params[4].lrMultiplier, 1.0);
    QCOMPARE(layout.params[5].group, 3);
    QCOMPARE(layout.params[5].rules, (std::vector<int>{0, 1, 3}));
  }

  void badRulesAreRefusedNamingTheRule() {
    const std::vector<std::string> names{"body.weight", "head.weight"};
    std::vector<ParamGroupRule> rules(2);
    rules[0].match = "^body";
    rules[0].freeze = true;
    rules[1].match = "^backbone\\.";  // a typo: matches nothing
    rules[1].freeze = true;
    try {
      assignParamGroups(names, rules);
      QFAIL("a rule that matches nothing was accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("optimizer.param_groups[1].match"), e.what());
      QVERIFY2(QString(e.what()).contains("body.weight, head.weight"), e.what());
    }
    rules[1].match = "(";
    QVERIFY_THROWS_EXCEPTION(InputError, assignParamGroups(names, rules));
    rules[1].match = ".";
    try {
      assignParamGroups(names, rules);
      QFAIL("freezing everything was accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("nothing would train"), e.what());
    }
  }

  void frozenLayersStayBitwiseAndTheHeadTrains() {
    for (bool normsEval : {true, false}) {
      SimpleTrainer trainer;
      const Trained t = train(trainer, batchesOf(20, 16), 20, {freezeBackbone(), normsEval});
      for (const char* name : {"body.weight", "body.bias", "norm.weight", "norm.bias"}) {
        QVERIFY2(torch::equal(t.initial.at(name), t.final.at(name)), name);
        QVERIFY(!trainer.mainModule().named_parameters()[name].requires_grad());
      }
      QVERIFY(maxDifference(t.initial.at("head.weight"), t.final.at("head.weight")) > 1e-3);
      const bool statsKept =
          torch::equal(t.initial.at("norm.running_mean"), t.final.at("norm.running_mean"));
      QCOMPARE(statsKept, normsEval);  // eval mode keeps them; training mode updates them
    }
  }

  void everyStrategyKeepsFrozenLayers() {
    const std::vector<Device> two{Device::parse("cpu"), Device::parse("cpu")};
    std::vector<std::unique_ptr<TowerTrainer>> trainers;
    trainers.push_back(std::make_unique<SyncReplicatedTrainer>(two));
    trainers.push_back(std::make_unique<SyncParameterServerTrainer>(two));
    trainers.push_back(std::make_unique<AsyncTrainer>(two));
    for (auto& trainer : trainers) {
      const Trained t = train(*trainer, batchesOf(24, 8), 10, {freezeBackbone(), true});
      for (const char* name : {"body.weight", "norm.bias", "norm.running_var"}) {
        QVERIFY2(torch::equal(t.initial.at(name), t.final.at(name)), name);
      }
      QVERIFY(maxDifference(t.initial.at("head.bias"), t.final.at("head.bias")) > 1e-4);
    }
  }

  void twoTowersOnHalfBatchesEqualOneTower() {
    // Frozen BatchNorm in eval mode makes each sample's output independent of its batch, so
    // averaging two towers' gradients on b samples equals one tower's on 2b.
    const auto batches = batchesOf(12, 16);
    SimpleTrainer one;
    const Trained a = train(one, batches, 12, {freezeBackbone(), true});
    SyncReplicatedTrainer two({Device::parse("cpu"), Device::parse("cpu")});
    const Trained b = train(two, split(batches), 12, {freezeBackbone(), true});
    for (const auto& [name, value] : a.final) {
      QVERIFY2(maxDifference(value, b.final.at(name)) < 1e-5, name.c_str());
    }
  }

  void groupRatesFollowTheLearningRate() {
    // One plain SGD step: the head's update at multiplier 0.5 is half the update without rules;
    // the body's (multiplier 1) is the same.
    auto plain = std::make_shared<FineTuneModel>();
    plain->momentum = 0;
    SimpleTrainer base;
    const Trained without = train(base, batchesOf(1, 16), 1, {}, plain);
    std::vector<ParamGroupRule> rules(1);
    rules[0].match = "^head\\.";
    rules[0].lrMultiplier = 0.5;
    SimpleTrainer grouped;
    const Trained with = train(grouped, batchesOf(1, 16), 1, {rules, true}, plain);
    const torch::Tensor fullStep =
        without.final.at("head.weight") - without.initial.at("head.weight");
    const torch::Tensor halfStep = with.final.at("head.weight") - with.initial.at("head.weight");
    QVERIFY(maxDifference(fullStep * 0.5, halfStep) < 1e-7);
    QVERIFY(torch::equal(without.final.at("body.weight"), with.final.at("body.weight")));
    // The hyper-parameter is the base rate; setting it keeps each group's multiplier.
    HyperParam* lr = grouped.hyperParam("learning_rate");
    QVERIFY(lr != nullptr);
    QCOMPARE(lr->get(), 0.1);
    lr->set(0.4);
    QCOMPARE(lr->get(), 0.4);
    auto& groups = grouped.optimizers().front()->param_groups();
    QCOMPARE(static_cast<int>(groups.size()), 2);
    QCOMPARE(groups[0].options().get_lr(), 0.4);  // body, norm: x1
    QCOMPARE(groups[1].options().get_lr(), 0.2);  // head: x0.5
  }

  void checkpointsCarryTheGroups() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("groups.pt").toStdString();
    std::vector<ParamGroupRule> rules(1);
    rules[0].match = "^head\\.";
    rules[0].lrMultiplier = 0.5;
    SimpleTrainer first;
    train(first, batchesOf(6, 16), 3, {rules, true}, nullptr, "", path);
    SimpleTrainer same;
    const Trained resumed = train(same, batchesOf(6, 16), 3, {rules, true}, nullptr, path);
    QCOMPARE(same.globalStep(), int64_t{6});
    QCOMPARE(same.optimizers().front()->param_groups()[1].options().get_lr(), 0.05);
    // Other groups than the checkpoint's: refused, not loaded into the wrong parameters.
    SimpleTrainer other;
    try {
      train(other, batchesOf(6, 16), 3, {}, nullptr, path);
      QFAIL("a checkpoint with two parameter groups was loaded into one");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("optimizer"), e.what());
    }
  }

  void accumulatedMicroBatchesEqualOneLargerBatch() {
    // No BatchNorm: a sample's gradient does not depend on its batch. One tower on 16, one
    // tower on 2 x 8 accumulated, two towers each on 2 x 4 accumulated: the same updates.
    auto model = std::make_shared<FineTuneModel>();
    model->withNorm = false;
    const auto batches = batchesOf(10, 16);
    auto historyA = std::make_shared<ScalarHistory>();
    SimpleTrainer whole;
    const Trained a = train(whole, batches, 10, {}, model, "", "", 1, historyA);
    auto historyB = std::make_shared<ScalarHistory>();
    SimpleTrainer accumulated;
    const Trained b = train(accumulated, split(batches, 2), 10, {}, model, "", "", 2, historyB);
    QCOMPARE(accumulated.globalStep(), int64_t{10});
    QCOMPARE(accumulated.samplesPerStep(), int64_t{16});
    SyncReplicatedTrainer towers({Device::parse("cpu"), Device::parse("cpu")});
    const Trained c = train(towers, split(batches, 4), 10, {}, model, "", "", 2);
    for (const auto& [name, value] : a.final) {
      QVERIFY2(maxDifference(value, b.final.at(name)) < 1e-6, name.c_str());
      QVERIFY2(maxDifference(value, c.final.at(name)) < 1e-6, name.c_str());
    }
    QVERIFY(maxDifference(a.initial.at("head.weight"), a.final.at("head.weight")) > 1e-3);
    // The step's cost is the mean over its micro-batches: the larger batch's cost.
    const auto costsA = historyA->get("cost");
    const auto costsB = historyB->get("cost");
    QCOMPARE(costsA.size(), costsB.size());
    for (size_t i = 0; i < costsA.size(); ++i)
      QVERIFY(std::abs(costsA[i].value - costsB[i].value) < 1e-6);
  }

  void theWeightAverageFollowsItsFormulaValidatesAndResumes() {
    // avg_0 = the weights before the first step; avg_s = 0.9 avg_(s-1) + 0.1 w_s.
    auto model = std::make_shared<FineTuneModel>();
    model->withNorm = false;
    std::vector<std::map<std::string, torch::Tensor>> steps;
    SimpleTrainer trainer;
    const Trained t =
        train(trainer, batchesOf(6, 16), 6, {}, model, "", "", 1, nullptr, 0.9, &steps);
    QCOMPARE(static_cast<int>(steps.size()), 6);
    std::map<std::string, torch::Tensor> expected = t.initial;
    for (const auto& weights : steps) {
      for (auto& [name, avg] : expected) avg = 0.9 * avg + 0.1 * weights.at(name);
    }
    const auto& average = trainer.weightAverage();
    QCOMPARE(average.size(), size_t{4});
    for (const auto& [name, avg] : average) {
      QVERIFY2(maxDifference(avg, expected.at(name)) < 1e-6, name.c_str());
      QVERIFY(maxDifference(avg, t.final.at(name)) > 1e-5);  // not the raw weights
    }
    // Validation (runInference) computes with the average, not the raw weights.
    auto net = std::make_shared<NetImpl>(false);
    {
      torch::NoGradGuard noGrad;
      for (auto& p : net->named_parameters()) p.value().copy_(expected.at(p.key()));
    }
    const Datapoint sample = batchesOf(1, 16).front();
    const torch::Tensor cost = trainer.runInference(sample).at("cost");
    const torch::Tensor wanted =
        torch::nn::functional::cross_entropy(net->forward(sample[0]), sample[1]);
    QVERIFY(std::abs(cost.item<double>() - wanted.item<double>()) < 1e-5);

    // Checkpoints keep it beside the raw weights; a resume continues it exactly.
    QTemporaryDir dir;
    const std::string path = dir.filePath("ema.pt").toStdString();
    SimpleTrainer first;
    train(first, batchesOf(6, 16), 3, {}, model, "", path, 1, nullptr, 0.9);
    const TrainingState saved = readCheckpointFile(path);
    QVERIFY(saved.trainerState.count("ema/head.weight") == 1);
    SimpleTrainer resumed;
    train(resumed, batchesOf(6, 16), 3, {}, model, path, "", 1, nullptr, 0.9);
    QCOMPARE(resumed.globalStep(), int64_t{6});
    for (size_t i = 0; i < average.size(); ++i) {
      QVERIFY2(torch::equal(average[i].second, resumed.weightAverage()[i].second),
               average[i].first.c_str());
    }
  }

  void theRangeTestSuggestsAsLightningDoes() {
    // Lightning's LRFinder.suggestion(skip_begin=10, skip_end=1) on a curve with a plateau, a
    // descent, a non-finite value and a divergence, computed by PyTorch (torch.gradient).
    std::vector<double> curve;
    for (int i = 0; i < 60; ++i) {
      const double x = i / 59.0;
      curve.push_back(2.3 - 1.5 / (1 + std::exp(-14 * (x - 0.45))) + (i > 50 ? (i - 50) * 0.4 : 0) +
                      0.01 * std::sin(i * 1.7));
    }
    curve[33] = std::numeric_limits<double>::quiet_NaN();
    QStringList values;
    for (double v : curve) values << (std::isfinite(v) ? QString::number(v, 'g', 17) : "nan");
    const char* script = R"(
import sys, torch
losses = torch.tensor([float(v) for v in sys.argv[1].split(",")], dtype=torch.float64)
skip_begin, skip_end = 10, 1
losses = losses[skip_begin:-skip_end]
losses = losses[torch.isfinite(losses)]
print(torch.gradient(losses)[0].argmin().item() + skip_begin)
)";
    const auto python = tbench::testing::runPython({"-c", script, values.join(",")});
    if (!python.ok) TB_SKIP_WITHOUT_INTEROP("python3-torch is not installed");
    QCOMPARE(suggestLearningRate(curve), python.out.trimmed().toLongLong());
    QCOMPARE(suggestLearningRate(std::vector<double>(11, 1.0)), int64_t{-1});  // too short
  }

  void projectFilesReadAndWriteTheGroups() {
    std::ifstream file(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
    nlohmann::json doc = nlohmann::json::parse(file);
    doc["optimizer"]["param_groups"] = {
        {{"match", "^net\\.0\\."}, {"freeze", true}},
        {{"match", "bias$"}, {"weight_decay", 0}, {"lr_multiplier", 2}}};
    const Project p = projectFromJson(doc, "test");
    QCOMPARE(static_cast<int>(p.paramGroups.size()), 2);
    QCOMPARE(p.paramGroups[0].match, std::string("^net\\.0\\."));
    QVERIFY(*p.paramGroups[0].freeze);
    QCOMPARE(*p.paramGroups[1].lrMultiplier, 2.0);
    const Project again = projectFromJson(projectToJson(p), "again");
    QVERIFY(again.paramGroups == p.paramGroups);
    // (Built, not parsed from a raw string: moc stops at an unbalanced "(" in one.)
    nlohmann::json groups = nlohmann::json::array();
    groups.push_back({{"match", std::string(1, '(')}, {"freeze", true}});
    groups.push_back({{"match", "x"}});
    groups.push_back({{"match", "y"}, {"lr_multiplier", -1}, {"frezee", true}});
    nlohmann::json bad = doc;
    bad["optimizer"]["param_groups"] = groups;
    const auto issues = validateProjectJson(bad);
    QStringList text;
    for (const auto& issue : issues) text << QString::fromStdString(issue.toString());
    const QString all = text.join("\n");
    QVERIFY2(all.contains("$.optimizer.param_groups[0].match"), qPrintable(all));
    QVERIFY2(all.contains("$.optimizer.param_groups[1]: says nothing"), qPrintable(all));
    QVERIFY2(all.contains("$.optimizer.param_groups[2].lr_multiplier"), qPrintable(all));
    QVERIFY2(all.contains("frezee"), qPrintable(all));
  }
};

}  // namespace test_FineTuning

TB_TEST_GUILESS_MAIN(test_FineTuning::TestFineTuning)
#include "test_FineTuning.moc"
