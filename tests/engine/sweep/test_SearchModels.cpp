// Model-based sweep search (engine/sweep/SearchModels): a proposal is a function of its seed;
// proposals lie in [0,1] with categorical and level coordinates at their centres; bayes finds
// the minimum of a 1-D quadratic closer than its best observation and spreads parallel
// proposals over running trials; tpe concentrates on the good region (and category); the
// forest ranks an influential parameter above noise with the right correlation signs; 0, 1, 2
// observations and a constant metric give finite answers; the startup policy.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/sweep/SearchModels.h"

using namespace tbench::search;

namespace {

double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

/// `n` observations of `f` at uniform random points of `dims` (snapped), from `seed`.
template <typename F>
std::vector<Observation> observe(const std::vector<Dimension>& dims, int n, uint64_t seed, F f) {
  std::mt19937_64 rng(seed);
  std::vector<Observation> out;
  for (int i = 0; i < n; ++i) {
    std::vector<double> x(dims.size());
    for (size_t j = 0; j < dims.size(); ++j) x[j] = snapToDimension(dims[j], unit(rng));
    out.push_back({x, f(x)});
  }
  return out;
}

bool inUnitCubeAndSnapped(const std::vector<Dimension>& dims, const std::vector<double>& x) {
  if (x.size() != dims.size()) return false;
  for (size_t j = 0; j < dims.size(); ++j) {
    if (!std::isfinite(x[j]) || x[j] < 0 || x[j] > 1) return false;
    if (snapToDimension(dims[j], x[j]) != x[j]) return false;
  }
  return true;
}

double mixed(const std::vector<double>& x) {  // continuous, categorical (3), levels (5)
  return (x[0] - 0.6) * (x[0] - 0.6) + (std::floor(x[1] * 3) == 2 ? 0.0 : 0.3) +
         0.1 * std::abs(x[2] - 0.5);
}

const std::vector<Dimension> kMixed = {{0, 0}, {3, 0}, {0, 5}};

}  // namespace

class TestSearchModels : public QObject {
  Q_OBJECT
 private slots:
  void startupPolicy() {
    QVERIFY(searchStartsRandom("bayes", 4));
    QVERIFY(!searchStartsRandom("bayes", 5));
    QVERIFY(searchStartsRandom("tpe", 4));
    QVERIFY(!searchStartsRandom("tpe", 5));
    QVERIFY(searchStartsRandom("random", 1000));
    QVERIFY(!searchStartsRandom("grid", 0));
    QCOMPARE(searchStartupTrials("bayes"), size_t{5});
    QCOMPARE(searchStartupTrials("tpe"), size_t{5});
    QVERIFY(trialSeed(1, 2) != trialSeed(1, 3));
    QVERIFY(trialSeed(1, 2) != trialSeed(2, 2));
  }

  void snapping() {
    QCOMPARE(snapToDimension({3, 0}, 0.0), 0.5 / 3);
    QCOMPARE(snapToDimension({3, 0}, 1.0), 2.5 / 3);
    QCOMPARE(snapToDimension({0, 4}, 0.3), 0.375);
    QCOMPARE(snapToDimension({0, 0}, 1.5), 1.0);
    QCOMPARE(snapToDimension({0, 0}, -0.5), 0.0);
    QCOMPARE(snapToDimension({0, 0}, NAN), 0.5);
  }

  void sameSeedSameProposalOtherSeedAnother() {
    const auto obs = observe(kMixed, 12, 3, mixed);
    QCOMPARE(proposeBayes(kMixed, obs, {}, 7), proposeBayes(kMixed, obs, {}, 7));
    QVERIFY(proposeBayes(kMixed, obs, {}, 7) != proposeBayes(kMixed, obs, {}, 8));
    QCOMPARE(proposeTpe(kMixed, obs, {}, 7), proposeTpe(kMixed, obs, {}, 7));
    QVERIFY(proposeTpe(kMixed, obs, {}, 7) != proposeTpe(kMixed, obs, {}, 8));
    QCOMPARE(proposeRandom(kMixed, 7), proposeRandom(kMixed, 7));
    QVERIFY(proposeRandom(kMixed, 7) != proposeRandom(kMixed, 8));
    const Importance a = parameterImportance(kMixed, obs, 5),
                     b = parameterImportance(kMixed, obs, 5);
    QCOMPARE(a.importance, b.importance);
    QCOMPARE(a.correlation, b.correlation);
  }

  void proposalsInTheCubeAtCentres() {
    const auto obs = observe(kMixed, 15, 4, mixed);
    for (uint64_t seed = 0; seed < 10; ++seed) {
      QVERIFY(inUnitCubeAndSnapped(kMixed, proposeRandom(kMixed, seed)));
      QVERIFY(inUnitCubeAndSnapped(kMixed, proposeBayes(kMixed, obs, {}, seed)));
      QVERIFY(inUnitCubeAndSnapped(kMixed, proposeTpe(kMixed, obs, {}, seed)));
      TpeOptions mv;
      mv.multivariate = true;
      QVERIFY(inUnitCubeAndSnapped(kMixed, proposeTpe(kMixed, obs, {}, seed, mv)));
    }
  }

  void bayesFindsTheMinimumOfAQuadratic() {
    // 8 evenly spaced observations of (x - 0.37)^2: the nearest is 0.055 away (0.425). The GP
    // fits the parabola; EI peaks at its minimum.
    const std::vector<Dimension> dims(1);
    std::vector<Observation> obs;
    for (int i = 0; i < 8; ++i) {
      const double x = 0.05 + 0.125 * i;
      obs.push_back({{x}, (x - 0.37) * (x - 0.37)});
    }
    for (uint64_t seed = 0; seed < 5; ++seed) {
      const double x = proposeBayes(dims, obs, {}, seed)[0];
      QVERIFY2(std::abs(x - 0.37) < 0.03, qPrintable(QString::number(x)));
    }
  }

  void runningTrialsSpreadParallelProposals() {
    const std::vector<Dimension> dims(2);
    const auto f = [](const std::vector<double>& x) {
      return (x[0] - 0.3) * (x[0] - 0.3) + (x[1] - 0.6) * (x[1] - 0.6);
    };
    const auto obs = observe(dims, 8, 11, f);
    const std::vector<double> first = proposeBayes(dims, obs, {}, 1);
    const std::vector<double> second = proposeBayes(dims, obs, {first}, 1);  // same seed
    const double moved = std::hypot(first[0] - second[0], first[1] - second[1]);
    QVERIFY2(moved > 0.02, qPrintable(QString::number(moved)));
    const std::vector<double> third = proposeBayes(dims, obs, {first, second}, 1);
    QVERIFY(std::hypot(third[0] - first[0], third[1] - first[1]) > 0.02);
    QVERIFY(std::hypot(third[0] - second[0], third[1] - second[1]) > 0.02);
  }

  void tpeConcentratesOnTheGoodRegion() {
    // 40 observations on a grid: x0 = (i + 0.5) / 40, category i % 4; y is best at x0 = 0.8 in
    // category 2. The 4 good ones are category 2 at x0 0.66 .. 0.96. Uniform proposals would be
    // 0.34 from 0.8 on average and in category 2 a quarter of the time.
    const std::vector<Dimension> dims = {{0, 0}, {4, 0}};
    std::vector<Observation> obs;
    for (int i = 0; i < 40; ++i) {
      const double x0 = (i + 0.5) / 40;
      obs.push_back({{x0, (i % 4 + 0.5) / 4}, std::abs(x0 - 0.8) + (i % 4 == 2 ? 0.0 : 0.2)});
    }
    for (bool multivariate : {false, true}) {
      TpeOptions options;
      options.multivariate = multivariate;
      double distance = 0;
      int inCategory = 0;
      for (uint64_t seed = 0; seed < 40; ++seed) {
        const std::vector<double> x = proposeTpe(dims, obs, {}, seed, options);
        distance += std::abs(x[0] - 0.8) / 40;
        inCategory += std::floor(x[1] * 4) == 2;
      }
      QVERIFY2(distance < 0.2, qPrintable(QString::number(distance)));
      QVERIFY2(inCategory >= 30, qPrintable(QString::number(inCategory)));
    }
  }

  void importanceRanksTheInfluentialParameter() {
    // y falls with x0, rises in category 1 of x2; x1 is noise.
    const std::vector<Dimension> dims = {{0, 0}, {0, 0}, {3, 0}};
    std::mt19937_64 noise(99);
    const auto f = [&](const std::vector<double>& x) {
      return -2 * x[0] + (std::floor(x[2] * 3) == 1 ? 1.0 : 0.0) + 0.05 * unit(noise);
    };
    const auto obs = observe(dims, 60, 31, f);
    const Importance imp = parameterImportance(dims, obs, 1);
    QCOMPARE(imp.importance.size(), size_t{3});
    double sum = 0;
    for (double v : imp.importance) {
      QVERIFY(v >= 0);
      sum += v;
    }
    QVERIFY(std::abs(sum - 1) < 1e-9);
    QVERIFY(imp.importance[0] > imp.importance[1]);
    QVERIFY(imp.importance[2] > imp.importance[1]);
    QVERIFY(imp.importance[1] < 0.1);
    QVERIFY2(imp.correlation[0] < -0.5, qPrintable(QString::number(imp.correlation[0])));
    QVERIFY(std::abs(imp.correlation[1]) < 0.3);
    QVERIFY2(imp.correlation[2] > 0.3, qPrintable(QString::number(imp.correlation[2])));
  }

  void fewObservationsAndConstantMetricStayFinite() {
    const std::vector<Dimension> one(1);
    for (int n = 0; n <= 3; ++n) {
      const auto obs = observe(kMixed, n, 41, mixed);
      QVERIFY(inUnitCubeAndSnapped(kMixed, proposeBayes(kMixed, obs, {}, 1)));
      QVERIFY(inUnitCubeAndSnapped(kMixed, proposeTpe(kMixed, obs, {}, 1)));
      QVERIFY(inUnitCubeAndSnapped(one, proposeBayes(one, observe(one, n, 42, mixed), {}, 1)));
      QVERIFY(inUnitCubeAndSnapped(one, proposeTpe(one, observe(one, n, 42, mixed), {}, 1)));
      const Importance imp = parameterImportance(kMixed, obs, 1);
      for (size_t j = 0; j < kMixed.size(); ++j) {
        QVERIFY(std::isfinite(imp.importance[j]) && std::isfinite(imp.correlation[j]));
        if (n < 3) QCOMPARE(imp.importance[j], 0.0);
      }
    }
    // Constant y (and a repeated point): no NaN, importance and correlation all 0.
    auto flat = observe(kMixed, 8, 43, [](const std::vector<double>&) { return 2.5; });
    flat.push_back(flat.front());
    QVERIFY(inUnitCubeAndSnapped(kMixed, proposeBayes(kMixed, flat, {flat[1].x}, 1)));
    QVERIFY(inUnitCubeAndSnapped(kMixed, proposeTpe(kMixed, flat, {flat[1].x}, 1)));
    const Importance imp = parameterImportance(kMixed, flat, 1);
    for (size_t j = 0; j < kMixed.size(); ++j) {
      QCOMPARE(imp.importance[j], 0.0);
      QCOMPARE(imp.correlation[j], 0.0);
    }
    // Repeated points with different y (a noisy metric) still factor.
    std::vector<Observation> repeated;
    for (int i = 0; i < 6; ++i) repeated.push_back({{0.4}, static_cast<double>(i % 2)});
    QVERIFY(inUnitCubeAndSnapped(one, proposeBayes(one, repeated, {}, 1)));
    QVERIFY(proposeBayes({}, {}, {}, 1).empty());
  }
};

QTEST_GUILESS_MAIN(TestSearchModels)
#include "test_SearchModels.moc"
