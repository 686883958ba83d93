#include "app/gui/rundir/RunAnnotations.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

namespace tbench::gui {

QStringList RunAnnotations::tags() const {
  static const QRegularExpression tag(QStringLiteral("(?:^|\\s)#([\\w.+-]+)"));
  QStringList found;
  for (auto it = tag.globalMatch(notes); it.hasNext();) {
    const QString name = it.next().captured(1);
    if (!found.contains(name)) found << name;
  }
  return found;
}

RunAnnotations readRunAnnotations(const QString& runDir) {
  RunAnnotations annotations;
  const QString path = QDir(runDir).filePath(QLatin1String(kAnnotationsFileName));
  QFile file(path);
  if (!file.exists()) return annotations;
  if (file.size() > 1024 * 1024 || !file.open(QIODevice::ReadOnly)) {
    annotations.error = QStringLiteral("%1: cannot be read").arg(QDir::toNativeSeparators(path));
    return annotations;
  }
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
    annotations.error = QStringLiteral("%1: not a JSON object (%2)")
                            .arg(QDir::toNativeSeparators(path), parseError.errorString());
    return annotations;
  }
  annotations.label = doc.object().value("label").toString();
  annotations.notes = doc.object().value("notes").toString();
  return annotations;
}

bool writeRunAnnotations(const QString& runDir, const QString& label, const QString& notes,
                         QString* error) {
  const QString path = QDir(runDir).filePath(QLatin1String(kAnnotationsFileName));
  auto fail = [&](const QString& why) {
    if (error) *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), why);
    return false;
  };
  if (label.trimmed().isEmpty() && notes.trimmed().isEmpty()) {
    if (QFile::exists(path) && !QFile::remove(path)) return fail(QStringLiteral("cannot remove"));
    return true;
  }
  RunAnnotations annotations;
  annotations.notes = notes;
  QJsonObject object{{"format", 1},
                     {"label", label.trimmed()},
                     {"notes", notes},
                     {"tags", QJsonArray::fromStringList(annotations.tags())}};
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
  file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
  if (!file.commit()) return fail(file.errorString());
  return true;
}

}  // namespace tbench::gui
