#include "app/gui/editor/JsonPath.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace tbench::gui {

QString withoutRoot(const QString& path) {
  if (path.startsWith(QLatin1String("$."))) return path.mid(2);
  if (path.startsWith(QLatin1Char('$'))) return path.mid(1);
  return path;
}

QList<JsonPathStep> parseJsonPath(const QString& path) {
  const QString text = withoutRoot(path);
  QList<JsonPathStep> steps;
  int i = 0;
  while (i < text.size()) {
    if (text[i] == QLatin1Char('[')) {
      const int close = text.indexOf(QLatin1Char(']'), i);
      bool ok = false;
      const int index = close < 0 ? -1 : text.mid(i + 1, close - i - 1).toInt(&ok);
      if (!ok || index < 0) return steps;
      steps.append({QString(), index});
      i = close + 1;
      continue;
    }
    if (text[i] == QLatin1Char('.')) ++i;
    int end = i;
    while (end < text.size() && text[end] != QLatin1Char('.') && text[end] != QLatin1Char('[')) {
      ++end;
    }
    if (end == i) return steps;
    steps.append({text.mid(i, end - i), -1});
    i = end;
  }
  return steps;
}

QString joinPath(const QString& base, const QString& key) {
  return base.isEmpty() ? key : base + QLatin1Char('.') + key;
}

QString pathPattern(const QString& path) {
  static const QRegularExpression index(QStringLiteral("\\[\\d+\\]"));
  return QString(path).replace(index, QStringLiteral("[]"));
}

QJsonValue valueAt(const QJsonObject& root, const QString& path) {
  QJsonValue node = root;
  for (const JsonPathStep& step : parseJsonPath(path)) {
    if (step.key.isEmpty()) {
      if (!node.isArray() || step.index >= node.toArray().size()) return {QJsonValue::Undefined};
      node = node.toArray().at(step.index);
    } else {
      if (!node.isObject()) return {QJsonValue::Undefined};
      node = node.toObject().value(step.key);
    }
  }
  return node;
}

namespace {

// Qt's JSON containers are values: the edited branch is rebuilt from the leaf up. Returns
// false when the path cannot be followed (the caller then keeps the original).
bool setIn(QJsonValue& node, const QList<JsonPathStep>& steps, int at, const QJsonValue& value) {
  const JsonPathStep& step = steps[at];
  const bool last = at + 1 == steps.size();
  if (step.key.isEmpty()) {
    if (!node.isArray()) return false;
    QJsonArray array = node.toArray();
    if (step.index >= array.size()) return false;
    if (last) {
      if (value.isUndefined()) {
        array.removeAt(step.index);
      } else {
        array[step.index] = value;
      }
    } else {
      QJsonValue child = array.at(step.index);
      if (!setIn(child, steps, at + 1, value)) return false;
      array[step.index] = child;
    }
    node = array;
    return true;
  }
  if (!node.isObject()) return false;
  QJsonObject object = node.toObject();
  if (last) {
    if (value.isUndefined()) {
      object.remove(step.key);
    } else {
      object.insert(step.key, value);
    }
  } else {
    QJsonValue child = object.value(step.key);
    if (child.isUndefined()) {
      if (value.isUndefined()) return true;  // removing below a missing key: nothing to do
      child = steps[at + 1].key.isEmpty() ? QJsonValue(QJsonArray()) : QJsonValue(QJsonObject());
    }
    if (!setIn(child, steps, at + 1, value)) return false;
    object.insert(step.key, child);
  }
  node = object;
  return true;
}

}  // namespace

QJsonObject applyEdit(const QJsonObject& root, const JsonEdit& edit) {
  const QList<JsonPathStep> steps = parseJsonPath(edit.path);
  if (steps.isEmpty()) return edit.value.isObject() ? edit.value.toObject() : root;
  QJsonValue node = root;
  return setIn(node, steps, 0, edit.value) ? node.toObject() : root;
}

QJsonObject applyEdits(QJsonObject root, const JsonEdits& edits) {
  for (const JsonEdit& edit : edits) root = applyEdit(root, edit);
  return root;
}

}  // namespace tbench::gui
