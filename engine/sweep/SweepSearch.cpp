#include "engine/sweep/SweepSearch.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/sweep/SearchModels.h"

namespace tbench {
namespace {

using nlohmann::json;

/// The parameters the models see (constants are not modelled).
std::vector<const SweepParameter*> modelled(const SweepSpec& sweep) {
  std::vector<const SweepParameter*> out;
  for (const auto& p : sweep.parameters) {
    if (p.distribution != "constant") out.push_back(&p);
  }
  return out;
}

bool isCategorical(const SweepParameter& p) {
  return p.distribution == "categorical" || p.distribution == "categorical_w_probabilities";
}

/// The models' coordinate of a value: a category k of n at (k + 0.5) / n whatever its
/// probability (SearchModels' convention), everything else its quantile.
double modelCoordinate(const SweepParameter& p, const json& value) {
  if (!isCategorical(p)) return p.coordinateOf(value);
  const auto it = std::find(p.values.begin(), p.values.end(), value);
  const auto k = static_cast<double>(it == p.values.end() ? 0 : it - p.values.begin());
  return (k + 0.5) / static_cast<double>(p.values.size());
}

/// The value of a models' coordinate (the inverse of modelCoordinate).
json modelValue(const SweepParameter& p, double x) {
  if (!isCategorical(p)) return p.valueAt(x);
  const auto n = p.values.size();
  return p.values[std::min(n - 1, static_cast<size_t>(std::max(0.0, x) * static_cast<double>(n)))];
}

std::vector<search::Dimension> dimensionsOf(const std::vector<const SweepParameter*>& params) {
  std::vector<search::Dimension> dims;
  for (const SweepParameter* p : params) {
    search::Dimension d;
    d.choices = isCategorical(*p) ? p->choices() : 0;
    d.levels = p->distribution == "int_uniform" ? p->choices() : 0;
    dims.push_back(d);
  }
  return dims;
}

std::vector<double> coordinatesOf(const std::vector<const SweepParameter*>& params,
                                  const json& values) {
  std::vector<double> x;
  for (const SweepParameter* p : params) {
    x.push_back(values.contains(p->path) ? modelCoordinate(*p, values[p->path]) : 0.5);
  }
  return x;
}

std::optional<double> lastFinite(const std::vector<double>& metric) {
  for (auto it = metric.rbegin(); it != metric.rend(); ++it) {
    if (std::isfinite(*it)) return *it;
  }
  return std::nullopt;
}

/// The results of the trials that have one, smaller is better (Note [Sweep search]), failed
/// ones imputed; the running trials' coordinates to `running`.
std::vector<search::Observation> observations(const SweepSpec& sweep,
                                              const std::vector<const SweepParameter*>& params,
                                              const std::vector<TrialOutcome>& trials,
                                              std::vector<std::vector<double>>* running) {
  const auto score = [&](double v) { return sweep.metric.maximize ? -v : v; };
  std::vector<search::Observation> done;
  std::vector<const TrialOutcome*> failed;
  for (const TrialOutcome& t : trials) {
    const std::optional<double> last = lastFinite(t.metric);
    if (t.kind == TrialOutcome::Kind::Running) {
      if (running) running->push_back(coordinatesOf(params, t.values));
    } else if (t.kind == TrialOutcome::Kind::Done && last) {
      done.push_back({coordinatesOf(params, t.values), score(*last)});
    } else {
      failed.push_back(&t);
    }
  }
  if (done.empty()) return done;
  double worst = done.front().y, best = done.front().y;
  for (const auto& o : done) {
    worst = std::max(worst, o.y);
    best = std::min(best, o.y);
  }
  for (const TrialOutcome* t : failed) {
    const std::optional<double> last = lastFinite(t->metric);
    const double y = sweep.metric.impute == "best"             ? best
                     : sweep.metric.impute == "latest" && last ? score(*last)
                                                               : worst;
    done.push_back({coordinatesOf(params, t->values), y});
  }
  return done;
}

/// A proposal's random numbers: the sweep's seed and the trial's index (splitmix64); -1 for
/// the importance's forest.
uint64_t proposalSeed(uint64_t seed, int64_t index) {
  return search::trialSeed(seed, static_cast<uint64_t>(index + 1));
}

}  // namespace

json proposeTrialValues(const SweepSpec& sweep, int64_t index,
                        const std::vector<TrialOutcome>& trials) {
  const std::vector<const SweepParameter*> params = modelled(sweep);
  if (sweep.method == "random" || params.empty()) return randomTrialValues(sweep, index);
  std::vector<std::vector<double>> running;
  const std::vector<search::Observation> done = observations(sweep, params, trials, &running);
  if (search::searchStartsRandom(sweep.method, done.size())) return randomTrialValues(sweep, index);
  const std::vector<search::Dimension> dims = dimensionsOf(params);
  const uint64_t seed = proposalSeed(sweep.seed, index);
  const std::vector<double> x = sweep.method == "bayes"
                                    ? search::proposeBayes(dims, done, running, seed)
                                    : search::proposeTpe(dims, done, running, seed);
  json values = json::object();
  size_t k = 0;
  for (const auto& p : sweep.parameters) {
    values[p.path] = p.distribution == "constant" ? p.values.front() : modelValue(p, x[k++]);
  }
  return values;
}

std::vector<ParameterImportance> sweepImportance(const SweepSpec& sweep,
                                                 const std::vector<TrialOutcome>& trials) {
  const std::vector<const SweepParameter*> params = modelled(sweep);
  std::vector<TrialOutcome> ended;  // failed trials have no result of their own
  for (const TrialOutcome& t : trials) {
    if (t.kind == TrialOutcome::Kind::Done && lastFinite(t.metric)) ended.push_back(t);
  }
  std::vector<search::Observation> obs = observations(sweep, params, ended, nullptr);
  if (params.empty() || obs.size() < 3) return {};
  const search::Importance imp =
      search::parameterImportance(dimensionsOf(params), obs, proposalSeed(sweep.seed, -1));
  std::vector<ParameterImportance> out;
  for (size_t i = 0; i < params.size(); ++i) {
    // The models' y is "smaller is better": the correlation is given with the metric itself.
    const double sign = sweep.metric.maximize ? -1.0 : 1.0;
    out.push_back({params[i]->path, imp.importance[i], sign * imp.correlation[i]});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.importance > b.importance; });
  return out;
}

}  // namespace tbench
