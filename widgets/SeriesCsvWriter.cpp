#include "widgets/SeriesCsvWriter.h"

#include <QLocale>
#include <QSaveFile>

namespace tbench::ui {

namespace {

QString field(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
      !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
    return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString number(double v) { return QString::number(v, 'g', QLocale::FloatingPointShortest); }

}  // namespace

QString SeriesCsvWriter::header() {
  return QStringLiteral("run,name,step,epoch,wall_time,value,smoothed");
}

void SeriesCsvWriter::write(QTextStream& out, const SeriesStore& store,
                            const QVector<SeriesKey>& keys) {
  out << header() << '\n';
  for (const SeriesKey& key : keys) {
    const Series* s = store.series(key);
    if (!s) continue;
    const QString prefix = field(key.run) + QLatin1Char(',') + field(key.name) + QLatin1Char(',');
    for (int i = 0; i < s->size(); ++i) {
      out << prefix << s->step(i) << ',' << s->epoch(i) << ',' << number(s->wallTime(i)) << ','
          << number(s->value(i)) << ',' << number(s->smoothed(i)) << '\n';
    }
  }
}

bool SeriesCsvWriter::writeFile(const QString& path, const SeriesStore& store,
                                const QVector<SeriesKey>& keys, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  {
    QTextStream out(&file);
    write(out, store, keys);
  }
  if (!file.commit()) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace tbench::ui
