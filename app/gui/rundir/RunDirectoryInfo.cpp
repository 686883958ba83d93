#include "app/gui/rundir/RunDirectoryInfo.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <algorithm>
#include <cmath>

#include "app/gui/rundir/RunAnnotations.h"
#include "app/gui/rundir/RunLog.h"
#include "app/gui/rundir/RunStats.h"

namespace tbench::gui {
namespace {

struct ProjectFacts {
  QJsonObject object;
  QString name;
  qint64 maxEpoch = -1;
  qint64 startingEpoch = 1;
  QString error;
};

ProjectFacts readProjectFile(const QString& path) {
  ProjectFacts facts;
  QFile file(path);
  if (!file.exists()) {
    facts.error = QStringLiteral("%1: missing").arg(QDir::toNativeSeparators(path));
    return facts;
  }
  // A frozen project is a few kilobytes; refuse to parse something that is not one.
  if (file.size() > 16 * 1024 * 1024 || !file.open(QIODevice::ReadOnly)) {
    facts.error = QStringLiteral("%1: cannot be read").arg(QDir::toNativeSeparators(path));
    return facts;
  }
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
    facts.error = QStringLiteral("%1: not a JSON object (%2)")
                      .arg(QDir::toNativeSeparators(path), parseError.errorString());
    return facts;
  }
  const QJsonObject project = doc.object();
  facts.object = project;
  facts.name = project.value("name").toString();
  if (project.value("max_epoch").isDouble())
    facts.maxEpoch = project.value("max_epoch").toInteger();
  if (project.value("starting_epoch").isDouble()) {
    facts.startingEpoch = project.value("starting_epoch").toInteger();
  }
  return facts;
}

bridge::RunStatusReader& runStatusReader() {
  static bridge::RunStatusReader reader;
  return reader;
}

/// Note [Run status]: the status run.json records.
void statusFromRunJson(RunDirectoryInfo& info, const bridge::RunStatusView& run) {
  if (run.maxEpoch > 0) info.maxEpoch = run.maxEpoch;
  if (run.epoch >= 0 && run.epoch > info.lastEpoch) info.lastEpoch = run.epoch;
  if (run.globalStep >= 0 && run.globalStep > info.lastGlobalStep) {
    info.lastGlobalStep = run.globalStep;
  }
  for (auto it = run.lastScalars.begin(); it != run.lastScalars.end(); ++it) {
    if (!info.lastScalars.contains(it.key())) info.lastScalars.insert(it.key(), it.value());
  }
  if (!run.origin.isEmpty()) info.command = run.origin;
  if (run.started.isValid()) info.startTime = run.started.toLocalTime();
  if (run.ended.isValid() && bridge::hasEnded(run.state)) {
    info.endTime = run.ended.toLocalTime();
  }
  if (run.state == RunState::Finished) {
    info.status = RunState::Finished;
    info.statusDetail = QStringLiteral("finished at epoch %1, global step %2")
                            .arg(QString::number(run.epoch), QString::number(run.globalStep));
  } else if (run.state == RunState::Stopped) {
    info.status = RunState::Stopped;
    info.statusDetail = QStringLiteral("stopped at epoch %1, global step %2")
                            .arg(QString::number(run.epoch), QString::number(run.globalStep));
  } else if (run.state == RunState::Failed) {
    info.status = RunState::Failed;
    info.statusDetail = run.errorMessage;
  } else if (run.writerAlive) {
    info.status = RunState::Running;
    info.statusDetail = QStringLiteral("epoch %1, global step %2 (process %3 on %4)")
                            .arg(QString::number(run.epoch), QString::number(run.globalStep),
                                 QString::number(run.pid), run.host);
  } else {
    info.status = RunState::Unknown;
    info.statusDetail = QStringLiteral(
                            "process %1 is gone without recording an end (killed or crashed) at "
                            "epoch %2, global step %3")
                            .arg(QString::number(run.pid), QString::number(run.epoch),
                                 QString::number(run.globalStep));
  }
}

QDateTime modifiedTime(const QString& path) {
  const QFileInfo info(path);
  return info.exists() ? info.lastModified() : QDateTime();
}

// Natural order: digit runs compare as numbers ("run-9" < "run-10").
int naturalCompare(const QString& a, const QString& b) {
  qsizetype i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      const qsizetype si = i, sj = j;
      while (i < a.size() && a[i].isDigit()) ++i;
      while (j < b.size() && b[j].isDigit()) ++j;
      const QString na = a.mid(si, i - si), nb = b.mid(sj, j - sj);
      const int byValue = na.toULongLong() < nb.toULongLong()   ? -1
                          : na.toULongLong() > nb.toULongLong() ? 1
                                                                : 0;
      if (byValue != 0) return byValue;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
    ++i;
    ++j;
  }
  return (a.size() - i) < (b.size() - j) ? -1 : ((a.size() - i) > (b.size() - j) ? 1 : 0);
}

void inferStatus(RunDirectoryInfo& info, const RunLogSummary& log, const ProjectFacts& project,
                 const QDateTime& now) {
  if (log.epochsPlanned >= 0) {
    const qint64 first = log.resumedAtEpoch > 0 ? log.resumedAtEpoch : project.startingEpoch;
    info.maxEpoch = first + log.epochsPlanned - 1;
  } else {
    info.maxEpoch = project.maxEpoch;
  }
  // Note [Run status], rules 1-5.
  if (log.failed) {
    info.status = RunState::Failed;
    info.statusDetail = log.endMessage;
    return;
  }
  if (log.stopped) {
    info.status = RunState::Stopped;
    info.statusDetail = log.endMessage;
    return;
  }
  if (info.maxEpoch > 0 && info.lastEpoch >= info.maxEpoch) {
    info.status = RunState::Finished;
    info.statusDetail = QStringLiteral("reached epoch %1 of %2")
                            .arg(QString::number(info.lastEpoch), QString::number(info.maxEpoch));
    return;
  }
  if (info.lastActivity.isValid() && info.lastActivity.secsTo(now) <= kRunningQuietSeconds) {
    info.status = RunState::Running;
    info.statusDetail =
        QStringLiteral("last change %1").arg(info.lastActivity.toString(Qt::ISODate));
    return;
  }
  info.status = RunState::Unknown;
  info.statusDetail =
      info.lastActivity.isValid()
          ? QStringLiteral("no end recorded; nothing changed since %1 (killed or crashed?)")
                .arg(info.lastActivity.toString(Qt::ISODate))
          : QStringLiteral("no log, stats or checkpoint");
}

}  // namespace

void setRunStatusReader(bridge::RunStatusReader reader) { runStatusReader() = std::move(reader); }

void installRunDirectoryReaders(const bridge::RunDirectoryReaders& readers) {
  setCheckpointIndexReader(readers.checkpointIndex);
  setRunStatusReader(readers.runStatus);
  setRunStatsReader(readers.stats);
  setScalarLineParser(readers.scalarLine);
}

bridge::RunStatusView readRunStatusFile(const QString& runDir) {
  if (runStatusReader()) return runStatusReader()(runDir);
  bridge::RunStatusView view;
  view.present = QFileInfo::exists(QDir(runDir).filePath(QLatin1String(kRunStatusFileName)));
  if (view.present) view.error = QStringLiteral("no run.json reader is installed");
  return view;
}

QStringList RunDirectoryInfo::problems() const {
  QStringList all;
  for (const QString* error : {&projectError, &statsError, &logError, &runStatusError,
                               &annotationsError, &checkpoints.error}) {
    if (!error->isEmpty()) all << *error;
  }
  return all;
}

qint64 RunDirectoryInfo::durationSeconds() const {
  const QDateTime end = endTime.isValid() ? endTime : lastActivity;
  if (!startTime.isValid() || !end.isValid() || end < startTime) return -1;
  return startTime.secsTo(end);
}

RunDirectoryInfo readRunDirectory(const QString& dir, const QDateTime& now) {
  const QDir runDir(dir);
  RunDirectoryInfo info;
  info.dir = runDir.absolutePath();
  info.runId = QFileInfo(info.dir).fileName();

  const ProjectFacts project = readProjectFile(runDir.filePath("project.json"));
  info.projectError = project.error;
  info.project = project.object;
  info.projectName =
      project.name.isEmpty() ? QFileInfo(QFileInfo(info.dir).path()).fileName() : project.name;

  const RunStats stats = readStatsFile(runDir.filePath(QLatin1String(kStatsFileName)));
  info.statsError = stats.error;
  info.lastScalars = stats.lastValues;
  for (const ScalarPoint& point : stats.points) {
    if (!std::isfinite(point.value)) continue;
    const auto low = info.minScalars.find(point.name);
    if (low == info.minScalars.end() || point.value < *low)
      info.minScalars[point.name] = point.value;
    const auto high = info.maxScalars.find(point.name);
    if (high == info.maxScalars.end() || point.value > *high) {
      info.maxScalars[point.name] = point.value;
    }
  }
  info.lastEpoch = stats.lastEpoch;
  info.lastGlobalStep = stats.lastGlobalStep;

  info.checkpoints = readRunCheckpoints(info.dir);
  if (info.lastGlobalStep < 0) info.lastGlobalStep = info.checkpoints.latest.globalStep;

  const QString logPath = runDir.filePath(QLatin1String(kLogFileName));
  const RunLogSummary log = readRunLog(logPath);
  info.logError = log.error;
  info.command = log.command;

  for (const QString& path : {logPath, runDir.filePath(QLatin1String(kRunStatusFileName)),
                              runDir.filePath(QLatin1String(kStatsFileName)),
                              runDir.filePath(QLatin1String(RunCheckpoints::kIndexFileName)),
                              runDir.filePath("project.json"), info.checkpoints.latest.path}) {
    const QDateTime time = path.isEmpty() ? QDateTime() : modifiedTime(path);
    if (time.isValid() && (!info.lastActivity.isValid() || time > info.lastActivity)) {
      info.lastActivity = time;
    }
  }

  const bridge::RunStatusView runJson = readRunStatusFile(info.dir);
  info.startTime = log.firstLineTime;
  if (!info.startTime.isValid()) info.startTime = runJson.idTime;  // the engine reads the id
  if (!info.startTime.isValid()) info.startTime = modifiedTime(runDir.filePath("project.json"));
  if (!info.startTime.isValid()) info.startTime = QFileInfo(info.dir).birthTime();
  if (!info.startTime.isValid()) info.startTime = QFileInfo(info.dir).lastModified();

  const RunAnnotations annotations = readRunAnnotations(info.dir);
  info.label = annotations.label;
  info.notes = annotations.notes;
  info.annotationsError = annotations.error;

  info.runStatusError = runJson.error;
  if (runJson.present && runJson.error.isEmpty()) {
    statusFromRunJson(info, runJson);
  } else {
    inferStatus(info, log, project, now);  // a run written before run.json existed
  }
  return info;
}

QStringList listRunDirectories(const QString& runRoot, const QString& projectName) {
  if (runRoot.isEmpty() || projectName.isEmpty()) return {};
  const QDir projectDir(QDir(runRoot).filePath(projectName));
  QStringList dirs;
  const QStringList names = projectDir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
  for (const QString& name : names) dirs << projectDir.absoluteFilePath(name);
  return dirs;
}

EpochTime newestEpochTime(const QString& runRoot, const QString& projectName) {
  EpochTime time;
  QDateTime newest;
  for (const QString& dir : listRunDirectories(runRoot, projectName)) {
    const bridge::RunStatusView status = readRunStatusFile(dir);
    if (status.state != bridge::RunState::Finished || status.epoch <= 0 ||
        !status.started.isValid() || !status.ended.isValid() || !status.idTime.isValid() ||
        status.origin.contains("--resume") || status.origin.startsWith("resumed from the GUI") ||
        (newest.isValid() && status.ended <= newest)) {
      continue;
    }
    newest = status.ended;
    // run.json's times are whole seconds: a run within one second counts half of one.
    const double seconds = std::max(0.5, status.started.msecsTo(status.ended) / 1000.0);
    time.seconds = seconds / double(status.epoch);
    time.runId = QFileInfo(dir).fileName();
  }
  return time;
}

void sortNewestFirst(QVector<RunDirectoryInfo>& runs) {
  std::stable_sort(runs.begin(), runs.end(),
                   [](const RunDirectoryInfo& a, const RunDirectoryInfo& b) {
                     if (a.startTime != b.startTime) return a.startTime > b.startTime;
                     return naturalCompare(a.runId, b.runId) > 0;
                   });
}

QVector<RunDirectoryInfo> scanRuns(const QString& runRoot, const QString& projectName,
                                   const QDateTime& now) {
  QVector<RunDirectoryInfo> runs;
  for (const QString& dir : listRunDirectories(runRoot, projectName)) {
    runs.push_back(readRunDirectory(dir, now));
  }
  sortNewestFirst(runs);
  return runs;
}

}  // namespace tbench::gui
