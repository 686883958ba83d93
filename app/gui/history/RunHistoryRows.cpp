#include "app/gui/history/RunHistoryRows.h"

#include <QDir>
#include <QPixmap>
#include <QTableWidget>
#include <algorithm>

#include "app/gui/rundir/RunComparison.h"
#include "widgets/Palette.h"

namespace tbench::gui {
namespace {

QString numberText(double value) { return QString::number(value, 'g', 4); }

/// A cell that sorts by its kSortRole number when both cells have one.
class SortItem : public QTableWidgetItem {
 public:
  using QTableWidgetItem::QTableWidgetItem;
  bool operator<(const QTableWidgetItem& other) const override {
    const QVariant a = data(kSortRole), b = other.data(kSortRole);
    if (a.isValid() && b.isValid()) return a.toDouble() < b.toDouble();
    if (a.isValid() != b.isValid()) return a.isValid();  // values before blanks
    return QString::localeAwareCompare(text(), other.text()) < 0;
  }
};

}  // namespace

QStringList parameterHeaders(const QStringList& paths) {
  QStringList shortNames;
  for (const QString& path : paths) {
    const qsizetype dot = path.indexOf('.');
    shortNames << (dot > 0 ? path.mid(dot + 1) : path);
  }
  QStringList headers;
  for (int i = 0; i < paths.size(); ++i) {
    headers << (shortNames.count(shortNames.at(i)) > 1 ? paths.at(i) : shortNames.at(i));
  }
  return headers;
}

namespace {

QColor statusColor(RunState status, const QPalette& palette) {
  switch (status) {
    case RunState::Starting:
    case RunState::Running:
    case RunState::Paused:
    case RunState::Stopping:
      return ui::Palette::active();
    case RunState::Failed:
      return ui::Palette::error();
    case RunState::Stopped:
      return ui::Palette::warning();
    case RunState::Idle:
    case RunState::Unknown:
      return palette.color(QPalette::Disabled, QPalette::Text);
    case RunState::Finished:
      break;
  }
  return palette.color(QPalette::Text);
}

QIcon swatch(const QColor& colour) {
  QPixmap pixmap(12, 12);
  pixmap.fill(colour);
  return QIcon(pixmap);
}

QString runTooltip(const RunDirectoryInfo& run, const QStringList& moreParameters) {
  QStringList lines;
  if (!run.label.isEmpty()) lines << run.runId;
  lines << QDir::toNativeSeparators(run.dir);
  if (!run.command.isEmpty()) lines << run.command;
  for (auto it = run.lastScalars.begin(); it != run.lastScalars.end(); ++it) {
    lines << QStringLiteral("%1 = %2").arg(it.key(), numberText(it.value()));
  }
  if (!moreParameters.isEmpty()) {
    const QMap<QString, QString> parameters = flattenProject(run.project);
    for (const QString& path : moreParameters) {
      lines << QStringLiteral("%1 = %2").arg(path,
                                             parameters.value(path, QStringLiteral("\u2013")));
    }
  }
  for (const QString& problem : run.problems()) lines << QStringLiteral("\u26a0 ") + problem;
  return lines.join('\n');
}

QString checkpointsTooltip(const RunCheckpoints& checkpoints) {
  QStringList lines;
  if (!checkpoints.latest.file.isEmpty()) lines << "latest: " + checkpoints.latest.file;
  for (const auto& best : checkpoints.best) {
    lines << QStringLiteral("best %1 = %2: %3")
                 .arg(best.stat, numberText(best.value), best.checkpoint.file);
  }
  for (const auto& file : checkpoints.all) {
    if (!file.exists) {
      lines << file.file + (file.manual ? " (manual, missing)" : " (missing)");
    } else if (file.manual) {
      lines << file.file + " (manual)";
    }
  }
  if (!checkpoints.fromIndex && !checkpoints.all.isEmpty()) lines << "(no checkpoint index)";
  return lines.join('\n');
}

QTableWidgetItem* textItem(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
  auto* item = new SortItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  item->setTextAlignment(align | Qt::AlignVCenter);
  return item;
}

}  // namespace

void fillRunRow(QTableWidget& table, int row, const RunDirectoryInfo& run,
                const QMap<QString, QString>& values, const RowContext& context) {
  const int bestColumn = kFirstParameter + int(context.parameters.size());
  auto* check = new QTableWidgetItem;
  check->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  check->setCheckState(context.overlaid ? Qt::Checked : Qt::Unchecked);
  check->setIcon(swatch(context.colour));
  check->setToolTip(QObject::tr("Overlay this run's curves on the charts, in this colour"));
  table.setItem(row, kOverlayColumn, check);

  auto* name = textItem(run.displayName());
  name->setFlags(name->flags() | Qt::ItemIsEditable);
  name->setData(Qt::UserRole, run.dir);
  name->setToolTip(runTooltip(run, context.moreParameters) +
                   QObject::tr("\n(double-click to label the run)"));
  if (!run.problems().isEmpty()) name->setIcon(context.warning);
  table.setItem(row, kRunColumn, name);

  auto* notes = textItem(run.notes);
  notes->setFlags(notes->flags() | Qt::ItemIsEditable);
  notes->setToolTip(QObject::tr("Notes on the run; words starting with # are tags"));
  table.setItem(row, kNotesColumn, notes);

  auto* status = textItem(toString(run.status));
  status->setForeground(statusColor(run.status, context.palette));
  status->setToolTip(run.statusDetail);
  table.setItem(row, kStatusColumn, status);

  QString epochText =
      run.lastEpoch >= 0 ? QString::number(run.lastEpoch) : QStringLiteral("\u2013");
  if (run.maxEpoch > 0) epochText += QStringLiteral(" / %1").arg(run.maxEpoch);
  auto* epoch = textItem(epochText, Qt::AlignRight);
  if (run.lastEpoch >= 0) epoch->setData(kSortRole, double(run.lastEpoch));
  table.setItem(row, kEpochColumn, epoch);
  auto* step = textItem(
      run.lastGlobalStep >= 0 ? QString::number(run.lastGlobalStep) : QStringLiteral("\u2013"),
      Qt::AlignRight);
  if (run.lastGlobalStep >= 0) step->setData(kSortRole, double(run.lastGlobalStep));
  table.setItem(row, kStepColumn, step);

  for (int p = 0; p < context.parameters.size(); ++p) {
    const auto value = values.constFind(context.parameters.at(p));
    const bool present = value != values.constEnd();
    bool isNumber = false;
    const double number = present ? value->toDouble(&isNumber) : 0.0;
    auto* cell = textItem(present ? *value : QStringLiteral("\u2013"),
                          isNumber ? Qt::AlignRight : Qt::AlignLeft);
    if (isNumber) cell->setData(kSortRole, number);
    table.setItem(row, kFirstParameter + p, cell);
  }

  const std::optional<double> best = bestValue(run, context.metric, context.higher);
  auto* bestCell = textItem(best ? numberText(*best) : QString(), Qt::AlignRight);
  if (best) bestCell->setData(kSortRole, *best);
  const auto last = run.lastScalars.constFind(context.metric);
  if (last != run.lastScalars.constEnd()) bestCell->setToolTip(QObject::tr("last: %1").arg(*last));
  table.setItem(row, bestColumn, bestCell);

  const qint64 seconds = run.durationSeconds();
  auto* duration = textItem(durationText(seconds), Qt::AlignRight);
  if (seconds >= 0) duration->setData(kSortRole, double(seconds));
  if (!run.endTime.isValid() && seconds >= 0) {
    duration->setToolTip(QObject::tr("until the run's last activity"));
  }
  table.setItem(row, bestColumn + 1, duration);
  auto* strategy = textItem(strategySummary(run.project));
  strategy->setToolTip(values.value(QStringLiteral("trainer.devices")));
  table.setItem(row, bestColumn + 2, strategy);

  const auto manual = std::count_if(run.checkpoints.all.begin(), run.checkpoints.all.end(),
                                    [](const CheckpointFile& f) { return f.manual && f.exists; });
  QString count = QString::number(run.checkpoints.existingCount());
  if (manual > 0) count += QObject::tr(" (%1 manual)").arg(manual);
  auto* checkpoints = textItem(count, Qt::AlignRight);
  checkpoints->setData(kSortRole, double(run.checkpoints.existingCount()));
  checkpoints->setToolTip(checkpointsTooltip(run.checkpoints));
  table.setItem(row, bestColumn + 3, checkpoints);
  auto* started =
      textItem(run.startTime.isValid() ? run.startTime.toString("yyyy-MM-dd HH:mm") : QString());
  if (run.startTime.isValid())
    started->setData(kSortRole, double(run.startTime.toSecsSinceEpoch()));
  table.setItem(row, bestColumn + 4, started);
}

}  // namespace tbench::gui
