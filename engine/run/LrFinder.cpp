#include "engine/run/LrFinder.h"
#include "engine/core/Names.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/callbacks/HyperParamSetter.h"
#include "engine/core/Check.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"

namespace tbench {

int64_t suggestLearningRate(const std::vector<double>& smoothed, int64_t skipBegin,
                            int64_t skipEnd) {
  // Lightning: losses[skip_begin:-skip_end], the finite ones, torch.gradient, argmin + skip_begin
  // (its index does not account for dropped non-finite values; neither does this).
  std::vector<double> losses;
  const int64_t n = static_cast<int64_t>(smoothed.size());
  for (int64_t i = skipBegin; i < n - skipEnd; ++i) {
    if (std::isfinite(smoothed[static_cast<size_t>(i)])) {
      losses.push_back(smoothed[static_cast<size_t>(i)]);
    }
  }
  const size_t m = losses.size();
  if (m < 2) return -1;
  size_t best = 0;
  double bestGradient = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < m; ++i) {
    // torch.gradient: one-sided at the ends, central inside.
    const double g = i == 0       ? losses[1] - losses[0]
                     : i == m - 1 ? losses[m - 1] - losses[m - 2]
                                  : (losses[i + 1] - losses[i - 1]) / 2.0;
    if (g < bestGradient) {
      bestGradient = g;
      best = i;
    }
  }
  return static_cast<int64_t>(best) + skipBegin;
}

LrFinderResult findLearningRate(const Project& project, const LrFinderOptions& options,
                                const std::function<void(const LrFinderResult&)>& progress) {
  if (!(options.start > 0) || !(options.end > options.start)) {
    throw InputError(str("the learning-rate range must be 0 < start < end, got ", options.start,
                         " to ", options.end));
  }
  if (options.steps < 2)
    throw InputError(str("the range test needs >= 2 steps, got ", options.steps));
  if (project.trainer.type == "distributed") {
    throw InputError(
        "the range test runs in one process; try it on the project with another "
        "strategy (e.g. --set trainer.strategy=simple)");
  }
  Project one = project;
  one.stepsPerEpoch = options.steps;
  one.startingEpoch = 1;
  one.maxEpoch = 1;
  one.callbacks.clear();
  one.schedule.enabled = false;
  BuiltRun run = buildRun(one, "");
  auto history = std::make_shared<ScalarHistory>();
  run.config.monitors.emplace(std::vector<TrainingMonitorPtr>{history});
  const double start = options.start;
  const double ratio = options.end / options.start;
  const auto steps = static_cast<double>(options.steps);
  auto rateAt = [start, ratio, steps](int64_t step) {
    return start * std::pow(ratio, static_cast<double>(step) / steps);
  };
  LrFinderResult result;
  double average = 0;
  double best = std::numeric_limits<double>::infinity();
  auto afterStep = [&](TrainerContext& context) {
    const int64_t step = context.globalStep() - 1;  // the step just run
    const auto cost = context.monitors().latest("cost");
    const double loss = cost ? *cost : std::numeric_limits<double>::quiet_NaN();
    average = options.smoothing * average + (1 - options.smoothing) * loss;
    const double smoothed =
        average / (1 - std::pow(options.smoothing, static_cast<double>(step + 1)));
    result.rates.push_back(rateAt(step));
    result.losses.push_back(loss);
    result.smoothed.push_back(smoothed);
    if (!std::isfinite(smoothed)) {
      result.stopped = str("the cost is ", loss, " at rate ", rateAt(step));
      context.requestStop();
    } else if (step > 0 && smoothed > options.divergeFactor * best) {
      result.stopped = str("diverged at rate ", rateAt(step), ": the smoothed cost ", smoothed,
                           " is over ", options.divergeFactor, " x the best, ", best);
      context.requestStop();
    }
    if (std::isfinite(smoothed) && (smoothed < best || step == 0)) best = smoothed;
    if (progress) progress(result);
  };
  run.config.extraCallbacks.emplace(std::vector<CallbackPtr>{
      std::make_shared<HyperParamSetterWithFunc>(
          names::kLearningRate, [rateAt](int64_t step) { return rateAt(step); },
          HyperParamSetter::Unit::Step),
      CallbackFactory::everyStep("lr_find", afterStep)});
  run.config.speed.readScalarsEverySteps = 1;  // every step's cost is judged at once
  launchTrainWithConfig(run.config, *run.trainer);
  result.suggestion = suggestLearningRate(result.smoothed);
  if (result.suggestion >= 0)
    result.suggestedRate = result.rates[static_cast<size_t>(result.suggestion)];
  return result;
}

nlohmann::json lrFinderJson(const LrFinderResult& result) {
  auto numbers = [](const std::vector<double>& values) {
    nlohmann::json out = nlohmann::json::array();
    for (double v : values) {
      if (std::isfinite(v)) {
        out.push_back(v);
      } else {
        out.push_back(nullptr);
      }
    }
    return out;
  };
  nlohmann::json j = {{"rates", numbers(result.rates)},
                      {"losses", numbers(result.losses)},
                      {"smoothed", numbers(result.smoothed)},
                      {"stopped", result.stopped}};
  if (result.suggestion >= 0) {
    j["suggestion"] = result.suggestion;
    j["suggested_rate"] = result.suggestedRate;
  } else {
    j["suggestion"] = nullptr;
    j["suggested_rate"] = nullptr;
  }
  return j;
}

}  // namespace tbench
