#include "app/gui/rundir/CheckpointChoices.h"

#include <QFileInfo>
#include <QStringList>
#include <algorithm>

namespace tbench::gui {
namespace {

QString stepText(qint64 step) {
  return step >= 0 ? QStringLiteral("step %1").arg(step) : QStringLiteral("step unknown");
}

CheckpointChoice choiceFor(CheckpointChoice::Kind kind, const QString& label,
                           const CheckpointFile& file) {
  CheckpointChoice choice;
  choice.kind = kind;
  choice.label = label;
  choice.path = file.path;
  choice.globalStep = file.globalStep;
  choice.exists = file.exists;
  choice.detail = file.exists ? file.path : QStringLiteral("%1 is missing").arg(file.path);
  if (!file.exists) choice.label += QStringLiteral(" \u2014 missing");
  return choice;
}

QString fileNameSafe(QString text) {
  for (QChar& c : text) {
    if (!(c.isLetterOrNumber() || c == '-' || c == '_' || c == '.')) c = '_';
  }
  return text;
}

}  // namespace

QVector<CheckpointChoice> checkpointChoices(const RunDirectoryInfo& run) {
  QVector<CheckpointChoice> choices;
  const RunCheckpoints& checkpoints = run.checkpoints;
  if (!checkpoints.latest.file.isEmpty()) {
    choices.push_back(
        choiceFor(CheckpointChoice::Kind::Latest,
                  QStringLiteral("latest (%1)%2")
                      .arg(stepText(checkpoints.latest.globalStep),
                           checkpoints.latest.manual ? QStringLiteral(" (manual)") : QString()),
                  checkpoints.latest));
  }
  for (const BestCheckpointFile& best : checkpoints.best) {
    CheckpointChoice choice = choiceFor(
        CheckpointChoice::Kind::Best,
        QStringLiteral("best %1 (%2)").arg(best.stat, stepText(best.checkpoint.globalStep)),
        best.checkpoint);
    choice.detail +=
        QStringLiteral("\n%1 = %2").arg(best.stat, QString::number(best.value, 'g', 6));
    choices.push_back(choice);
  }
  QVector<CheckpointFile> steps = checkpoints.all;
  std::stable_sort(
      steps.begin(), steps.end(),
      [](const CheckpointFile& a, const CheckpointFile& b) { return a.globalStep > b.globalStep; });
  for (const CheckpointFile& file : steps) {
    QString label = QStringLiteral("%1 (%2)").arg(stepText(file.globalStep), file.file);
    if (file.manual) {
      label += QStringLiteral(" (manual)");
    } else if (file.keptForGood) {
      label += QStringLiteral(", kept for good");
    }
    choices.push_back(choiceFor(CheckpointChoice::Kind::Step, label, file));
  }
  return choices;
}

QString exportExtension(const QString& format) {
  if (format == QLatin1String("safetensors")) return QStringLiteral("safetensors");
  // Not plain ".pt": switching between weights and TorchScript must not reuse one name.
  if (format == QLatin1String("torchscript")) return QStringLiteral("torchscript.pt");
  return QStringLiteral("pt");
}

QString defaultExportFileName(const QString& projectName, const QString& runId, qint64 globalStep,
                              const QString& checkpointPath, const QString& format) {
  QStringList parts;
  if (!projectName.isEmpty()) parts << projectName;
  if (!runId.isEmpty()) parts << runId;
  if (globalStep >= 0) {
    parts << QStringLiteral("step%1").arg(globalStep);
  } else {
    const QString stem = QFileInfo(checkpointPath).completeBaseName();
    parts << (stem.isEmpty() ? QStringLiteral("weights") : stem);
  }
  return fileNameSafe(parts.join('-')) + '.' + exportExtension(format);
}

}  // namespace tbench::gui
