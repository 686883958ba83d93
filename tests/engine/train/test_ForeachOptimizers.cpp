// Multi-tensor optimizers (engine/train/ForeachOptimizers.h, issue 36): on the CPU the foreach
// step of SGD (plain, momentum, nesterov, decay), Adam and AdamW equals LibTorch's own step
// bitwise, through a learning-rate change and with a parameter that gets no gradient; their
// checkpoints load into each other; the device-learning-rate mode (the rate and step counts in
// tensors, as a captured step needs) equals it within float rounding and follows set_lr; the
// project key chooses them.
#include <QtTest>

#include <torch/serialize.h>
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <sstream>
#include <type_traits>
#include <utility>

#include "engine/core/Check.h"
#include "engine/core/TorchCompat.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/train/ForeachOptimizers.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ForeachOptimizers {

using namespace tbench;
using torch::Tensor;
namespace optim = torch::optim;

namespace {

/// Three parameters of different shapes, the same for the same seed; the last never gets a
/// gradient (a frozen head, an unused branch).
std::vector<Tensor> makeParams(uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<Tensor> params = {torch::randn({4, 3}), torch::randn({3}), torch::randn({2, 2, 2})};
  for (Tensor& p : params) p.set_requires_grad(true);
  return params;
}

using Maker = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

/// Runs `steps` updates of a and b with the same gradients (the learning rate set to
/// `newLr` at step `changeAt`) and returns the largest |difference| of their parameters.
double largestDifference(const Maker& a, const Maker& b, int steps, int changeAt = -1,
                         double newLr = 0, int saveAt = -1) {
  std::vector<Tensor> pa = makeParams(7), pb = makeParams(7);
  auto oa = a(pa);
  auto ob = b(pb);
  torch::manual_seed(99);
  for (int s = 0; s < steps; ++s) {
    if (s == changeAt) {
      for (auto& g : oa->param_groups()) g.options().set_lr(newLr);
      for (auto& g : ob->param_groups()) g.options().set_lr(newLr);
    }
    if (s == saveAt) {
      // b continues from a's checkpoint: its own state replaced by a's archive.
      torch::serialize::OutputArchive out;
      oa->save(out);
      std::ostringstream bytes;
      out.save_to(bytes);
      {
        torch::NoGradGuard noGrad;
        for (size_t i = 0; i < pa.size(); ++i) pb[i].copy_(pa[i]);
      }
      torch::serialize::InputArchive in;
      std::istringstream read(bytes.str());
      in.load_from(read);
      ob->load(in);
    }
    for (size_t i = 0; i + 1 < pa.size(); ++i) {
      const Tensor g = torch::randn(pa[i].sizes());
      pa[i].mutable_grad() = g.clone();
      pb[i].mutable_grad() = g.clone();
    }
    oa->step();
    ob->step();
  }
  double worst = 0;
  for (size_t i = 0; i < pa.size(); ++i) {
    worst = std::max(worst, (pa[i] - pb[i]).abs().max().item<double>());
  }
  const std::vector<Tensor> initial = makeParams(7);
  if (torch::equal(pa[0], initial[0])) return -1;   // the parameters did not move
  if (!torch::equal(pa[2], initial[2])) return -2;  // one without a gradient moved
  return worst;
}

template <typename T, typename Options>
Maker maker(Options options, bool deviceLr = false) {
  return [options, deviceLr](std::vector<Tensor> p) -> std::unique_ptr<optim::Optimizer> {
    if constexpr (std::is_constructible_v<T, std::vector<Tensor>, Options, bool>) {
      return std::make_unique<T>(std::move(p), options, deviceLr);
    } else {
      (void)deviceLr;  // LibTorch's own classes take no device rate
      return std::make_unique<T>(std::move(p), options);
    }
  };
}

}  // namespace

class TestForeachOptimizers : public QObject {
  Q_OBJECT

 private slots:
  void foreachEqualsLibTorchsStepBitwise_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("sgd") << "sgd";
    QTest::newRow("sgd momentum decay") << "sgd-momentum";
    QTest::newRow("sgd nesterov") << "sgd-nesterov";
    QTest::newRow("adam decay") << "adam";
    QTest::newRow("adamw") << "adamw";
  }
  void foreachEqualsLibTorchsStepBitwise() {
    QFETCH(QString, name);
    const auto [foreach, perParameter] = makersFor(name, false);
    QCOMPARE(largestDifference(foreach, perParameter, 20, 10, 0.003), 0.0);
    // A checkpoint of the foreach optimizer goes on in LibTorch's, and back.
    QCOMPARE(largestDifference(foreach, perParameter, 20, -1, 0, 10), 0.0);
    QCOMPARE(largestDifference(perParameter, foreach, 20, -1, 0, 10), 0.0);
  }

  void theDeviceLearningRateFollowsSetLr_data() { foreachEqualsLibTorchsStepBitwise_data(); }
  void theDeviceLearningRateFollowsSetLr() {
    QFETCH(QString, name);
    const auto [deviceLr, perParameter] = makersFor(name, true);
    const double worst = largestDifference(deviceLr, perParameter, 30, 12, 0.004);
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
  }

  void theRateTensorHoldsTheCurrentRate() {
    std::vector<Tensor> p = makeParams(3);
    ForeachAdam adam(p, optim::AdamOptions(0.01), /*deviceLearningRate=*/true);
    for (size_t i = 0; i + 1 < p.size(); ++i) p[i].mutable_grad() = torch::ones(p[i].sizes());
    adam.step();
    QCOMPARE(adam.deviceLearningRate(0).item<double>(), double(float(0.01)));
    adam.param_groups()[0].options().set_lr(0.5);  // a live edit (F8) or a schedule
    adam.step();
    QCOMPARE(adam.deviceLearningRate(0).item<double>(), 0.5);
    QCOMPARE(static_cast<optim::AdamParamState&>(*adam.state().at(compat::optimizerStateKey(p[0])))
                 .step(),
             int64_t{2});  // the host count too, for checkpoints
  }

  void theProjectKeyChooses() {
    QVERIFY(!useForeach(ForeachMode::Auto, makeParams(1)));  // CPU parameters
    QVERIFY(useForeach(ForeachMode::On, makeParams(1)));
    QVERIFY(!useForeach(ForeachMode::Off, makeParams(1)));
    QVERIFY_THROWS_EXCEPTION(InputError, foreachModeOf("fast"));
    for (const std::string type : {"sgd", "adam", "adamw"}) {
      ComponentSpec spec = ComponentSpec::of("optimizer", type);
      auto automatic = optimizerFactory(spec)(makeParams(1));
      spec.set("foreach", "on");
      auto on = optimizerFactory(spec)(makeParams(1));
      const bool isForeach = dynamic_cast<ForeachSGD*>(on.get()) != nullptr ||
                             dynamic_cast<ForeachAdam*>(on.get()) != nullptr ||
                             dynamic_cast<ForeachAdamW*>(on.get()) != nullptr;
      QVERIFY2(isForeach, type.c_str());
      const bool autoIsForeach = dynamic_cast<ForeachSGD*>(automatic.get()) != nullptr ||
                                 dynamic_cast<ForeachAdam*>(automatic.get()) != nullptr ||
                                 dynamic_cast<ForeachAdamW*>(automatic.get()) != nullptr;
      QVERIFY2(!autoIsForeach, type.c_str());
    }
  }

 private:
  static std::pair<Maker, Maker> makersFor(const QString& name, bool deviceLr) {
    if (name.startsWith("sgd")) {
      optim::SGDOptions o(0.05);
      if (name != "sgd") o.momentum(0.9).weight_decay(1e-3);
      if (name == "sgd-nesterov") o.nesterov(true);
      return {maker<ForeachSGD>(o, deviceLr), maker<optim::SGD>(o)};
    }
    if (name == "adam") {
      const auto o = optim::AdamOptions(0.01).weight_decay(0.01).betas({0.8, 0.99});
      return {maker<ForeachAdam>(o, deviceLr), maker<optim::Adam>(o)};
    }
    const auto o = optim::AdamWOptions(0.01).weight_decay(0.05);
    return {maker<ForeachAdamW>(o, deviceLr), maker<optim::AdamW>(o)};
  }
};

}  // namespace test_ForeachOptimizers

TB_TEST_GUILESS_MAIN(test_ForeachOptimizers::TestForeachOptimizers)
#include "test_ForeachOptimizers.moc"
