#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <algorithm>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/comm/NcclCommunicator.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/Environment.h"
#include "engine/predict/ModelExport.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/ProjectStructure.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/run/RunDirectory.h"
#include "engine/run/RunScalars.h"
#include "engine/run/RunStatus.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/Sweep.h"
#include "engine/sweep/SweepQueue.h"
#include "engine/sweep/SweepSearch.h"

namespace tbench::bridge {
namespace {

QString q(const std::string& text) { return QString::fromStdString(text); }

/// The engine's recorded state in the window's vocabulary: the one mapping between the two.
RunState runStateOf(tbench::RunState state) {
  switch (state) {
    case tbench::RunState::Running:
      return RunState::Running;
    case tbench::RunState::Finished:
      return RunState::Finished;
    case tbench::RunState::Stopped:
      return RunState::Stopped;
    case tbench::RunState::Failed:
      return RunState::Failed;
  }
  return RunState::Unknown;
}

/// Parses `text`, or returns the parse error as an issue at "$".
bool parse(const QString& text, nlohmann::json* doc, ProjectIssueViews* issues) {
  try {
    *doc = nlohmann::json::parse(text.toStdString());
    return true;
  } catch (const nlohmann::json::exception& e) {  // parse_error, or a number out of range
    if (issues) issues->append({QStringLiteral("$"), q(str("not valid JSON: ", e.what()))});
    return false;
  }
}

QJsonValue toQt(const nlohmann::json& value) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(nlohmann::json::array({value}).dump()))
      .array()
      .at(0);
}

QStringList toQt(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& item : items) out.append(q(item));
  return out;
}

KeyView toView(const KeyDescription& k) {
  KeyView v;
  v.name = q(k.name);
  v.type = q(toString(k.type));
  v.fallback = toQt(k.defaultValue);
  v.label = q(k.labelText.empty() ? k.name : k.labelText);
  v.help = q(k.fullHelp());
  v.minimum = k.minimum;
  v.minimumInclusive = k.minimumInclusive;
  v.maximum = k.maximum;
  v.maximumInclusive = k.maximumInclusive;
  v.required = k.requiredKey;
  v.notEmpty = k.nonEmpty;
  v.choices = toQt(k.choiceList);
  v.zeroText = q(k.zeroText);
  v.fileFilter = q(k.fileFilter);
  v.createdIfMissing = k.madeWhenMissing;
  v.placeholder = q(k.placeholderText);
  v.suggestions = toQt(k.suggestionList);
  return v;
}

QList<KeyView> toViews(const std::vector<KeyDescription>& keys) {
  QList<KeyView> views;
  for (const auto& k : keys) views.append(toView(k));
  return views;
}

}  // namespace

ComponentCatalog componentCatalog() {
  const ComponentRegistry& registry = ComponentRegistry::global();
  ComponentCatalog catalog;
  for (const std::string& kindName : registry.kindNames()) {
    const ComponentKind& k = registry.kind(kindName);
    ComponentKindView kind;
    kind.name = q(k.name);
    kind.noun = q(k.noun);
    kind.typeKey = q(k.typeKey);
    kind.defaultType = q(k.defaultType);
    kind.leadingKeys = toViews(k.leadingKeys);
    kind.trailingKeys = toViews(k.trailingKeys);
    for (const ComponentType* t : registry.types(kindName)) {
      QJsonObject traits;
      for (const auto& [name, value] : t->traits) traits.insert(q(name), q(value));
      kind.types.append({q(t->name), q(t->summary), toViews(t->keys), toQt(t->starter).toObject(),
                         t->onByDefault, q(t->origin), traits});
    }
    catalog.kinds.append(kind);
  }
  for (const ComponentSlot& slot : componentSlots()) {
    catalog.slotList.append({q(slot.path), q(slot.kind), toQt(slot.defaultOverrides).toObject()});
  }
  for (const ObjectDescription& object : projectObjects()) {
    catalog.objects.append({q(object.path), q(object.title), toViews(object.keys)});
  }
  catalog.defaultCallbacks = toQt(defaultCallbacksJson()).toArray();
  catalog.knownScalars = toQt(knownScalars());
  return catalog;
}

ProjectServices makeProjectServices() {
  ProjectServices services;
  services.analyze = [](const QString& text) {
    const ProjectAnalysis a = analyzeProjectText(text.toStdString());
    ProjectSummaryView view;
    for (const ProjectIssue& issue : a.issues)
      view.issues.append({q(issue.path), q(issue.message)});
    view.name = q(a.name);
    view.runRoot = q(a.runRoot);
    view.strategy = q(a.strategy);
    view.batchSize = a.batchSize;
    view.towers = a.towers;
    view.batchesPerStep = a.batchesPerStep;
    view.processes = a.processes;
    view.manyProcesses = a.manyProcesses;
    view.samplesPerStep = a.samplesPerStep;
    view.stepsPerEpoch = a.stepsPerEpoch;
    view.maxEpoch = a.maxEpoch;
    view.startingLearningRate = a.startingLearningRate;
    for (const auto& [step, value] : a.learningRateCurve) {
      view.learningRateCurve << QPointF(static_cast<double>(step), value);
    }
    return view;
  };
  services.canonicalize = [](const QString& text, QString* error) -> QString {
    ProjectIssueViews issues;
    nlohmann::json doc;
    if (!parse(text, &doc, &issues)) {
      if (error) *error = issues.front().message;
      return {};
    }
    try {
      return q(projectToJson(projectFromJson(doc, "project")).dump(2) + "\n");
    } catch (const std::exception& e) {
      if (error) *error = q(e.what());
      return {};
    }
  };
  services.catalog = componentCatalog();
  return services;
}

RunStatsView readRunStatsView(const QString& path) {
  const StatsFileContents stats = readStatsFile(path.toStdString());
  RunStatsView view;
  view.exists = stats.exists;
  view.error = q(stats.error);
  view.entries = static_cast<int>(stats.entries);
  view.points.reserve(static_cast<qsizetype>(stats.points.size()));
  for (const ScalarRecord& p : stats.points) {
    view.points.push_back({q(p.name), p.epoch, p.step, p.value});
  }
  for (const auto& [name, value] : stats.lastValues) view.lastValues.insert(q(name), value);
  view.lastEpoch = stats.lastEpoch;
  view.lastGlobalStep = stats.lastGlobalStep;
  return view;
}

std::optional<MetricSample> parseScalarLine(const QByteArray& line) {
  const std::optional<ScalarRecord> r = tbench::parseScalarLine(line.toStdString());
  if (!r) return std::nullopt;
  return MetricSample{q(r->name), r->step, r->epoch, r->time, r->value};
}

QString defaultSweepDir(const QString& sweepFile) {
  return q(tbench::defaultSweepDir(sweepFile.toStdString()));
}

static TrialPhase trialPhaseOf(tbench::TrialState state) {
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

SweepStateView readSweepStateView(const QString& sweepDir) {
  SweepStateView view;
  try {
    const std::optional<SweepState> state = readSweepState(sweepDir.toStdString());
    if (!state) return view;
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
  } catch (const std::exception& e) {
    view.present = true;
    view.error = q(e.what());
  }
  return view;
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

namespace {

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

bool runSweepTrialNext(const QString& sweepDir, qint64 trial, QString* error) {
  return askQueue(requestTrialNext, sweepDir, trial, error);
}

bool cancelSweepTrial(const QString& sweepDir, qint64 trial, QString* error) {
  return askQueue(requestTrialCancel, sweepDir, trial, error);
}

RunDirectoryReaders runDirectoryReaders() {
  return {readCheckpointIndex, readRunStatusView, readRunStatsView, parseScalarLine};
}

QString newRunDirectoryPath(const QString& runRoot, const QString& projectName) {
  return q(tbench::newRunDirectoryPath(runRoot.toStdString(), projectName.toStdString()));
}

RunStatusView readRunStatusView(const QString& runDir) {
  RunStatusView view;
  if (const auto t = runIdTime(QFileInfo(runDir).fileName().toStdString())) {
    view.idTime = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(*t));
  }
  try {
    const std::optional<RunStatusRecord> record = readRunStatus(runDir.toStdString());
    if (!record) return view;
    view.present = true;
    view.state = runStateOf(record->state);
    view.origin = q(record->origin);
    view.project = q(record->project);
    view.host = q(record->host);
    view.errorMessage = q(record->error);
    view.pid = record->pid;
    view.epoch = record->epoch;
    view.globalStep = record->globalStep;
    view.maxEpoch = record->maxEpoch;
    view.stepsPerEpoch = record->stepsPerEpoch;
    const auto time = [](const std::string& text) {
      return text.empty() ? QDateTime() : QDateTime::fromString(q(text), Qt::ISODate);
    };
    view.started = time(record->started);
    view.updated = time(record->updated);
    view.ended = time(record->ended);
    for (const auto& [name, value] : record->lastScalars) view.lastScalars.insert(q(name), value);
    view.writerAlive = record->state != tbench::RunState::Running || record->processAlive();
  } catch (const std::exception& e) {
    view.present = true;
    view.error = q(e.what());
  }
  return view;
}

CheckpointIndexView readCheckpointIndex(const QString& runDir) {
  CheckpointIndexView view;
  try {
    const std::optional<CheckpointIndex> index = CheckpointIndex::read(runDir.toStdString());
    if (!index) return view;
    view.present = true;
    view.latest = q(index->latest);
    view.all = toQt(index->all);
    view.kept = toQt(index->kept);
    view.manual = toQt(index->manual);
    for (const auto& [stat, best] : index->best) {
      view.best.append({q(stat), q(best.file), best.value, best.globalStep});
    }
  } catch (const std::exception& e) {
    view.present = true;
    view.error = q(e.what());
  }
  return view;
}

CheckpointExporter makeCheckpointExporter() {
  return [](const QString& checkpoint, const QString& format, const QString& out,
            bool weightAverage, QString* message) {
    try {
      exportCheckpoint(checkpoint.toStdString(), format.toStdString(), out.toStdString(),
                       weightAverage);
      if (message) {
        *message = QStringLiteral("wrote %1 (%2%3) from %4")
                       .arg(out, format,
                            weightAverage ? QStringLiteral(", the weight average") : QString(),
                            checkpoint);
      }
      return true;
    } catch (const std::exception& e) {
      if (message) *message = q(e.what());
      return false;
    }
  };
}

DeviceEntries discoverDevices(QString* note) {
  DeviceEntries entries;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Device> devices = availableDevices();
  const std::vector<std::string> details = describeCudaDevices(devices);
  for (size_t i = 0; i < devices.size(); ++i) {
    const Device& device = devices[i];
    DeviceEntry entry;
    entry.id = q(device.toString());
    if (!device.isCuda()) {
      entry.name = QStringLiteral("CPU (%1 cores)").arg(cores);
      entry.detail = QStringLiteral(
                         "%1 intra-op threads by default; \"cpu\" may be listed once "
                         "per tower")
                         .arg(cores);
    } else {
      entry.name = QStringLiteral("CUDA device %1").arg(device.index);
      entry.detail = q(details[i]);
    }
    entries.append(entry);
  }
  if (note) {
    note->clear();
    if (entries.size() == 1) {
      *note = torch::cuda::is_available()
                  ? QStringLiteral("No CUDA device found.")
                  : QStringLiteral(
                        "No CUDA device: this LibTorch was built without CUDA, or no "
                        "GPU is present. Towers run on the CPU. (%1; %2)")
                        .arg(q(ncclVersionText()), q(nvmlStatusText()));
    }
  }
  return entries;
}

QString engineVersionText() {
  return QStringLiteral("LibTorch %1 (%2)")
      .arg(QStringLiteral(TORCH_VERSION),
           torch::cuda::is_available() ? QStringLiteral("CUDA") : QStringLiteral("CPU"));
}

void prepareEngineProcess(char** argv) { prepareProcess(argv); }

}  // namespace tbench::bridge
