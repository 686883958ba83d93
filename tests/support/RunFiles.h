#pragma once
// A run directory's files written by hand in the engine's formats, for tests of the window's
// followers: run.json (engine/run/RunStatus.h) and scalars.jsonl lines (ScalarStream.h).

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

namespace tbench::testing {

/// run.json of a run of 2 epochs of 10 steps, in `state`, at global step `step`.
inline void writeRunJson(const QString& dir, const QString& state, qint64 step) {
  QFile file(QDir(dir).filePath("run.json"));
  QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
  file.write(QJsonDocument(QJsonObject{{"format", 1},
                                       {"state", state},
                                       {"epoch", step / 10},
                                       {"global_step", step},
                                       {"max_epoch", 2},
                                       {"steps_per_epoch", 10}})
                 .toJson());
}

/// One line of scalars.jsonl, with its newline.
inline QByteArray scalarLine(const char* name, qint64 step, double value, qint64 epoch = 1) {
  return QJsonDocument(QJsonObject{{"name", name},
                                   {"step", step},
                                   {"epoch", epoch},
                                   {"time", 1000.0 + step},
                                   {"value", value}})
             .toJson(QJsonDocument::Compact) +
         "\n";
}

}  // namespace tbench::testing
