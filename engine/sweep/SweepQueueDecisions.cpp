// The sweep queue's decisions from what it reads each poll (Note [The sweep queue],
// SweepQueue.h): the trials' metrics from their stats.json, the requests in control.json,
// metric.target, diverged costs, hyperband's pruning, and the next trial of a sequential sweep
// (Note [Sweep search]).
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "engine/core/Ordinal.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/RunScalars.h"
#include "engine/run/RunStatus.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/SweepQueue.h"
#include "engine/sweep/SweepSearch.h"

namespace tbench {
namespace fs = std::filesystem;
using nlohmann::json;

bool SweepQueue::canAddTrial() const {
  return sweep_.sequential() && options_.onlyTrial < 0 && !stopRequested_ && !targetTrial_ &&
         (sweep_.runCap == 0 || static_cast<int64_t>(state_.trials.size()) < sweep_.runCap) &&
         invalidInARow_ < kMostInvalidInARow;
}

void SweepQueue::addTrial() {
  const auto index = static_cast<int64_t>(state_.trials.size());
  std::vector<TrialOutcome> outcomes;
  for (const TrialRecord& t : state_.trials) {
    TrialOutcome o;
    o.values = t.values;
    o.metric = t.metric;
    if (t.state == TrialState::Cancelled) continue;  // asked away: neither a result nor a run
    o.kind = t.state == TrialState::Pending || t.state == TrialState::Running
                 ? TrialOutcome::Kind::Running
             : t.state == TrialState::Failed ? TrialOutcome::Kind::Failed
                                             : TrialOutcome::Kind::Done;
    outcomes.push_back(std::move(o));
  }
  TrialRecord r;
  r.index = index;
  r.values = proposeTrialValues(sweep_, index, outcomes);
  r.runDir = trialRunDir(index);
  try {
    trials_.push_back(makeTrial(sweep_, base_, index, r.values));
    maxEpochs_.push_back(projectFromJson(trials_.back().project, sweep_.projectPath()).maxEpoch);
    invalidInARow_ = 0;
  } catch (const std::exception& e) {
    // A value the project refuses (a range the sweep's bounds allow but the key does not):
    // this trial fails, saying why, and the search goes on (it counts as the worst result).
    trials_.push_back({index, r.values, base_});
    maxEpochs_.push_back(0);
    r.state = TrialState::Failed;
    r.detail = std::string("its project is invalid: ") + e.what();
    ++invalidInARow_;
    if (invalidInARow_ == kMostInvalidInARow) {
      say("no new trial: the last " + std::to_string(kMostInvalidInARow) +
          " proposed were invalid for the project (see their detail)");
    }
  }
  say("trial " + std::to_string(index) + " made by " + sweep_.method + " (" +
      trialValuesText(r.values) + ")" + (r.state == TrialState::Failed ? ": " + r.detail : ""));
  state_.trials.push_back(std::move(r));
}

void SweepQueue::checkTarget() {
  if (!sweep_.metric.target || targetTrial_) return;
  for (const TrialRecord& t : state_.trials) {
    for (double v : t.metric) {
      if (!sweep_.metric.reaches(v)) continue;
      targetTrial_ = t.index;
      std::ostringstream line;
      line << "trial " << t.index << " reached metric.target (" << sweep_.metric.name << " " << v
           << ", target " << *sweep_.metric.target << "): no new trial starts";
      say(line.str());
      return;
    }
  }
}

void SweepQueue::readMetric(TrialRecord& t) const {
  const StatsFileContents stats =
      readStatsFile((fs::path(t.runDir) / StatsFileContents::kFileName).string());
  if (!stats.error.empty() && stats.points.empty()) return;  // being replaced: keep what we had
  // Note [A sweep's metric by occurrence]: the metric's logged values in order, one per epoch
  // that has it (the last the file gives for it: stats.json may flush an epoch twice), as W&B
  // reads a run's history: the k-th value is iteration k whichever epoch logged it. A metric
  // put every few epochs (inference.every_k_epochs) or a run that starts at starting_epoch > 1
  // still has its values (they had been dropped from the first missing epoch on).
  std::map<int64_t, double> byEpoch;
  int64_t lastEpoch = 0;
  for (const ScalarRecord& p : stats.points) {
    lastEpoch = std::max(lastEpoch, p.epoch);
    if (p.name == sweep_.metric.name && p.epoch > 0) byEpoch[p.epoch] = p.value;
    // Issue 35: a trial whose cost is no longer finite learns nothing more; it had run to its
    // full budget (its project need not have check_numerics).
    if (p.name == "cost" && !std::isfinite(p.value) && !diverged_.count(t.index)) {
      std::ostringstream why;
      why << "diverged: cost " << p.value << " at step " << p.step << " (epoch " << p.epoch << ")";
      diverged_[t.index] = why.str();
    }
  }
  std::vector<double> metric;
  for (const auto& [epoch, value] : byEpoch) metric.push_back(value);
  t.metric = std::move(metric);
  lastEpoch_[t.index] = lastEpoch;
}

bool SweepQueue::reachedMaxEpoch(const TrialRecord& t) const {
  const auto it = lastEpoch_.find(t.index);
  return it != lastEpoch_.end() && it->second >= maxEpochs_[static_cast<size_t>(t.index)];
}

void SweepQueue::readMetrics() {
  for (TrialRecord& t : state_.trials) {
    if (t.state == TrialState::Running && mine(t)) readMetric(t);
  }
}

std::vector<int64_t> SweepQueue::applyRequests() {
  SweepControl control;
  try {
    control = readSweepControl(options_.sweepDir);
    badControl_.clear();
  } catch (const std::exception& e) {
    if (badControl_ != e.what()) say(e.what());  // once, until it changes
    badControl_ = e.what();
    return {};
  }
  for (int64_t index : control.cancel) {
    if (index < 0 || index >= static_cast<int64_t>(state_.trials.size())) continue;
    TrialRecord& t = state_.trials[static_cast<size_t>(index)];
    if (!mine(t)) continue;
    if (t.state == TrialState::Pending) {
      t.state = TrialState::Cancelled;
      t.detail = "cancelled on request (" + std::string(SweepControl::kFileName) + ")";
      say("trial " + std::to_string(t.index) + " cancelled");
    } else if (t.state == TrialState::Running && !t.stopRequested) {
      t.stopRequested = true;
      t.prunedAt = 0;
      if (t.host == thisHost()) ::kill(static_cast<pid_t>(t.pid), SIGTERM);
      say("cancelling trial " + std::to_string(t.index));
    }
  }
  return control.runFirst;
}

void SweepQueue::stopDiverged() {
  for (TrialRecord& t : state_.trials) {
    const auto it = diverged_.find(t.index);
    if (it == diverged_.end() || t.state != TrialState::Running || t.stopRequested || !mine(t)) {
      continue;
    }
    t.stopRequested = true;
    t.prunedAt = 0;
    if (t.host == thisHost()) ::kill(static_cast<pid_t>(t.pid), SIGTERM);
    say("trial " + std::to_string(t.index) + " stopped: " + it->second);
  }
}

void SweepQueue::prune() {
  if (!sweep_.earlyTerminate) return;
  std::vector<TrialMetrics> metrics;
  for (const TrialRecord& t : state_.trials) {
    if (t.metric.empty()) continue;
    // A trial that has written its last epoch is done, not pruned (it may still be saving).
    const bool complete = reachedMaxEpoch(t);
    metrics.push_back(
        {t.index, t.metric, t.state == TrialState::Running && !t.stopRequested && !complete});
  }
  const HyperbandDecision d =
      hyperbandStops(metrics, *sweep_.earlyTerminate, sweep_.metric.maximize);
  for (size_t i = 0; i < d.stop.size(); ++i) {
    TrialRecord& t = state_.trials[static_cast<size_t>(d.stop[i])];
    if (!mine(t)) continue;  // another task's: it stops its own
    t.stopRequested = true;
    t.prunedAt = d.stoppedAt[i];
    if (t.host == thisHost()) {
      ::kill(static_cast<pid_t>(t.pid), SIGTERM);  // stops at the next step boundary and saves
    }
    const size_t band = static_cast<size_t>(std::find(d.bands.begin(), d.bands.end(), t.prunedAt) -
                                            d.bands.begin());
    std::ostringstream line;
    line << "trial " << t.index << " pruned at its " << ordinal(t.prunedAt) << " "
         << sweep_.metric.name << " (" << t.metric[static_cast<size_t>(t.prunedAt - 1)] << ")"
         << ", the band's threshold " << d.thresholds[band];
    say(line.str());
  }
}

}  // namespace tbench
