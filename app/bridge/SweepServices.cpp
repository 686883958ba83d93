// The sweep services: the engine's sweep state, sweep files and queue requests in Qt types.
#include "app/bridge/SweepServices.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <filesystem>

#include "app/bridge/ToQt.h"
#include "engine/core/AtomicFile.h"
#include "engine/project/ProjectFiles.h"
#include "engine/run/RunStatus.h"
#include "engine/sweep/Sweep.h"
#include "engine/sweep/SweepQueue.h"
#include "engine/sweep/SweepSearch.h"

namespace tbench::bridge {
namespace {

TrialPhase trialPhaseOf(tbench::TrialState state) {
  switch (state) {
    case tbench::TrialState::Pending:
      return TrialPhase::Pending;
    case tbench::TrialState::Running:
      return TrialPhase::Running;
    case tbench::TrialState::Finished:
      return TrialPhase::Finished;
    case tbench::TrialState::Failed:
      return TrialPhase::Failed;
    case tbench::TrialState::Pruned:
      return TrialPhase::Pruned;
    case tbench::TrialState::Cancelled:
      break;
  }
  return TrialPhase::Cancelled;
}

/// `request(sweepDir, trial)` of the engine (a control.json write); false with `*error`.
bool askQueue(void (*request)(const std::string&, int64_t), const QString& sweepDir, qint64 trial,
              QString* error) {
  try {
    request(sweepDir.toStdString(), trial);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = q(e.what());
    return false;
  }
}

}  // namespace

SweepStateView readSweepStateView(const QString& sweepDir) {
  return readView<SweepStateView>([&](SweepStateView& view) {
    const std::optional<SweepState> state = readSweepState(sweepDir.toStdString());
    if (!state) return;
    view.present = true;
    view.sweepFile = q(state->sweepFile);
    view.sweepId = q(state->sweepId);
    view.metric = q(state->metric);
    view.maximize = state->maximize;
    view.paused =
        QFileInfo::exists(QDir(sweepDir).filePath(QString::fromLatin1(SweepState::kPauseFileName)));
    for (const auto& p : state->parameters) view.parameters << q(p);
    for (const TrialRecord& t : state->trials) {
      SweepTrialView trial;
      trial.index = t.index;
      trial.state = trialPhaseOf(t.state);
      trial.values = toQt(t.values).toObject();
      trial.runDir = q(t.runDir);
      for (double v : t.metric) trial.metric << v;
      trial.prunedAt = t.prunedAt;
      trial.detail = q(t.detail);
      trial.started = t.started;
      trial.processGone = t.state == TrialState::Running && t.host == thisHost() && t.pid > 0 &&
                          !processRunning(t.pid);
      view.trials << trial;
    }
    if (state->queuePid > 0 && state->queueHost == thisHost() && processRunning(state->queuePid)) {
      view.queuePid = state->queuePid;
    }
    view.bestTrial = bestTrial(*state, state->maximize).value_or(-1);
    try {
      // The parameters' distributions (their coordinates) come from the sweep file.
      const SweepSpec sweep = loadSweepFile(state->sweepFile, state->baseProject);
      std::vector<TrialOutcome> outcomes;
      for (const TrialRecord& t : state->trials) {
        if (t.state == TrialState::Finished || t.state == TrialState::Pruned) {
          outcomes.push_back({t.values, t.metric, TrialOutcome::Kind::Done});
        }
      }
      for (const ParameterImportance& p : sweepImportance(sweep, outcomes)) {
        view.importance << ParameterImportanceView{q(p.path), p.importance, p.correlation};
      }
    } catch (const std::exception&) {
      // The sweep file moved or changed: the trials are still shown, without importance.
    }
  });
}

QString defaultSweepDir(const QString& sweepFile) {
  return q(tbench::defaultSweepDir(sweepFile.toStdString()));
}

bool setSweepPaused(const QString& sweepDir, bool paused, QString* error) {
  const std::string path =
      (std::filesystem::path(sweepDir.toStdString()) / SweepState::kPauseFileName).string();
  try {
    if (paused) {
      std::filesystem::create_directories(sweepDir.toStdString());
      writeFileAtomically(path, "paused from the window: no trial starts while this file exists\n");
    } else {
      std::filesystem::remove(path);
    }
    return true;
  } catch (const std::exception& e) {
    if (error) *error = q(e.what());
    return false;
  }
}

SweepCheckView checkSweep(const QByteArray& sweepJson, const QString& sweepPath) {
  SweepCheckView view;
  try {
    SweepSpec sweep =
        sweepFromJson(nlohmann::json::parse(sweepJson.toStdString()), sweepPath.toStdString());
    sweep.baseDir = QFileInfo(sweepPath).absolutePath().toStdString();  // not written yet
    const SweepPlan plan = planSweep(sweep, readProjectJson(sweep.projectPath()));
    view.trials = plan.totalTrials;
    view.maxEpoch = plan.longestEpochs;
    for (int64_t epochs : plan.maxEpochs) view.trialEpochs << epochs;
    for (double work : plan.epochWork) view.trialWork << work;
    for (int64_t b : plan.bands) view.bands << b;
    for (const std::string& note : plan.notes) view.notes << q(note);
  } catch (const SweepError& e) {
    for (const ProjectIssue& issue : e.issues())
      view.problems << q(issue.path + ": " + issue.message);
  } catch (const std::exception& e) {
    view.problems << q(e.what());
  }
  return view;
}

bool runSweepTrialNext(const QString& sweepDir, qint64 trial, QString* error) {
  return askQueue(requestTrialNext, sweepDir, trial, error);
}

bool cancelSweepTrial(const QString& sweepDir, qint64 trial, QString* error) {
  return askQueue(requestTrialCancel, sweepDir, trial, error);
}

}  // namespace tbench::bridge
