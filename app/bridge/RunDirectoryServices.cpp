// The run directory's services: the engine's readers of its files, its new directory, the
// checkpoint exporter, in Qt types.
#include "app/bridge/RunDirectoryServices.h"

#include <QFileInfo>

#include "app/bridge/ToQt.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/predict/ModelExport.h"
#include "engine/run/RunDirectory.h"
#include "engine/run/RunScalars.h"
#include "engine/run/RunStatus.h"

namespace tbench::bridge {
namespace {

/// The engine's recorded state in the window's vocabulary: the one mapping between the two.
RunState runStateOf(tbench::RecordedState state) {
  switch (state) {
    case tbench::RecordedState::Running:
      return RunState::Running;
    case tbench::RecordedState::Finished:
      return RunState::Finished;
    case tbench::RecordedState::Stopped:
      return RunState::Stopped;
    case tbench::RecordedState::Failed:
      return RunState::Failed;
  }
  return RunState::Unknown;
}

}  // namespace

CheckpointIndexView readCheckpointIndex(const QString& runDir) {
  return readView<CheckpointIndexView>([&](CheckpointIndexView& view) {
    const std::optional<CheckpointIndex> index = CheckpointIndex::read(runDir.toStdString());
    if (!index) return;
    view.present = true;
    view.latest = q(index->latest);
    view.all = toQt(index->all);
    view.kept = toQt(index->kept);
    view.manual = toQt(index->manual);
    for (const auto& [stat, best] : index->best) {
      view.best.append({q(stat), q(best.file), best.value, best.globalStep});
    }
  });
}

RunStatusView readRunStatusView(const QString& runDir) {
  RunStatusView view = readView<RunStatusView>([&](RunStatusView& view) {
    const std::optional<RunStatusRecord> record = readRunStatus(runDir.toStdString());
    if (!record) return;
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
    view.writerAlive = record->state != tbench::RecordedState::Running || record->processAlive();
  });
  if (const auto t = runIdTime(QFileInfo(runDir).fileName().toStdString())) {
    view.idTime = QDateTime::fromSecsSinceEpoch(static_cast<qint64>(*t));
  }
  return view;
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

RunDirectoryReaders runDirectoryReaders() {
  return {readCheckpointIndex, readRunStatusView, readRunStatsView, parseScalarLine};
}

QString newRunDirectoryPath(const QString& runRoot, const QString& projectName) {
  return q(tbench::newRunDirectoryPath(runRoot.toStdString(), projectName.toStdString()));
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

}  // namespace tbench::bridge
