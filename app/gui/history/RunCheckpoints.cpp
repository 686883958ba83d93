#include "app/gui/history/RunCheckpoints.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <stdexcept>

namespace tbench::gui {
namespace {

// The index is a few hundred bytes; a huge file is not one.
constexpr qint64 kMaxIndexBytes = 16LL * 1024 * 1024;

class IndexError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const QString& message) { throw IndexError(message.toStdString()); }

// As the engine: a name must stay inside the run directory.
QString checkedName(const QString& path, const QString& field, const QJsonValue& value) {
  if (!value.isString()) fail(QStringLiteral("%1: %2 must be a file name").arg(path, field));
  const QString name = value.toString();
  if (name.isEmpty() || name == "." || name == ".." || name.contains('/') || name.contains('\\')) {
    fail(QStringLiteral("%1: %2 must be a file name inside the run directory, got \"%3\"")
             .arg(path, field, name));
  }
  return name;
}

CheckpointFile fileIn(const QDir& dir, const QString& name) {
  CheckpointFile f;
  f.file = name;
  f.path = dir.absoluteFilePath(name);
  f.globalStep = globalStepOfCheckpointName(name);
  f.exists = QFileInfo(f.path).isFile();
  return f;
}

RunCheckpoints parseIndex(const QDir& dir, const QString& path) {
  QFile file(path);
  if (file.size() > kMaxIndexBytes) fail(QStringLiteral("%1: too large to be an index").arg(path));
  if (!file.open(QIODevice::ReadOnly)) {
    fail(QStringLiteral("%1: cannot be read (%2)").arg(path, file.errorString()));
  }
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    fail(QStringLiteral("%1: not valid JSON at byte %2 (%3)")
             .arg(path, QString::number(parseError.offset), parseError.errorString()));
  }
  if (!doc.isObject()) fail(QStringLiteral("%1: must be a JSON object").arg(path));
  const QJsonObject index = doc.object();

  RunCheckpoints result;
  result.fromIndex = true;
  const QJsonValue latest = index.value("latest");
  if (!latest.isUndefined() && !latest.isNull()) {
    result.latest = fileIn(dir, checkedName(path, "\"latest\"", latest));
  }
  QSet<QString> keptForGood;
  for (const char* key : {"kept", "all"}) {
    const QJsonValue list = index.value(QLatin1String(key));
    if (list.isUndefined()) continue;
    if (!list.isArray()) fail(QStringLiteral("%1: \"%2\" must be a list").arg(path, key));
    const QJsonArray names = list.toArray();
    for (qsizetype i = 0; i < names.size(); ++i) {
      const QString field = QStringLiteral("\"%1\"[%2]").arg(key, QString::number(i));
      const QString name = checkedName(path, field, names.at(i));
      if (qstrcmp(key, "kept") == 0) {
        keptForGood.insert(name);
      } else {
        CheckpointFile f = fileIn(dir, name);
        f.keptForGood = keptForGood.contains(name);
        result.all.push_back(f);
      }
    }
  }
  const QJsonValue best = index.value("best");
  if (!best.isUndefined()) {
    if (!best.isObject()) fail(QStringLiteral("%1: \"best\" must be an object").arg(path));
    const QJsonObject byStat = best.toObject();
    for (auto it = byStat.begin(); it != byStat.end(); ++it) {
      const QString field = QStringLiteral("\"best\".\"%1\"").arg(it.key());
      const QJsonObject entry = it.value().toObject();
      if (!it.value().isObject() || !entry.value("value").isDouble()) {
        fail(QStringLiteral("%1: %2 must be {\"file\": ..., \"value\": number, ...}")
                 .arg(path, field));
      }
      BestCheckpointFile b;
      b.stat = it.key();
      b.value = entry.value("value").toDouble();
      b.checkpoint = fileIn(dir, checkedName(path, field + ".file", entry.value("file")));
      if (entry.value("global_step").isDouble()) {
        b.checkpoint.globalStep = entry.value("global_step").toInteger();
      }
      result.best.push_back(b);
    }
  }
  return result;
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

RunCheckpoints readRunCheckpoints(const QString& runDir) {
  const QDir dir(runDir);
  const QString path = dir.absoluteFilePath(QLatin1String(RunCheckpoints::kIndexFileName));
  if (!QFileInfo::exists(path)) return listModelFiles(dir);
  try {
    return parseIndex(dir, QDir::toNativeSeparators(path));
  } catch (const IndexError& e) {
    RunCheckpoints fallback = listModelFiles(dir);
    fallback.error = QString::fromStdString(e.what());
    return fallback;
  }
}

}  // namespace tbench::gui
