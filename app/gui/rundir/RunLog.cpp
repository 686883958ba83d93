#include "app/gui/rundir/RunLog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QRegularExpression>

namespace tbench::gui {
namespace {

constexpr qint64 kTailBytes = 1024 * 1024;

struct LogLine {
  QString time;  ///< "MMDD HH:MM:SS", empty for a line without the prefix
  QString level;
  QString message;
};

LogLine parseLine(const QString& text) {
  static const QRegularExpression pattern(
      QStringLiteral("^\\[(\\d{4} \\d\\d:\\d\\d:\\d\\d) ([A-Z?]{3})\\] (.*)$"));
  const QRegularExpressionMatch match = pattern.match(text);
  if (!match.hasMatch()) return {QString(), QString(), text};
  return {match.captured(1), match.captured(2), match.captured(3)};
}

// The log writes no year: the line was written at or before the file's last modification.
QDateTime dateOf(const QString& stamp, const QDateTime& modified) {
  if (stamp.isEmpty() || !modified.isValid()) return {};
  const int month = stamp.mid(0, 2).toInt();
  const int day = stamp.mid(2, 2).toInt();
  const QTime time = QTime::fromString(stamp.mid(5), QStringLiteral("HH:mm:ss"));
  for (int year = modified.date().year(); year >= modified.date().year() - 4; --year) {
    const QDateTime candidate(QDate(year, month, day), time);
    // A day of margin for clock or time-zone changes between the write and the stat.
    if (candidate.isValid() && candidate <= modified.addDays(1)) return candidate;
  }
  return {};
}

bool isStartLine(const QString& message) {
  return message.startsWith(QLatin1String("command: ")) ||
         message.startsWith(QLatin1String("started from the GUI")) ||
         message.startsWith(QLatin1String("resumed from the GUI"));
}

}  // namespace

RunLogSummary readRunLog(const QString& path) {
  RunLogSummary summary;
  QFile file(path);
  if (!file.exists()) return summary;
  summary.exists = true;
  if (!file.open(QIODevice::ReadOnly)) {
    summary.error = QStringLiteral("%1: cannot be read (%2)")
                        .arg(QDir::toNativeSeparators(path), file.errorString());
    return summary;
  }
  const QDateTime modified = QFileInfo(file).lastModified();
  const LogLine first = parseLine(QString::fromUtf8(file.readLine(64 * 1024)).trimmed());
  summary.firstLineTime = dateOf(first.time, modified);
  if (isStartLine(first.message)) {
    summary.command = first.message.startsWith(QLatin1String("command: "))
                          ? first.message.mid(int(qstrlen("command: ")))
                          : first.message;
  }

  const qint64 size = file.size();
  const bool partial = size > kTailBytes;
  if (!file.seek(partial ? size - kTailBytes : 0)) {
    summary.error = QStringLiteral("%1: cannot be read (%2)")
                        .arg(QDir::toNativeSeparators(path), file.errorString());
    return summary;
  }
  QList<QByteArray> rawLines = file.readAll().split('\n');
  if (partial && !rawLines.isEmpty()) rawLines.removeFirst();  // cut in the middle

  // Walk back to the last start, then read that attempt forwards.
  qsizetype begin = 0;
  for (qsizetype i = rawLines.size() - 1; i >= 0; --i) {
    if (isStartLine(parseLine(QString::fromUtf8(rawLines.at(i)).trimmed()).message)) {
      begin = i;
      break;
    }
  }
  static const QRegularExpression resuming(QStringLiteral("^resuming from .* at epoch (\\d+),"));
  static const QRegularExpression planned(QStringLiteral("^training (-?\\d+) epochs of "));
  for (qsizetype i = begin; i < rawLines.size(); ++i) {
    const LogLine line = parseLine(QString::fromUtf8(rawLines.at(i)).trimmed());
    if (line.time.isEmpty()) continue;
    summary.lastLineTime = dateOf(line.time, modified);
    if (i == begin && isStartLine(line.message)) summary.lastStartTime = summary.lastLineTime;
    if (const auto m = resuming.match(line.message); m.hasMatch()) {
      summary.resumedAtEpoch = m.captured(1).toLongLong();
    } else if (const auto p = planned.match(line.message); p.hasMatch()) {
      summary.epochsPlanned = p.captured(1).toLongLong();
    } else if (line.message.startsWith(QLatin1String("training stopped at "))) {
      summary.stopped = true;
      summary.endMessage = line.message;
    } else if (line.level == QLatin1String("ERR") &&
               line.message.startsWith(QLatin1String("training failed"))) {
      summary.failed = true;
      summary.endMessage = line.message;
    }
  }
  return summary;
}

}  // namespace tbench::gui
