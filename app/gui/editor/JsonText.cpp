#include "app/gui/editor/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QLocale>
#include <QVariant>
#include <cmath>

#include "app/gui/editor/JsonPath.h"
#include "app/gui/editor/ProjectSchema.h"

namespace tbench::gui {

namespace {

QString quoted(const QString& text) {
  QString out;
  out.reserve(text.size() + 2);
  out += QLatin1Char('"');
  for (const QChar c : text) {
    switch (c.unicode()) {
      case '"':
        out += QLatin1String("\\\"");
        break;
      case '\\':
        out += QLatin1String("\\\\");
        break;
      case '\n':
        out += QLatin1String("\\n");
        break;
      case '\r':
        out += QLatin1String("\\r");
        break;
      case '\t':
        out += QLatin1String("\\t");
        break;
      case '\b':
        out += QLatin1String("\\b");
        break;
      case '\f':
        out += QLatin1String("\\f");
        break;
      default:
        if (c.unicode() < 0x20) {
          out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
        } else {
          out += c;
        }
    }
  }
  out += QLatin1Char('"');
  return out;
}

QString scalarText(const QJsonValue& value) {
  switch (value.type()) {
    case QJsonValue::Null:
      return QStringLiteral("null");
    case QJsonValue::Bool:
      return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::String:
      return quoted(value.toString());
    case QJsonValue::Double:
      // Qt keeps integers (also "2.0" in the source) as 64-bit integers: write them in full.
      if (value.toVariant().typeId() == QMetaType::LongLong) {
        return QString::number(value.toInteger());
      }
      return formatNumber(value.toDouble());
    default:
      return QString();
  }
}

bool isScalar(const QJsonValue& value) { return !value.isArray() && !value.isObject(); }

// Arrays of scalars, or of short arrays of scalars, fit on one line.
bool isInline(const QJsonArray& array) {
  for (const QJsonValue& element : array) {
    if (element.isObject()) return false;
    if (element.isArray()) {
      for (const QJsonValue& inner : element.toArray()) {
        if (!isScalar(inner)) return false;
      }
    }
  }
  return true;
}

QStringList orderedKeys(const QJsonObject& object, const QString& path) {
  QStringList keys;
  for (const QString& key : schema::keyOrder(pathPattern(path))) {
    if (object.contains(key)) keys.append(key);
  }
  for (const QString& key : object.keys()) {  // alphabetical
    if (!keys.contains(key)) keys.append(key);
  }
  return keys;
}

void write(const QJsonValue& value, const QString& path, int depth, QString& out);

QString inlineArray(const QJsonArray& array) {
  QStringList parts;
  for (const QJsonValue& element : array) {
    parts.append(element.isArray() ? inlineArray(element.toArray()) : scalarText(element));
  }
  return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}

void write(const QJsonValue& value, const QString& path, int depth, QString& out) {
  const QString indent(2 * (depth + 1), QLatin1Char(' '));
  const QString closingIndent(2 * depth, QLatin1Char(' '));
  if (value.isObject()) {
    const QJsonObject object = value.toObject();
    if (object.isEmpty()) {
      out += QLatin1String("{}");
      return;
    }
    out += QLatin1String("{\n");
    const QStringList keys = orderedKeys(object, path);
    for (int i = 0; i < keys.size(); ++i) {
      out += indent + quoted(keys[i]) + QLatin1String(": ");
      write(object.value(keys[i]), joinPath(path, keys[i]), depth + 1, out);
      out += i + 1 < keys.size() ? QLatin1String(",\n") : QLatin1String("\n");
    }
    out += closingIndent + QLatin1Char('}');
  } else if (value.isArray()) {
    const QJsonArray array = value.toArray();
    if (isInline(array)) {
      out += inlineArray(array);
      return;
    }
    out += QLatin1String("[\n");
    for (int i = 0; i < array.size(); ++i) {
      out += indent;
      write(array.at(i), path + QStringLiteral("[%1]").arg(i), depth + 1, out);
      out += i + 1 < array.size() ? QLatin1String(",\n") : QLatin1String("\n");
    }
    out += closingIndent + QLatin1Char(']');
  } else {
    out += scalarText(value);
  }
}

}  // namespace

QString formatNumber(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude == 0.0 || (magnitude >= 1e-4 && magnitude < 1e16)) {
    return QString::number(value, 'f', QLocale::FloatingPointShortest);
  }
  return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString toProjectText(const QJsonObject& object) {
  QString out;
  write(object, QString(), 0, out);
  out += QLatin1Char('\n');
  return out;
}

ParsedJson parseJsonObject(const QString& text) {
  ParsedJson parsed;
  const QByteArray utf8 = text.toUtf8();
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(utf8, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject()) {
    // QJsonParseError::offset counts UTF-8 bytes; lines and columns count characters.
    const int byteOffset = error.error != QJsonParseError::NoError ? error.offset : 0;
    const QString before = QString::fromUtf8(utf8.left(byteOffset));
    const int line = before.count(QLatin1Char('\n')) + 1;
    const int column = before.size() - (before.lastIndexOf(QLatin1Char('\n')) + 1) + 1;
    const QString what = error.error != QJsonParseError::NoError
                             ? error.errorString()
                             : QStringLiteral("expected a JSON object");
    parsed.offset = before.size();
    parsed.error = QStringLiteral("line %1, column %2: %3").arg(line).arg(column).arg(what);
    return parsed;
  }
  parsed.ok = true;
  parsed.object = doc.object();
  return parsed;
}

}  // namespace tbench::gui
