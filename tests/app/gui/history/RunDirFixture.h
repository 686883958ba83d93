#pragma once
// Run directories built by hand in the engine's format (the formats of TrainCommand.cpp,
// JSONWriter.cpp, CheckpointIndex.cpp and Logging.cpp, checked against a real CLI run), for the
// history and export tests. Header-only test helper.

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QtTest>

namespace tbench::gui::testing {

inline void writeText(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
  file.write(text);
}

/// "[MMDD HH:MM:SS INF] message", as engine/core/Logging.cpp writes it.
inline QByteArray logLine(const QDateTime& time, const QString& level, const QString& message) {
  return QStringLiteral("[%1 %2] %3\n")
      .arg(time.toString(QStringLiteral("MMdd HH:mm:ss")), level, message)
      .toUtf8();
}

struct FakeRun {
  QString dir;
  QDateTime start;

  FakeRun(const QString& runRoot, const QString& project, const QString& runId,
          const QDateTime& startTime)
      : dir(QDir(runRoot).filePath(project + "/" + runId)), start(startTime) {
    QDir().mkpath(dir);
  }
  QString path(const QString& name) const { return QDir(dir).filePath(name); }

  /// project.json: the keys the panel reads, in the engine's dump(2) layout.
  void writeProject(const QString& name, int maxEpoch) const { writeProject(name, maxEpoch, {}); }

  /// project.json with `extra`'s keys over writeProject's (nested objects replaced whole).
  void writeProject(const QString& name, int maxEpoch, const QJsonObject& extra) const {
    QJsonObject project{{"format", 1},
                        {"name", name},
                        {"max_epoch", maxEpoch},
                        {"starting_epoch", 1},
                        {"run_root", "train_log"},
                        {"steps_per_epoch", 0}};
    for (auto it = extra.begin(); it != extra.end(); ++it) project.insert(it.key(), it.value());
    writeText(path("project.json"), QJsonDocument(project).toJson(QJsonDocument::Indented));
  }

  /// stats.json with one entry per epoch: cost and validation_error for each, epoch_num and
  /// global_step as JSONWriter writes them (dump(1)).
  void writeStats(int epochs, int stepsPerEpoch, double firstCost = 1.0) const {
    QJsonArray entries;
    for (int e = 1; e <= epochs; ++e) {
      entries.append(QJsonObject{{"cost", firstCost / e},
                                 {"train_error", 0.5 / e},
                                 {"validation_error", 0.4 / e},
                                 {"epoch_num", e},
                                 {"global_step", e * stepsPerEpoch}});
    }
    writeText(path("stats.json"), QJsonDocument(entries).toJson(QJsonDocument::Indented));
  }

  /// The log of one CLI start that trained `planned` epochs, plus `extra` lines at the end.
  void writeLog(int planned, int stepsPerEpoch, const QStringList& extra = {}) const {
    QByteArray text;
    text += logLine(start, "INF", "command: towerbench-cli train project.json");
    text += logLine(start, "INF", "LibTorch 1.13.0, 2 intra-op threads, OpenBLAS");
    text += logLine(start, "INF",
                    QStringLiteral("training %1 epochs of %2 steps on 1 tower(s)")
                        .arg(planned)
                        .arg(stepsPerEpoch));
    text += logLine(start, "INF", "run directory: " + dir);
    for (const QString& line : extra) text += line.toUtf8() + "\n";
    writeText(path("log.log"), text);
  }

  /// The `checkpoint` index as CheckpointIndex::write writes it, and a fake file for each
  /// listed checkpoint (unless in `missing`).
  void writeCheckpoints(const QVector<int>& steps, const QVector<int>& keptForGood, int bestStep,
                        double bestValue, const QVector<int>& missing = {}) const {
    QJsonArray all, kept;
    for (int s : keptForGood) kept.append(QStringLiteral("model-%1.pt").arg(s));
    for (int s : steps) {
      all.append(QStringLiteral("model-%1.pt").arg(s));
      if (!missing.contains(s)) writeText(path(QStringLiteral("model-%1.pt").arg(s)), "PK fake");
    }
    QJsonObject index{{"latest", steps.isEmpty() ? QJsonValue() : QJsonValue(all.last())},
                      {"all", all}};
    if (!kept.isEmpty()) index["kept"] = kept;
    QJsonObject best;
    if (bestStep >= 0) {
      best["validation_error"] = QJsonObject{
          {"file", "min-validation_error.pt"}, {"value", bestValue}, {"global_step", bestStep}};
      writeText(path("min-validation_error.pt"), "PK fake best");
    }
    index["best"] = best;
    writeText(path("checkpoint"), QJsonDocument(index).toJson(QJsonDocument::Indented));
  }

  /// Sets the modification time of every file of the run.
  void age(const QDateTime& when) const {
    for (const QString& name : QDir(dir).entryList(QDir::Files)) {
      QFile file(path(name));
      QVERIFY(file.open(QIODevice::ReadWrite));
      QVERIFY(file.setFileTime(when, QFileDevice::FileModificationTime));
    }
  }
};

}  // namespace tbench::gui::testing
