#include "app/cli/SweepCommand.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "engine/core/DeviceDiscovery.h"
#include "engine/sweep/SweepQueue.h"

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/Sweep.h"

namespace tbench::cli {

namespace {

std::atomic<SweepQueue*> running{nullptr};
std::atomic<bool> interrupted{false};

void onSignal(int) {
  interrupted = true;
  if (SweepQueue* q = running.load()) q->stop();
}

/// `running` points at the queue while it exists, whatever way run() leaves.
struct RunningQueue {
  explicit RunningQueue(SweepQueue& q) { running = &q; }
  ~RunningQueue() { running = nullptr; }
};

std::string selfPath() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string("towerbench-cli") : path.string();
}

/// Prints `rows` under `header`, columns aligned, the last one unpadded.
void printTable(std::ostream& out, const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    out << " ";
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      out << " " << std::left << std::setw(last ? 0 : static_cast<int>(width[c])) << cells[c];
    }
    out << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
}

std::string valueText(const nlohmann::json& v) {
  if (!v.is_number_float()) return v.dump();
  std::ostringstream text;
  text << std::setprecision(6) << v.get<double>();
  return text.str();
}

/// Runs the queue and prints the trials ranked by their last metric value.
int runQueue(const CliArgs& args, const SweepSpec& sweep, const Project& base, std::ostream& out) {
  SweepQueue::Options options;
  options.cli = selfPath();
  // The window's default too: sweeps/<file name> beside the sweep file.
  const std::filesystem::path file = std::filesystem::absolute(args.project);
  options.sweepDir = !args.sweepDir.empty()
                         ? args.sweepDir
                         : (file.parent_path() / "sweeps" / file.stem()).string();
  bool cuda = false;
  for (const std::string& d : base.devices()) cuda |= d.rfind("cuda", 0) == 0;
  int gpus = 0;
  for (const Device& d : availableDevices()) gpus += d.isCuda() ? 1 : 0;
  options.slotCount = args.sweepSlots > 0 ? args.sweepSlots : (cuda ? std::max(1, gpus) : 1);
  options.log = [&out](const std::string& line) { out << "sweep: " << line << std::endl; };
  options.retryFailed = args.retryFailed;
  SweepQueue queue(args.project, options);
  out << "sweep: " << options.sweepDir << ", " << options.slotCount << " slot(s)"
      << (cuda ? " (one GPU each)" : "") << std::endl;
  const RunningQueue guard(queue);
  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const SweepState state = queue.run();

  // Ranked by the metric's last value (the trial's result), trials without one last.
  std::vector<const TrialRecord*> order;
  for (const auto& t : state.trials) order.push_back(&t);
  const auto key = [&](const TrialRecord* t) {
    // Only trials that ran to their end or to their band compete for best.
    const bool ranked = t->state == TrialState::Finished || t->state == TrialState::Pruned;
    if (!ranked || t->metric.empty() || !std::isfinite(t->metric.back())) return HUGE_VAL;
    return sweep.metric.maximize ? -t->metric.back() : t->metric.back();
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto* a, const auto* b) { return key(a) < key(b); });
  std::vector<std::string> header = {"trial", "state", sweep.metric.name, "epochs"};
  for (const auto& p : sweep.parameters) header.push_back(p.path);
  std::vector<std::vector<std::string>> rows;
  for (const TrialRecord* t : order) {
    std::string state = toString(t->state);
    if (t->state == TrialState::Pruned) state += " at " + std::to_string(t->prunedAt);
    std::vector<std::string> row = {std::to_string(t->index), state,
                                    t->metric.empty() ? "-" : valueText(t->metric.back()),
                                    std::to_string(t->metric.size())};
    for (const auto& p : sweep.parameters) row.push_back(valueText(t->values[p.path]));
    rows.push_back(std::move(row));
  }
  printTable(out, header, rows);
  const TrialRecord* best =
      order.empty() || key(order.front()) == HUGE_VAL ? nullptr : order.front();
  if (best != nullptr) {
    out << "best: trial " << best->index << " (" << sweep.metric.name << " "
        << valueText(best->metric.back()) << "): " << best->runDir << "/project.json\n";
  }
  const bool anyFinished = std::any_of(state.trials.begin(), state.trials.end(), [](const auto& t) {
    return t.state == TrialState::Finished || t.state == TrialState::Pruned;
  });
  if (interrupted) return 130;  // cancelled (the CLI's status for a stop by a signal)
  return anyFinished ? 0 : 1;
}

}  // namespace

int runSweep(const CliArgs& args, std::ostream& out, std::ostream& err) {
  try {
    const SweepSpec sweep = loadSweepFile(args.project);
    const nlohmann::json base = readProjectJson(sweep.projectPath());
    const std::vector<SweepTrial> trials = sweepTrials(sweep, base);
    const Project first = projectFromJson(trials.front().project, sweep.projectPath());
    out << args.project << ": valid sweep" << (sweep.name.empty() ? "" : " \"" + sweep.name + "\"")
        << " of " << sweep.projectPath() << "\n  " << sweep.method << " search, " << trials.size()
        << " trial(s)";
    if (sweep.method == "grid" && gridSize(sweep) > static_cast<int64_t>(trials.size())) {
      out << " (run_cap " << sweep.runCap << " of the " << gridSize(sweep) << " combinations)";
    }
    out << ", metric " << sweep.metric.name << " ("
        << (sweep.metric.maximize ? "maximize" : "minimize") << "), " << first.maxEpoch
        << " epoch(s) each\n";
    if (sweep.earlyTerminate) {
      out << "  early termination: hyperband, min_iter " << sweep.earlyTerminate->minIter
          << ", eta " << sweep.earlyTerminate->eta << ": judged after epoch(s)";
      const std::vector<int64_t> bands = hyperbandBands(*sweep.earlyTerminate, first.maxEpoch);
      for (int64_t b : bands) out << " " << b;
      if (bands.empty()) out << " (none: max_epoch " << first.maxEpoch << " < min_iter)";
      out << "\n";
    }
    // The trials as a table: one column per parameter, in the sweep's order.
    std::vector<std::string> header = {"trial"};
    for (const auto& p : sweep.parameters) header.push_back(p.path);
    std::vector<std::vector<std::string>> rows;
    for (const SweepTrial& t : trials) {
      std::vector<std::string> row = {std::to_string(t.index)};
      for (const auto& p : sweep.parameters) row.push_back(valueText(t.values[p.path]));
      rows.push_back(std::move(row));
    }
    printTable(out, header, rows);
    if (args.dryRun) return 0;
    return runQueue(args, sweep, first, out);
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 2;
  }
}

}  // namespace tbench::cli
