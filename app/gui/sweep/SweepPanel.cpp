#include "app/gui/sweep/SweepPanel.h"

#include <qcustomplot.h>

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <utility>

#include "app/gui/sweep/SweepCoordinates.h"
#include "app/gui/sweep/SweepTrialTable.h"
#include "app/gui/sweep/TrialValues.h"
#include "widgets/Palette.h"
#include "widgets/ParallelCoordinates.h"

namespace tbench::gui {

SweepPanel::SweepPanel(bridge::SweepStateReader reader, bridge::SweepPauser pauser, QWidget* parent)
    : QWidget(parent), pauser_(std::move(pauser)), session_(std::move(reader)) {
  setObjectName("sweepPanel");
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  summary_ = new QLabel(tr("No sweep: Run ▸ Run Sweep… runs a sweep file (towerbench-cli "
                           "sweep), File ▸ Open Sweep… shows one started elsewhere."),
                        this);
  summary_->setObjectName("sweep.summary");
  summary_->setWordWrap(true);
  openBest_ = new QPushButton(tr("Open Best as Project"), this);
  openBest_->setObjectName("sweep.openBest");
  openBest_->setEnabled(false);
  continue_ = new QPushButton(tr("Continue Sweep"), this);
  continue_->setObjectName("sweep.continue");
  continue_->setToolTip(
      tr("Run the sweep file again: it adopts the trials still running, records those whose "
         "process is gone, and starts the pending ones"));
  continue_->setVisible(false);
  stop_ = new QPushButton(tr("Stop Sweep"), this);
  stop_->setObjectName("sweep.stop");
  stop_->setEnabled(false);
  pause_ = new QPushButton(tr("Pause Sweep"), this);
  pause_->setObjectName("sweep.pause");
  pause_->setCheckable(true);
  pause_->setEnabled(false);
  pause_->setToolTip(tr("No trial starts while this is down; the running ones go on"));
  runNextButton_ = new QPushButton(tr("Run Next"), this);
  runNextButton_->setObjectName("sweep.runNext");
  runNextButton_->setToolTip(tr("Start the selected pending trial before the others"));
  runNextButton_->setEnabled(false);
  cancelTrialButton_ = new QPushButton(tr("Cancel Trial"), this);
  cancelTrialButton_->setObjectName("sweep.cancelTrial");
  cancelTrialButton_->setToolTip(
      tr("Cancel the selected trial (a running one stops at its next step and keeps its "
         "checkpoints)"));
  cancelTrialButton_->setEnabled(false);
  curves_ = new QPushButton(tr("Curves on Plots"), this);
  curves_->setObjectName("sweep.curves");
  curves_->setCheckable(true);
  curves_->setToolTip(tr("Every trial that has started on the plots, one colour each"));
  // The summary on a line of its own, the buttons below it: the dock stays narrow enough for
  // the window's smaller sizes.
  layout->addWidget(summary_);
  top->addWidget(curves_);
  top->addWidget(runNextButton_);
  top->addWidget(cancelTrialButton_);
  top->addStretch(1);
  top->addWidget(openBest_);
  top->addWidget(continue_);
  top->addWidget(pause_);
  top->addWidget(stop_);
  layout->addLayout(top);

  auto* split = new QSplitter(Qt::Horizontal, this);
  table_ = new SweepTrialTable(this);
  coordinates_ = new ui::ParallelCoordinates(this);
  coordinates_->plot()->setObjectName("sweep.coordinates");
  coordinates_->plot()->setToolTip(
      tr("Drag along an axis to keep the trials in that range; click an axis to "
         "clear its range, double-click to clear all"));
  // What the sweep taught (W&B's parameter importance panel), under the parallel coordinates.
  auto* right = new QWidget(this);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  importanceNote_ = new QLabel(right);
  importanceNote_->setObjectName("sweep.importanceNote");
  importanceNote_->setWordWrap(true);
  importance_ = new QTableWidget(0, 3, right);
  importance_->setObjectName("sweep.importance");
  importance_->setHorizontalHeaderLabels({tr("parameter"), tr("importance"), tr("correlation")});
  importance_->verticalHeader()->hide();
  importance_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  importance_->setMaximumHeight(150);
  rightLayout->addWidget(coordinates_, 1);
  rightLayout->addWidget(importanceNote_);
  rightLayout->addWidget(importance_);
  split->addWidget(table_);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connect(continue_, &QPushButton::clicked, this, [this] {
    if (!state().sweepFile.isEmpty()) emit continueSweep(state().sweepFile, sweepDir());
  });
  connect(openBest_, &QPushButton::clicked, this, [this] {
    const int best = bestTrial();
    if (best >= 0) emit openTrialAsProject(state().trials.at(best).runDir);
  });
  connect(stop_, &QPushButton::clicked, this, &SweepPanel::stop);
  connect(pause_, &QPushButton::toggled, this, [this](bool down) {
    if (sweepDir().isEmpty() || !pauser_ || down == state().paused) return;
    QString error;
    if (!pauser_(sweepDir(), down, &error)) emit logLines({tr("cannot pause: %1").arg(error)});
    refresh();
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const int trial = positionOf(table_->trialAt(row));
    if (trial >= 0) emit openTrialAsProject(state().trials[trial].runDir);
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &SweepPanel::updateTrialButtons);
  const auto request = [this](const bridge::SweepTrialRequest& ask, const QString& what) {
    const int trial = selectedTrial();
    if (trial < 0 || !ask) return;
    const qint64 index = state().trials[trial].index;
    QString error;
    if (!ask(sweepDir(), index, &error)) {
      emit logLines({tr("cannot %1 trial %2: %3").arg(what).arg(index).arg(error)});
    } else {
      emit logLines({tr("asked the queue to %1 trial %2").arg(what).arg(index)});
    }
  };
  connect(runNextButton_, &QPushButton::clicked, this,
          [this, request] { request(runNext_, tr("start next")); });
  connect(cancelTrialButton_, &QPushButton::clicked, this,
          [this, request] { request(cancelTrial_, tr("cancel")); });
  connect(curves_, &QPushButton::toggled, this, [this](bool down) {
    if (down) {
      emitCurves();
    } else {
      emit trialCurves({}, {});
    }
  });
  connect(coordinates_, &ui::ParallelCoordinates::brushesChanged, this, &SweepPanel::applyBrushes);
  connect(&session_, &SweepSession::logLines, this, &SweepPanel::logLines);
  connect(&session_, &SweepSession::finished, this, &SweepPanel::finished);
  connect(&session_, &SweepSession::progress, this, &SweepPanel::sweepProgress);
  connect(&session_, &SweepSession::stateChanged, this, &SweepPanel::showState);
  connect(&session_, &SweepSession::runningChanged, stop_, &QPushButton::setEnabled);
  // Another sweep's axes: its brushes mean nothing here.
  connect(&session_, &SweepSession::sweepDirChanged, this, [this] { coordinates_->clearBrush(); });
}

void SweepPanel::setBrush(int axis, double low, double high) {
  coordinates_->setBrush(axis, low, high);
}

void SweepPanel::clearBrush(int axis) { coordinates_->clearBrush(axis); }

const QMap<int, QPair<double, double>>& SweepPanel::brushes() const {
  return coordinates_->brushes();
}

bool SweepPanel::passesBrushes(int position) const { return coordinates_->passes(position); }

void SweepPanel::fillImportance() {
  const auto& importance = state().importance;
  importance_->setRowCount(importance.size());
  for (int row = 0; row < importance.size(); ++row) {
    const auto& p = importance[row];
    importance_->setItem(row, 0, SweepTrialTable::readOnlyItem(p.path));
    auto* imp = SweepTrialTable::readOnlyItem(QString::number(p.importance, 'f', 3));
    imp->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    importance_->setItem(row, 1, imp);
    auto* corr = SweepTrialTable::readOnlyItem(QString::asprintf("%+.3f", p.correlation));
    corr->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    // W&B's colours: a positive correlation green, a negative one red.
    corr->setForeground(p.correlation >= 0 ? ui::Palette::good() : ui::Palette::error());
    importance_->setItem(row, 2, corr);
  }
  importance_->resizeColumnsToContents();
  importanceNote_->setText(
      state().metric.isEmpty() ? tr("Parameter importance: the sweep has no metric.")
      : importance.isEmpty()   ? tr("Parameter importance: after 3 trials with a result.")
                               : tr("Importance for %1 (random forest) and correlation:")
                                   .arg(state().metric.toHtmlEscaped()));
}

void SweepPanel::showState(const bridge::SweepStateView& state) {
  if (!state.present) {
    summary_->setText(tr("%1: no sweep-state.json yet").arg(QDir::toNativeSeparators(sweepDir())));
    return;
  }
  if (!state.error.isEmpty()) {
    summary_->setText(state.error);
    return;
  }
  std::map<bridge::TrialPhase, int> counts;  // in the order of a trial's life
  for (const auto& t : state.trials) ++counts[t.state];
  QStringList parts;
  for (const auto& [phase, n] : counts)
    parts << QStringLiteral("%1 %2").arg(n).arg(toString(phase));
  const int best = bestTrial();
  summary_->setText(
      tr("<b>%1</b> (%2): %3 trials, %4. %5")
          .arg(state.sweepId.toHtmlEscaped(), QDir::toNativeSeparators(sweepDir()).toHtmlEscaped())
          .arg(state.trials.size())
          .arg(parts.join(", ") + (state.paused ? tr(" (paused)") : QString()))
          .arg(best < 0 ? QString()
                        : tr("Best: trial %1, %2 %3.")
                              .arg(state.trials[best].index)
                              .arg(state.metric)
                              .arg(lastMetric(state.trials[best]), 0, 'g', 4)));
  openBest_->setEnabled(best >= 0);
  // Not running anywhere, with trials left: Continue runs the sweep file again, which adopts
  // the trials still alive, records those gone, and starts the pending ones.
  const bool left = std::any_of(state.trials.begin(), state.trials.end(), [](const auto& t) {
    // A trial the stopped sweep never started runs when continued; not one cancelled on
    // request or left by metric.target (they say why in their detail).
    return isActive(t.state) ||
           (t.state == bridge::TrialPhase::Cancelled && t.started == 0 && t.detail.isEmpty());
  });
  const bool queueHere = session_.queueRuns();
  continue_->setVisible(!queueHere && left);
  stop_->setEnabled(queueHere);
  if (!queueHere && left) {
    summary_->setText(summary_->text() +
                      tr(" <i>Its queue is not running: Continue Sweep goes on with it.</i>"));
  } else if (!isRunning() && state.queuePid > 0) {
    summary_->setText(
        summary_->text() +
        tr(" <i>Running outside this window (queue pid %1).</i>").arg(state.queuePid));
  }
  const QSignalBlocker quiet(pause_);
  pause_->setChecked(state.paused);
  table_->fill(state);
  fillImportance();
  const SweepCoordinates chart = SweepCoordinates::of(state);
  coordinates_->setChart(chart.axes, chart.lines);
  applyBrushes();
  updateTrialButtons();
  if (curves_->isChecked()) emitCurves();
  pause_->setEnabled(session_.busy());
}

void SweepPanel::setTrialRequests(bridge::SweepTrialRequest runNext,
                                  bridge::SweepTrialRequest cancel) {
  runNext_ = std::move(runNext);
  cancelTrial_ = std::move(cancel);
  updateTrialButtons();
}

int SweepPanel::selectedTrial() const { return positionOf(table_->selectedTrial()); }

int SweepPanel::positionOf(qint64 trial) const {
  for (int i = 0; i < state().trials.size(); ++i) {
    if (state().trials[i].index == trial) return i;
  }
  return -1;
}

void SweepPanel::updateTrialButtons() {
  const int trial = selectedTrial();
  const bool selected = trial >= 0;
  const bridge::TrialPhase phase = selected ? state().trials[trial].state : bridge::TrialPhase{};
  runNextButton_->setEnabled(runNext_ && selected && phase == bridge::TrialPhase::Pending);
  cancelTrialButton_->setEnabled(cancelTrial_ && selected && isActive(phase));
}

void SweepPanel::emitCurves() {
  QStringList runDirs, names;
  for (const auto& t : state().trials) {
    if (t.started <= 0 || t.runDir.isEmpty()) continue;  // not started: nothing to draw
    runDirs << t.runDir;
    names << tr("trial %1").arg(t.index);
  }
  emit trialCurves(runDirs, names);
}

void SweepPanel::applyBrushes() {
  table_->showOnly([this](qint64 trial) { return passesBrushes(positionOf(trial)); },
                   !brushes().isEmpty());
}

}  // namespace tbench::gui
