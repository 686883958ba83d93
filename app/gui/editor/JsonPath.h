#pragma once
// JsonPath: reading and changing a QJsonObject at a path such as "data.train.num_samples" or
// "callbacks[1].stat" (the paths of docs/PROJECT-FORMAT.md, with or without the leading "$.").
// The form sections describe every change as a list of JsonEdit; the editor applies them.

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QVariant>

namespace tbench::gui {

/// One change of a document: `value` at `path`, or removing the key when `value` is undefined.
struct JsonEdit {
  QString path;
  QJsonValue value = QJsonValue(QJsonValue::Undefined);
};
using JsonEdits = QList<JsonEdit>;

/// An edit that removes the key at `path`.
inline JsonEdit removal(const QString& path) { return {path, QJsonValue(QJsonValue::Undefined)}; }

/// One step of a path: an object key, or an array index when `key` is empty.
struct JsonPathStep {
  QString key;
  int index = -1;
};

/// The steps of `path`; "$", "" and "$." give none. Malformed parts (a "[x]" that is not a
/// number) end the list early, so a bad path never matches anything.
QList<JsonPathStep> parseJsonPath(const QString& path);

/// `path` joined with a key: joinPath("data", "batch_size") == "data.batch_size"; an empty
/// base gives the key.
QString joinPath(const QString& base, const QString& key);

/// `path` with a leading "$." or "$" removed.
QString withoutRoot(const QString& path);

/// `path` with every index written as "[]": "callbacks[2].stat" -> "callbacks[].stat".
QString pathPattern(const QString& path);

/// The value at `path`, undefined when any step is missing or of the wrong kind.
QJsonValue valueAt(const QJsonObject& root, const QString& path);

/// `root` with `edit` applied. Missing objects along the path are created; an index past the
/// end of an array, or a step through a non-container, leaves `root` unchanged.
QJsonObject applyEdit(const QJsonObject& root, const JsonEdit& edit);
QJsonObject applyEdits(QJsonObject root, const JsonEdits& edits);

}  // namespace tbench::gui

Q_DECLARE_METATYPE(tbench::gui::JsonEdits)
