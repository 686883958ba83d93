#include "app/gui/editor/FieldInput.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>
#include <QStringList>
#include <cmath>

namespace tbench::gui::input {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("FieldInput", text); }

QString boundText(double value) { return QString::number(value, 'g', 12); }

// Numbers are read in the C locale whatever the user's: JSON writes "0.5", never "0,5".
bool parseNumber(const QString& text, double* value) {
  QLocale c = QLocale::c();
  c.setNumberOptions(QLocale::RejectGroupSeparator);
  bool ok = false;
  *value = c.toDouble(text, &ok);
  return ok && std::isfinite(*value);
}

// The elements of a comma-separated list; an empty element between commas is kept (and
// refused by the readers) so that "1,,2" is not read as [1, 2].
QStringList elements(const QString& text) {
  if (text.trimmed().isEmpty()) return {};
  QStringList parts = text.split(QLatin1Char(','));
  for (QString& part : parts) part = part.trimmed();
  return parts;
}

QString elementProblem(int index, const QString& element, const QString& problem) {
  return tr("element %1, \"%2\", %3").arg(index + 1).arg(element, problem);
}

}  // namespace

QString Bounds::text() const {
  const bool hasMin = std::isfinite(minimum);
  const bool hasMax = std::isfinite(maximum);
  if (hasMin && hasMax) {
    return QStringLiteral("in ") + QLatin1Char(minimumInclusive ? '[' : '(') + boundText(minimum) +
           QStringLiteral(", ") + boundText(maximum) + QLatin1Char(maximumInclusive ? ']' : ')');
  }
  if (hasMin)
    return (minimumInclusive ? QStringLiteral(">= ") : QStringLiteral("> ")) + boundText(minimum);
  if (hasMax)
    return (maximumInclusive ? QStringLiteral("<= ") : QStringLiteral("< ")) + boundText(maximum);
  return QString();
}

bool Bounds::contains(double value) const {
  const bool belowMin = minimumInclusive ? value < minimum : value <= minimum;
  const bool aboveMax = maximumInclusive ? value > maximum : value >= maximum;
  return !belowMin && !aboveMax;
}

QString readNumber(const QString& text, const Bounds& bounds, double* value) {
  const QString trimmed = text.trimmed();
  if (trimmed.isEmpty()) return tr("a number is needed");
  double number = 0;
  if (!parseNumber(trimmed, &number)) return tr("\"%1\" is not a number").arg(trimmed);
  if (!bounds.contains(number)) return tr("must be %1").arg(bounds.text());
  *value = number;
  return QString();
}

QString readSeed(const QString& text, qint64* value) {
  const QString trimmed = text.trimmed();
  if (trimmed.isEmpty()) return tr("a whole number is needed");
  bool ok = false;
  const qint64 seed = trimmed.toLongLong(&ok);
  if (!ok) {
    const bool digits = !trimmed.contains(QRegularExpression(QStringLiteral("[^0-9-]")));
    return digits && !trimmed.startsWith('-') ? tr("must be at most 9223372036854775807")
                                              : tr("\"%1\" is not a whole number").arg(trimmed);
  }
  if (seed < 0) return tr("must be >= 0");
  *value = seed;
  return QString();
}

QString readIntegerList(const QString& text, const Bounds& bounds, QJsonArray* value) {
  const QStringList parts = elements(text);
  QJsonArray array;
  for (int i = 0; i < parts.size(); ++i) {
    bool ok = false;
    const qint64 element = parts[i].toLongLong(&ok);
    if (!ok) return elementProblem(i, parts[i], tr("is not an integer"));
    if (!bounds.contains(double(element))) {
      return elementProblem(i, parts[i], tr("must be %1").arg(bounds.text()));
    }
    array.append(element);
  }
  *value = array;
  return QString();
}

QString readNumberList(const QString& text, const Bounds& bounds, QJsonArray* value) {
  const QStringList parts = elements(text);
  QJsonArray array;
  for (int i = 0; i < parts.size(); ++i) {
    double element = 0;
    if (!parseNumber(parts[i], &element)) return elementProblem(i, parts[i], tr("is not a number"));
    if (!bounds.contains(element)) {
      return elementProblem(i, parts[i], tr("must be %1").arg(bounds.text()));
    }
    array.append(element);
  }
  *value = array;
  return QString();
}

QString checkPath(const QString& path, bool directory, bool createdIfMissing,
                  const QString& baseDir) {
  if (path.trimmed().isEmpty()) return QString();
  const QString absolute = QDir(baseDir.isEmpty() ? QDir::currentPath() : baseDir)
                               .absoluteFilePath(QDir::fromNativeSeparators(path));
  const QFileInfo info(absolute);
  const QString shown = QDir::toNativeSeparators(absolute);
  if (!info.exists()) {
    if (createdIfMissing) return QString();
    return directory ? tr("no such directory: %1").arg(shown) : tr("no such file: %1").arg(shown);
  }
  if (directory && !info.isDir()) return tr("not a directory: %1").arg(shown);
  if (!directory && info.isDir()) return tr("a directory, not a file: %1").arg(shown);
  if (!info.isReadable()) return tr("cannot be read: %1").arg(shown);
  return QString();
}

}  // namespace tbench::gui::input
