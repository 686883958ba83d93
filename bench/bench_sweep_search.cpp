// Model-based sweep search (engine/sweep/SearchModels.h) against random search, on known
// functions of the unit cube:
//   - branin: Branin-Hoo rescaled to [0,1]^2 (minimum 0.397887);
//   - hartmann6: Hartmann-6 on [0,1]^6 (minimum -3.32237);
//   - train4: a synthetic validation loss over log10(learning rate) in [-5, -1] (continuous),
//     width 16..2048 (8 levels, powers of 2), batch 16..512 (6 levels) and optimizer (sgd, adam,
//     adamw: categorical); the best learning rate depends on the optimizer, batch and width.
// Each method runs N trials one at a time (no trial running while the next is proposed) from R
// seeds; bayes and tpe start with the random trials searchStartsRandom says (5 and 10), the same
// points random search draws from that seed (trialSeed(seed, t)). Printed per function and
// method: the median over seeds of the best value after N trials, and the trials each seed took
// to reach random search's median best-after-N (the upper median over seeds; ">N" when more than
// half never reach it), with its ratio to N, the share of seeds that reach it within 0.6 N, and
// the wall time per trial (proposal + function). The goal (issue): bayes and tpe at most 0.6 N.
// tpe-mv is Optuna's TPESampler(multivariate=True), for comparison. The figure is noisy: the
// target itself is a median of a heavy-tailed best-of-N, and with 50 seeds (the default) tpe's
// ratio still moved between 0.45 and 0.72 from one seed set (--first-seed) to another; bayes's
// stays well below 0.6. Run with --seeds 500 --methods tpe,tpe-mv (about 20 s) for a firm one.
// usage: bench_sweep_search [--trials N] [--seeds R] [--first-seed S] [--methods bayes,tpe,tpe-mv]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/sweep/SearchModels.h"

using namespace tbench::search;

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Problem {
  std::string name;
  std::vector<Dimension> dims;
  std::function<double(const std::vector<double>&)> f;
};

double branin(const std::vector<double>& u) {
  const double x1 = -5 + 15 * u[0], x2 = 15 * u[1];
  const double b = 5.1 / (4 * kPi * kPi), c = 5 / kPi, t = 1 / (8 * kPi);
  const double q = x2 - b * x1 * x1 + c * x1 - 6;
  return q * q + 10 * (1 - t) * std::cos(x1) + 10;
}

double hartmann6(const std::vector<double>& x) {
  static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                 {0.05, 10, 17, 0.1, 8, 14},
                                 {3, 3.5, 1.7, 10, 17, 8},
                                 {17, 8, 0.05, 10, 0.1, 14}};
  static const double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                 {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                 {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                 {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) inner += a[i][j] * (x[j] - p[i][j]) * (x[j] - p[i][j]);
    sum += alpha[i] * std::exp(-inner);
  }
  return -sum;
}

/// A synthetic validation loss: lr (log), width (8 levels), batch (6 levels), optimizer (3).
double train4(const std::vector<double>& x) {
  const double logLr = -5 + 4 * x[0];
  const int widthLog2 = std::clamp(static_cast<int>(x[1] * 8), 0, 7) + 4;  // 16 .. 2048
  const int batchLog2 = std::clamp(static_cast<int>(x[2] * 6), 0, 5) + 4;  // 16 .. 512
  const int optimizer = std::clamp(static_cast<int>(x[3] * 3), 0, 2);      // sgd, adam, adamw
  static const double bestLr[3] = {-1.4, -3.2, -3.0}, curvature[3] = {0.5, 0.9, 0.8};
  static const double offset[3] = {0.08, 0.0, -0.03};
  // Larger batches want larger rates; wider networks smaller ones (muP-like).
  const double optimum = bestLr[optimizer] + 0.3 * (batchLog2 - 6) / 2.0 - 0.15 * (widthLog2 - 7);
  const double gap = logLr - optimum;
  double loss = 0.1 + offset[optimizer] + curvature[optimizer] * gap * gap;
  if (gap > 0.8) loss += 2.0 * (gap - 0.8);  // divergence past the edge of stability
  loss += 0.5 / std::sqrt(std::pow(2.0, widthLog2 - 4)) + 0.004 * (widthLog2 - 4);
  loss += 0.02 * (batchLog2 - 6) * (batchLog2 - 6) / 4.0;
  return loss;
}

/// The best-so-far after each of `trials` trials of `method` from `seed`.
std::vector<double> run(const Problem& p, const std::string& method, uint64_t seed, int trials) {
  std::vector<Observation> done;
  std::vector<double> best;
  double b = std::numeric_limits<double>::infinity();
  const std::string policy = method.rfind("tpe", 0) == 0 ? "tpe" : method;
  for (int t = 0; t < trials; ++t) {
    const uint64_t s = trialSeed(seed, static_cast<uint64_t>(t));
    std::vector<double> x;
    if (searchStartsRandom(policy, done.size())) {
      x = proposeRandom(p.dims, s);
    } else if (method == "bayes") {
      x = proposeBayes(p.dims, done, {}, s);
    } else {
      TpeOptions options;
      options.multivariate = method == "tpe-mv";
      x = proposeTpe(p.dims, done, {}, s, options);
    }
    const double y = p.f(x);
    done.push_back({x, y});
    b = std::min(b, y);
    best.push_back(b);
  }
  return best;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double upperMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Options {
  int trials = 40, seeds = 50;
  uint64_t firstSeed = 1000;
  std::vector<std::string> methods = {"random"};  // first: its median is the target
};

Options parse(int argc, char** argv) {
  Options o;
  std::string methodList = "bayes,tpe,tpe-mv";
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--trials")) o.trials = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--seeds")) o.seeds = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--first-seed")) o.firstSeed = std::strtoull(argv[++i], nullptr, 10);
    if (!std::strcmp(argv[i], "--methods")) methodList = argv[++i];
  }
  for (size_t at = 0; at <= methodList.size();) {
    const size_t comma = std::min(methodList.find(',', at), methodList.size());
    if (comma > at) o.methods.push_back(methodList.substr(at, comma - at));
    at = comma + 1;
  }
  return o;
}

/// The trial at which each curve first reaches `target` (infinity when it does not).
std::vector<double> trialsToReach(const std::vector<std::vector<double>>& curves, double target) {
  std::vector<double> reach;
  for (const auto& c : curves) {
    const auto it = std::find_if(c.begin(), c.end(), [&](double v) { return v <= target; });
    reach.push_back(it == c.end() ? std::numeric_limits<double>::infinity()
                                  : static_cast<double>(it - c.begin() + 1));
  }
  return reach;
}

/// Prints one row; returns the upper median of the trials to reach `target`.
double reportRow(const Options& o, const std::string& problem, const std::string& method,
                 const std::vector<std::vector<double>>& curves, double target, double wall) {
  std::vector<double> bestAtN;
  for (const auto& c : curves) bestAtN.push_back(c.back());
  const std::vector<double> reach = trialsToReach(curves, target);
  const double r = upperMedian(reach);
  const auto within =
      std::count_if(reach.begin(), reach.end(), [&](double t) { return t <= 0.6 * o.trials; });
  char reachText[32] = "(target)", ratioText[32] = "-";  // random: about N by construction
  if (method != "random" && std::isinf(r)) {
    std::snprintf(reachText, sizeof reachText, ">%d", o.trials);
    std::snprintf(ratioText, sizeof ratioText, ">1");
  } else if (method != "random") {
    std::snprintf(reachText, sizeof reachText, "%.0f", r);
    std::snprintf(ratioText, sizeof ratioText, "%.2f", r / o.trials);
  }
  std::printf("%-10s %-8s %14.5g %14s %7s %10.0f%% %11.2f\n", problem.c_str(), method.c_str(),
              median(bestAtN), reachText, ratioText, 100.0 * within / o.seeds,
              1000 * wall / (o.seeds * o.trials));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const std::vector<Problem> problems = {{"branin", {{}, {}}, branin},
                                         {"hartmann6", std::vector<Dimension>(6), hartmann6},
                                         {"train4", {{0, 0}, {0, 8}, {0, 6}, {3, 0}}, train4}};
  std::printf("N = %d trials, %d seeds; startup random trials: bayes %zu, tpe %zu\n", o.trials,
              o.seeds, searchStartupTrials("bayes"), searchStartupTrials("tpe"));
  std::printf("%-10s %-8s %14s %14s %7s %11s %11s\n", "function", "method", "median best@N",
              "trials to rand", "ratio", "reach@0.6N", "ms/trial");
  bool goalMet = true;
  for (const Problem& p : problems) {
    double target = 0;
    for (const std::string& m : o.methods) {
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::vector<double>> curves;
      for (int s = 0; s < o.seeds; ++s) curves.push_back(run(p, m, o.firstSeed + s, o.trials));
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (m == "random") {
        std::vector<double> bestAtN;
        for (const auto& c : curves) bestAtN.push_back(c.back());
        target = median(bestAtN);
      }
      const double r = reportRow(o, p.name, m, curves, target, wall);
      if ((m == "bayes" || m == "tpe") && !(r <= 0.6 * o.trials)) goalMet = false;
    }
  }
  std::printf("goal (bayes and tpe reach random's median best-after-N in <= 0.6 N): %s\n",
              goalMet ? "met" : "NOT met");
  return 0;
}
