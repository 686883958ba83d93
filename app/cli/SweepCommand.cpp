#include "app/cli/SweepCommand.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <thread>

#include "engine/core/Check.h"
#include "engine/core/ChildProcess.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/sweep/SweepQueue.h"
#include "engine/sweep/SweepSearch.h"

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/SlurmArray.h"
#include "engine/sweep/Sweep.h"

namespace tbench::cli {

namespace {

std::atomic<SweepQueue*> running{nullptr};
std::atomic<bool> interrupted{false};

void stopTheQueue(int) {
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

/// --sweep-dir, or the window's default too: sweeps/<file name> beside the sweep file.
std::string sweepDirOf(const CliArgs& args) {
  return !args.sweepDir.empty() ? args.sweepDir : defaultSweepDir(args.project);
}

void catchStopSignals() {
  struct sigaction action {};
  action.sa_handler = stopTheQueue;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // Issue 35: the queue outlives whoever reads its output (a window closed with "keep it
  // running", a terminal gone, `| head`): a write to a closed pipe fails quietly instead of
  // ending the queue with SIGPIPE (its trials would be left recorded running), and a hang-up
  // is not a stop (nohup's SIG_IGN stays). Its state is in sweep-state.json either way.
  signal(SIGPIPE, SIG_IGN);
  struct sigaction hangUp {};
  sigaction(SIGHUP, nullptr, &hangUp);
  if (hangUp.sa_handler != SIG_IGN) signal(SIGHUP, SIG_IGN);
}

bool isCudaProject(const Project& base) { return !projectGpus(base).empty(); }

/// Whether a SLURM job of the sweep in `sweepDir` (DIR/slurm-jobs) may still run trials: true
/// with the reason in `why` when squeue lists one, or cannot say (a controller that does not
/// answer). False when none is listed; `*known` false when the sweep never went to SLURM or
/// squeue is not installed here.
bool slurmJobAlive(const std::string& sweepDir, std::string& why, bool* known) {
  *known = false;
  std::ifstream jobs(std::filesystem::path(sweepDir) / "slurm-jobs");
  if (!jobs) return false;
  for (std::string job, indices; jobs >> job >> indices;) {
    const size_t semicolon = job.find(';');  // sbatch --parsable: "id" or "id;cluster"
    const std::string cluster = semicolon == std::string::npos ? "" : job.substr(semicolon + 1);
    job = job.substr(0, semicolon);
    std::vector<std::string> argv = {"squeue", "--noheader", "--format=%i", "--jobs", job};
    if (!cluster.empty()) argv.push_back("--clusters=" + cluster);
    std::string listed;
    const int status = runCapturing(argv, &listed);
    if (status == 127) return false;  // no squeue here: cannot tell
    *known = true;
    if (status != 0) {
      // squeue refuses a job id the controller has forgotten (long finished): not alive, if
      // the controller answers at all.
      std::string any;
      if (runCapturing({"squeue", "--noheader", "--format=%i"}, &any) != 0) {
        why = "squeue cannot reach the SLURM controller to tell whether job " + job +
              " of this sweep still runs";
        return true;
      }
      continue;
    }
    if (listed.find_first_not_of(" \n") != std::string::npos) {
      why = "its job " + job + " is still queued or running (squeue): wait for it, or scancel " +
            job + " first";
      return true;
    }
  }
  return false;
}

/// --slurm: the sweep's state and DIR/slurm-array.sh (Note [Sweeps on SLURM]); --submit runs
/// sbatch on it.
int writeSlurmArray(const CliArgs& args, const SweepSpec& sweep, const Project& base,
                    std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  SweepQueue::Options options;
  options.cli = selfPath();
  options.sweepDir = fs::absolute(sweepDirOf(args)).lexically_normal().string();
  options.retryFailed = args.retryFailed;
  options.baseProject = args.baseProject;
  options.log = [&out](const std::string& line) { out << "sweep: " << line << std::endl; };
  if (sweep.sequential()) {
    err << args.project << ": a " << sweep.method
        << (sweep.method == "random" ? " search without run_cap" : " sweep")
        << " makes its trials as it runs, so a SLURM array cannot list them: give run_cap with "
           "method grid or random, or run it here\n";
    return 2;
  }
  // A job of this sweep still queued or running would run its trials twice.
  std::string why;
  bool known = false;
  if (slurmJobAlive(options.sweepDir, why, &known)) {
    err << options.sweepDir << ": " << why << "\n";
    return 1;
  }
  // None alive: a trial still recorded running was killed without recording its end.
  options.noLiveTasks = known;
  // Writes (or reads back) sweep-state.json with every trial's run directory; runs nothing.
  const SweepQueue queue(args.project, options);
  if (!queue.saved()) {
    err << "cannot write " << options.sweepDir << "/" << SweepState::kFileName << "\n";
    return 2;
  }
  SlurmArrayOptions slurm;
  slurm.cli = options.cli;
  slurm.sweepFile = fs::absolute(args.project).lexically_normal().string();
  if (!args.baseProject.empty()) {
    slurm.baseProject = fs::absolute(args.baseProject).lexically_normal().string();
  }
  slurm.sweepDir = options.sweepDir;
  slurm.workDir = fs::current_path().string();  // the base project's relative run_root
  for (const TrialRecord& t : queue.state().trials) {
    if (t.state == TrialState::Pending) slurm.trials.push_back(t.index);
  }
  if (slurm.trials.empty()) {
    out << "sweep: no trial is pending in " << options.sweepDir
        << " (--retry-failed resumes failed ones): nothing to submit\n";
    return 0;
  }
  slurm.maxAtOnce = args.sweepSlots;
  const bool cuda = isCudaProject(base);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  slurm.cpusPerTask =
      args.cpusPerTrial > 0 ? args.cpusPerTrial : std::max(1, cores / std::max(1, args.sweepSlots));
  slurm.gpusPerTask =
      args.gpusPerTrial >= 0 ? args.gpusPerTrial : static_cast<int>(projectGpus(base).size());
  slurm.jobName =
      "tb-" + (sweep.name.empty() ? fs::path(args.project).stem().string() : sweep.name);
  slurm.sbatchArgs = args.sbatchArgs;
  const std::string script = (fs::path(options.sweepDir) / "slurm-array.sh").string();
  std::ofstream file(script);
  file << slurmArrayScript(slurm);
  file.close();
  if (!file) {
    err << "cannot write " << script << "\n";
    return 2;
  }
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  out << "sweep: wrote " << script << ": " << slurm.trials.size() << " array task(s) ("
      << slurmArrayIndices(slurm.trials)
      << (slurm.maxAtOnce > 0 ? "%" + std::to_string(slurm.maxAtOnce) : "") << "), "
      << slurm.cpusPerTask << " CPU(s)"
      << (slurm.gpusPerTask > 0 ? " and " + std::to_string(slurm.gpusPerTask) + " GPU(s)" : "")
      << " each\n";
  if (!args.submit) {
    out << "submit it with: sbatch " << script << "\n";
    return 0;
  }
  std::string output;
  const int status = runCapturing({"sbatch", "--parsable", script}, &output);
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  if (status != 0) {
    err << (status == 127
                ? "cannot run sbatch (is this a SLURM submit host?)"
                : "sbatch refused " + script + " (exit status " + std::to_string(status) + ")")
        << (output.empty() ? "" : ": " + output) << "\n";
    return 1;
  }
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string job =
      output.substr(output.rfind('\n') == std::string::npos ? 0 : output.rfind('\n') + 1);
  std::ofstream jobs(fs::path(options.sweepDir) / "slurm-jobs", std::ios::app);
  jobs << job << " " << slurmArrayIndices(slurm.trials) << "\n";
  jobs.close();
  if (!jobs) {
    err << "job " << job << " submitted, but " << options.sweepDir
        << "/slurm-jobs could not record it: a second submission would not see it\n";
  }
  out << "sweep: submitted job " << job << "; follow it with squeue -j "
      << job.substr(0, job.find(';')) << " or in the window (File > Open Sweep... "
      << options.sweepDir << ")\n";
  return 0;
}

/// --trial K: one trial of a shared sweep (a SLURM array task). 0 when it finished or was
/// pruned, 130 when cancelled, 1 when it failed.
int runOneTrial(const CliArgs& args, std::ostream& out) {
  SweepQueue::Options options;
  options.cli = selfPath();
  options.sweepDir = sweepDirOf(args);
  options.onlyTrial = args.trial;
  options.slotCount = 1;
  options.baseProject = args.baseProject;
  options.log = [&out](const std::string& line) { out << "sweep: " << line << std::endl; };
  SweepQueue queue(args.project, options);
  const RunningQueue guard(queue);
  catchStopSignals();
  const SweepState state = queue.run();
  const TrialRecord& t = state.trials[static_cast<size_t>(args.trial)];
  out << "sweep: trial " << t.index << " " << toString(t.state)
      << (t.metric.empty() ? "" : ", " + state.metric + " " + valueText(t.metric.back())) << "\n";
  if (t.state == TrialState::Cancelled || interrupted) return 130;
  return t.state == TrialState::Finished || t.state == TrialState::Pruned ? 0 : 1;
}

/// The trials ranked by their result (bestTrial), the best one, and what the sweep taught
/// (parameter importance and correlation, Note [Sweep search]).
void printResults(const SweepSpec& sweep, const SweepState& state, std::ostream& out) {
  std::vector<const TrialRecord*> order;
  for (const auto& t : state.trials) order.push_back(&t);
  const std::vector<int64_t> ranked = rankTrials(state, sweep.metric.maximize);
  std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) {
    const auto at = [&](const TrialRecord* t) {
      return std::find(ranked.begin(), ranked.end(), t->index) - ranked.begin();
    };
    return at(a) < at(b);
  });
  // "values": the metric's logged values (Note [A sweep's metric by occurrence]).
  const bool hasMetric = !sweep.metric.name.empty();  // else its columns are left out
  std::vector<std::string> header = {"trial", "state"};
  if (hasMetric) header.insert(header.end(), {sweep.metric.name, "values"});
  for (const auto& p : sweep.parameters) header.push_back(p.path);
  std::vector<std::vector<std::string>> rows;
  for (const TrialRecord* t : order) {
    std::string state = toString(t->state);
    if (t->state == TrialState::Pruned) state += " at " + std::to_string(t->prunedAt);
    std::vector<std::string> row = {std::to_string(t->index), state};
    if (hasMetric) {
      row.insert(row.end(), {t->metric.empty() ? "-" : valueText(t->metric.back()),
                             std::to_string(t->metric.size())});
    }
    for (const auto& p : sweep.parameters) {
      row.push_back(t->values.contains(p.path) ? valueText(t->values[p.path]) : "-");
    }
    rows.push_back(std::move(row));
  }
  printTable(out, header, rows);
  if (const std::optional<int64_t> best = bestTrial(state, sweep.metric.maximize)) {
    const TrialRecord& t = state.trials[static_cast<size_t>(*best)];
    out << "best: trial " << t.index << " (" << sweep.metric.name << " "
        << valueText(t.metric.back()) << (t.state == TrialState::Pruned ? ", pruned" : "")
        << "): " << t.runDir << "/project.json\n";
  }
  if (sweep.metric.name.empty()) {
    out << "no metric: the trials are not ranked (compare their curves in the window's Run "
           "History, or give metric.name)\n";
    return;
  }
  std::vector<TrialOutcome> outcomes;
  for (const auto& t : state.trials) {
    const bool done = t.state == TrialState::Finished || t.state == TrialState::Pruned;
    if (done) outcomes.push_back({t.values, t.metric, TrialOutcome::Kind::Done});
  }
  const std::vector<ParameterImportance> importance = sweepImportance(sweep, outcomes);
  if (importance.empty()) {
    out << "importance: needs 3 or more trials with a result\n";
    return;
  }
  out << "importance (random forest of " << sweep.metric.name << " over the parameters, "
      << outcomes.size() << " trials) and correlation with " << sweep.metric.name << ":\n";
  std::vector<std::vector<std::string>> imp;
  for (const auto& p : importance) {
    std::ostringstream i, c;
    i << std::fixed << std::setprecision(3) << p.importance;
    c << std::showpos << std::fixed << std::setprecision(3) << p.correlation;
    imp.push_back({p.path, i.str(), c.str()});
  }
  printTable(out, {"parameter", "importance", "correlation"}, imp);
}

/// --report: the sweep in DIR as it stands (finished or running), from its sweep-state.json.
int reportSweep(const CliArgs& args, const SweepSpec& sweep, std::ostream& out, std::ostream& err) {
  const std::string dir = sweepDirOf(args);
  const std::optional<SweepState> state = readSweepState(dir);
  if (!state) {
    err << dir << ": no sweep-state.json (the sweep has not run there; --sweep-dir DIR)\n";
    return 1;
  }
  out << "sweep: " << dir << ", " << state->trials.size() << " trial(s)\n";
  // Ranked by the metric and goal the sweep ran (and pruned) with, as the window ranks it; a
  // file edited since is said.
  SweepSpec ran = sweep;
  ran.metric.name = state->metric;
  ran.metric.maximize = state->maximize;
  if (ran.metric.name != sweep.metric.name || ran.metric.maximize != sweep.metric.maximize) {
    out << "note: " << args.project << " now says metric " << sweep.metric.name << " ("
        << goalName(sweep.metric.maximize) << "); the sweep ran with " << ran.metric.name << " ("
        << goalName(ran.metric.maximize) << "), which ranks it here\n";
  }
  printResults(ran, *state, out);
  return 0;
}

/// Runs the queue and prints the trials ranked by their last metric value.
int runQueue(const CliArgs& args, const SweepSpec& sweep, const Project& base, std::ostream& out) {
  SweepQueue::Options options;
  options.cli = selfPath();
  options.sweepDir = sweepDirOf(args);
  const bool cuda = isCudaProject(base);
  int gpus = 0;
  for (const Device& d : availableDevices()) gpus += d.isCuda() ? 1 : 0;
  const int cudaTowers = static_cast<int>(projectGpus(base).size());
  // Default: every GPU busy, each trial on as many as the project uses.
  options.slotCount = args.sweepSlots > 0 ? args.sweepSlots
                      : cuda              ? std::max(1, gpus / std::max(1, cudaTowers))
                                          : 1;
  options.visibleGpus = gpus;
  options.log = [&out](const std::string& line) { out << "sweep: " << line << std::endl; };
  options.retryFailed = args.retryFailed;
  options.baseProject = args.baseProject;
  // A sweep whose SLURM job still runs is that job's: a local queue would start the trials
  // its %N holds back, here.
  std::string why;
  bool known = false;
  if (slurmJobAlive(options.sweepDir, why, &known)) {
    throw InputError(options.sweepDir + ": " + why);
  }
  options.noLiveTasks = known;
  SweepQueue queue(args.project, options);
  out << "sweep: " << options.sweepDir << ", " << options.slotCount << " slot(s)"
      << (cuda ? " (" + std::to_string(cudaTowers) + " GPU(s) each)" : "") << std::endl;
  const RunningQueue guard(queue);
  catchStopSignals();
  const SweepState state = queue.run();
  printResults(sweep, state, out);
  const bool anyFinished = std::any_of(state.trials.begin(), state.trials.end(), [](const auto& t) {
    return t.state == TrialState::Finished || t.state == TrialState::Pruned;
  });
  if (interrupted) return 130;  // cancelled (the CLI's status for a stop by a signal)
  return anyFinished ? 0 : 1;
}

}  // namespace

int runSweep(const CliArgs& args, std::ostream& out, std::ostream& err) {
  try {
    if (args.trial >= 0) return runOneTrial(args, out);
    const SweepSpec sweep = loadSweepFile(args.project, args.baseProject);
    if (args.report) return reportSweep(args, sweep, out, err);
    const nlohmann::json base = readProjectJson(sweep.projectPath());
    const SweepPlan plan = planSweep(sweep, base);
    const Project first = projectFromJson(plan.trials.front().project, sweep.projectPath());
    out << args.project << ": valid sweep" << (sweep.name.empty() ? "" : " \"" + sweep.name + "\"")
        << " of " << sweep.projectPath() << "\n  " << sweep.method << " search, "
        << (plan.totalTrials < 0 ? std::string("trials until stopped")
                                 : std::to_string(plan.totalTrials) + " trial(s)");
    if (sweep.method == "grid" && plan.gridCombinations > plan.totalTrials) {
      out << " (run_cap " << sweep.runCap << " of the " << plan.gridCombinations
          << " combinations)";
    }
    if (sweep.metric.name.empty()) {
      out << ", no metric, ";
    } else {
      out << ", metric " << sweep.metric.name << " (" << goalName(sweep.metric.maximize);
      if (sweep.metric.target) out << ", target " << *sweep.metric.target;
      out << "), ";
    }
    const auto [fewest, most] = std::minmax_element(plan.maxEpochs.begin(), plan.maxEpochs.end());
    if (*fewest == *most) {
      out << *most << " epoch(s) each\n";
    } else {
      out << *fewest << " to " << *most << " epochs (max_epoch is swept)\n";
    }
    for (const std::string& note : plan.notes) out << "  note: " << note << "\n";
    if (sweep.earlyTerminate) {
      // Bands count the metric's values (Note [A sweep's metric by occurrence]); at most one a
      // epoch, so the longest trial's max_epoch bounds them.
      const HyperbandSpec& h = *sweep.earlyTerminate;
      out << "  early termination: hyperband, "
          << (h.maxIter > 0 ? "max_iter " + std::to_string(h.maxIter) + ", s " + std::to_string(h.s)
                            : "min_iter " + std::to_string(h.minIter))
          << ", eta " << h.eta << ", strict " << (h.strict ? "true" : "false")
          << ": judged at value(s) number";
      for (int64_t b : plan.bands) out << " " << b;
      if (plan.bands.empty()) {
        out << " (none within " << plan.longestEpochs << " epoch(s))";
      }
      out << " of " << sweep.metric.name << "\n";
    }
    // The trials as a table: one column per parameter, in the sweep's order (and their epochs
    // when max_epoch is swept).
    std::vector<std::string> header = {"trial"};
    for (const auto& p : sweep.parameters) header.push_back(p.path);
    if (*fewest != *most) header.push_back("epochs");
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < plan.trials.size(); ++i) {
      const SweepTrial& t = plan.trials[i];
      std::vector<std::string> row = {std::to_string(t.index)};
      for (const auto& p : sweep.parameters) row.push_back(valueText(t.values[p.path]));
      if (*fewest != *most) row.push_back(std::to_string(plan.maxEpochs[i]));
      rows.push_back(std::move(row));
    }
    printTable(out, header, rows);
    if (plan.totalTrials != static_cast<int64_t>(plan.trials.size())) {
      out << "  ... "
          << (sweep.method == "random" ? "drawn the same way"
                                       : "then made by " + sweep.method + " from the results")
          << "\n";
    }
    if (args.dryRun) return 0;
    if (args.slurm) return writeSlurmArray(args, sweep, first, out, err);
    return runQueue(args, sweep, first, out);
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 2;
  }
}

}  // namespace tbench::cli
