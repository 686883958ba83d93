#include "app/gui/rundir/RunCheckpoints.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace tbench::gui {
namespace {

CheckpointFile fileIn(const QDir& dir, const QString& name) {
  CheckpointFile f;
  f.file = name;
  f.path = dir.absoluteFilePath(name);
  f.globalStep = globalStepOfCheckpointName(name);
  f.exists = QFileInfo(f.path).isFile();
  return f;
}

RunCheckpoints fromIndex(const QDir& dir, const bridge::CheckpointIndexView& index) {
  RunCheckpoints result;
  result.fromIndex = true;
  if (!index.latest.isEmpty()) {
    result.latest = fileIn(dir, index.latest);
    result.latest.manual = index.manual.contains(index.latest);
  }
  for (const QString& name : index.all) {
    CheckpointFile f = fileIn(dir, name);
    f.keptForGood = index.kept.contains(name);
    f.manual = index.manual.contains(name);
    result.all.push_back(f);
  }
  for (const auto& entry : index.best) {
    BestCheckpointFile b;
    b.stat = entry.stat;
    b.value = entry.value;
    b.checkpoint = fileIn(dir, entry.file);
    if (entry.globalStep >= 0) b.checkpoint.globalStep = entry.globalStep;
    result.best.push_back(b);
  }
  std::sort(
      result.best.begin(), result.best.end(),
      [](const BestCheckpointFile& x, const BestCheckpointFile& y) { return x.stat < y.stat; });
  return result;
}

bridge::CheckpointIndexReader& indexReader() {
  static bridge::CheckpointIndexReader reader;
  return reader;
}

RunCheckpoints listModelFiles(const QDir& dir) {
  RunCheckpoints result;
  const QStringList names = dir.entryList({"model-*.pt"}, QDir::Files);
  for (const QString& name : names) {
    CheckpointFile f = fileIn(dir, name);
    if (f.globalStep >= 0) result.all.push_back(f);
  }
  std::sort(
      result.all.begin(), result.all.end(),
      [](const CheckpointFile& a, const CheckpointFile& b) { return a.globalStep < b.globalStep; });
  if (!result.all.isEmpty()) result.latest = result.all.back();
  return result;
}

}  // namespace

int RunCheckpoints::existingCount() const {
  QSet<QString> files;
  if (latest.exists) files.insert(latest.file);
  for (const auto& f : all) {
    if (f.exists) files.insert(f.file);
  }
  for (const auto& b : best) {
    if (b.checkpoint.exists) files.insert(b.checkpoint.file);
  }
  return files.size();
}

qint64 globalStepOfCheckpointName(const QString& fileName) {
  static const QRegularExpression pattern(QStringLiteral("^model-([0-9]{1,18})\\.pt$"));
  const QRegularExpressionMatch match = pattern.match(fileName);
  return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

void setCheckpointIndexReader(bridge::CheckpointIndexReader reader) {
  indexReader() = std::move(reader);
}

RunCheckpoints readRunCheckpoints(const QString& runDir) {
  const QDir dir(runDir);
  if (!indexReader()) {
    RunCheckpoints listed = listModelFiles(dir);
    if (QFileInfo::exists(dir.absoluteFilePath(QLatin1String(RunCheckpoints::kIndexFileName)))) {
      listed.error = QObject::tr("the checkpoint index is not read: no index reader installed");
    }
    return listed;
  }
  const bridge::CheckpointIndexView index = indexReader()(runDir);
  if (!index.present) return listModelFiles(dir);
  if (!index.error.isEmpty()) {
    RunCheckpoints fallback = listModelFiles(dir);
    fallback.error = index.error;
    return fallback;
  }
  return fromIndex(dir, index);
}

}  // namespace tbench::gui
