#include "app/gui/runview/RunCurves.h"

#include <QFileInfo>
#include <QRgb>
#include <algorithm>
#include <utility>

#include "app/gui/rundir/RunDirectoryInfo.h"
#include "app/gui/rundir/RunStats.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/Palette.h"
#include "widgets/RunSelector.h"

namespace tbench::gui {

RunCurves::RunCurves(ui::LivePlotWidget* plots, std::function<QString()> liveRunId, QObject* parent)
    : QObject(parent), plots_(plots), liveRunId_(std::move(liveRunId)) {}

qsizetype RunCurves::appendFrom(const QString& runDir, qsizetype drawn) {
  const QString id = QFileInfo(runDir).fileName();
  QString error;
  const ScalarSeries series = readScalarSeries(runDir, &error);
  if (!error.isEmpty()) emit note(tr("curves of %1: %2").arg(runDir, error));
  if (drawn == 0) {
    // The epoch axis of a past run: its steps per epoch as run.json recorded them.
    const bridge::RunStatusView status = readRunStatusFile(runDir);
    if (status.stepsPerEpoch > 0) plots_->setStepsPerEpoch(id, status.stepsPerEpoch);
  }
  if (series.size() > drawn) {
    ui::MetricPoints points;
    for (qsizetype p = drawn; p < series.size(); ++p) {
      const auto& s = series[p];
      points.append(ui::MetricPoint{id, s.name, s.step, s.epoch, 0.0, s.value});
    }
    plots_->appendPoints(points);
  }
  return std::max(drawn, series.size());
}

void RunCurves::plotSoFar(const QString& runDir) { appendFrom(runDir, 0); }

void RunCurves::showOverlays(const QStringList& runDirs) {
  QSet<QString> wanted;
  const QString liveRun = liveRunId_ ? liveRunId_() : QString();
  for (const QString& dir : runDirs) {
    const QString id = QFileInfo(dir).fileName();
    if (id == liveRun) continue;  // already live on the plots
    wanted.insert(id);
    if (overlaid_.contains(id)) continue;
    appendFrom(dir, 0);
    overlaid_.insert(id);
  }
  for (const QString& id : overlaid_) plots_->setRunVisible(id, wanted.contains(id));
}

void RunCurves::showTrials(const QStringList& runDirs, const QStringList& names) {
  QSet<QString> wanted;
  QSet<QRgb> used;  // the colours of the runs on the plots
  const QString liveRun = liveRunId_ ? liveRunId_() : QString();
  for (int i = 0; i < runDirs.size(); ++i) {
    const QString id = QFileInfo(runDirs[i]).fileName();
    if (id == liveRun) continue;  // already live on the plots
    wanted.insert(id);
    const bool first = !trialPoints_.contains(id);
    qsizetype& drawn = trialPoints_[id];
    if (first) {
      // Issue 35: two trials' curves had shared a colour (the index cycled, and ignored the
      // runs already on the plots): the first colour no run on the plots has.
      // (The run selector's chips may not show the trials just added: those are in `used`.)
      for (const ui::RunChip& chip : plots_->runSelector()->runs()) used.insert(chip.colour.rgb());
      int colour = 0;
      while (used.contains(ui::Palette::categorical(colour).rgb())) ++colour;
      used.insert(ui::Palette::categorical(colour).rgb());
      plots_->setRunAppearance(id, names.value(i, id), ui::Palette::categorical(colour));
    }
    drawn = appendFrom(runDirs[i], drawn);
    plots_->setRunVisible(id, true);
  }
  for (auto it = trialPoints_.begin(); it != trialPoints_.end(); ++it) {
    if (!wanted.contains(it.key())) plots_->setRunVisible(it.key(), false);
  }
}

void RunCurves::forget() {
  overlaid_.clear();
  trialPoints_.clear();
}

}  // namespace tbench::gui
