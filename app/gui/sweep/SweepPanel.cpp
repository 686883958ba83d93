#include "app/gui/sweep/SweepPanel.h"

#include <signal.h>

#include <qcustomplot.h>

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMouseEvent>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "widgets/Palette.h"

namespace tbench::gui {
namespace {

/// A cell that sorts by its number (a missing one after every number), showing `text` when
/// there is no number.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, const QString& text) : value_(value) {
    setData(Qt::DisplayRole, std::isfinite(value) ? QVariant(value) : QVariant(text));
    if (!text.isEmpty() && std::isfinite(value)) setData(Qt::ToolTipRole, text);
    setFlags(flags() & ~Qt::ItemIsEditable);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const auto* o = dynamic_cast<const NumberItem*>(&other);
    if (o == nullptr) return QTableWidgetItem::operator<(other);
    const double a = std::isfinite(value_) ? value_ : HUGE_VAL;
    const double b = std::isfinite(o->value_) ? o->value_ : HUGE_VAL;
    return a < b;
  }

 private:
  double value_;
};

QTableWidgetItem* numberItem(double value, const QString& text) {
  return new NumberItem(value, text);
}

QTableWidgetItem* textItem(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(item->flags() & ~Qt::ItemIsEditable);
  return item;
}

QString valueText(const QJsonValue& v) {
  if (v.isDouble()) return QString::number(v.toDouble(), 'g', 6);
  if (v.isString()) return v.toString();
  return QString::fromUtf8(
      QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1));
}

double lastMetric(const bridge::SweepTrialView& t) {
  return t.metric.isEmpty() ? std::nan("") : t.metric.back();
}

}  // namespace

SweepPanel::SweepPanel(bridge::SweepStateReader reader, bridge::SweepPauser pauser, QWidget* parent)
    : QWidget(parent), reader_(std::move(reader)), pauser_(std::move(pauser)) {
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
  table_ = new QTableWidget(this);
  table_->setObjectName("sweep.table");
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);  // Run Next acts on one trial
  table_->verticalHeader()->hide();
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("sweep.coordinates");
  plot_->setMinimumSize(320, 200);
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
  rightLayout->addWidget(plot_, 1);
  rightLayout->addWidget(importanceNote_);
  rightLayout->addWidget(importance_);
  split->addWidget(table_);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connect(continue_, &QPushButton::clicked, this, [this] {
    if (!state_.sweepFile.isEmpty()) emit continueSweep(state_.sweepFile, sweepDir_);
  });
  connect(openBest_, &QPushButton::clicked, this, [this] {
    const int best = bestTrial();
    if (best >= 0) emit openTrialAsProject(state_.trials.at(best).runDir);
  });
  connect(stop_, &QPushButton::clicked, this, &SweepPanel::stop);
  connect(pause_, &QPushButton::toggled, this, [this](bool down) {
    if (sweepDir_.isEmpty() || !pauser_ || down == state_.paused) return;
    QString error;
    if (!pauser_(sweepDir_, down, &error)) emit logLines({tr("cannot pause: %1").arg(error)});
    refresh();
  });
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const int index = table_->item(row, 0)->data(Qt::DisplayRole).toInt();
    for (const auto& t : state_.trials) {
      if (t.index == index) emit openTrialAsProject(t.runDir);
    }
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &SweepPanel::updateTrialButtons);
  const auto request = [this](const bridge::SweepTrialRequest& ask, const QString& what) {
    const int trial = selectedTrial();
    if (trial < 0 || !ask) return;
    QString error;
    if (!ask(sweepDir_, state_.trials[trial].index, &error)) {
      emit logLines(
          {tr("cannot %1 trial %2: %3").arg(what).arg(state_.trials[trial].index).arg(error)});
    } else {
      emit logLines(
          {tr("asked the queue to %1 trial %2").arg(what).arg(state_.trials[trial].index)});
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
  plot_->setToolTip(
      tr("Drag along an axis to keep the trials in that range; click an axis to "
         "clear its range, double-click to clear all"));
  connect(plot_, &QCustomPlot::mousePress, this, &SweepPanel::onPlotPress);
  connect(plot_, &QCustomPlot::mouseMove, this, &SweepPanel::onPlotMove);
  connect(plot_, &QCustomPlot::mouseRelease, this, &SweepPanel::onPlotRelease);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { clearBrush(); });
  timer_.setInterval(kPollMs);
  connect(&timer_, &QTimer::timeout, this, &SweepPanel::refresh);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyReadStandardOutput, this, &SweepPanel::readOutput);
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    readOutput();
    stop_->setEnabled(false);
    refresh();
    timer_.stop();
    emit finished(status == QProcess::NormalExit ? code : 128 + 9);
  });
}

SweepPanel::~SweepPanel() {
  process_->blockSignals(true);
  // Kept running (the window asked): the queue goes on alone; its QProcess is left undeleted
  // so that nothing kills it. Otherwise it is stopped as Stop Sweep does, so that no trial is
  // left recorded running with nobody to record its end.
  if (keepRunning_ && isRunning()) return;
  stopAndWait(10000);
  delete process_;
}

bool SweepPanel::stopAndWait(int ms) {
  if (!isRunning()) return true;
  process_->terminate();
  return process_->waitForFinished(ms);
}

void SweepPanel::showSweep(const QString& sweepDir) {
  if (isRunning() && QDir(sweepDir).absolutePath() != sweepDir_) {
    emit logLines({tr("a sweep is running in the Sweeps tab: stop it before showing another")});
    return;
  }
  if (QDir(sweepDir).absolutePath() != sweepDir_) brushes_.clear();  // another sweep's axes
  sweepDir_ = QDir(sweepDir).absolutePath();
  refresh();
  timer_.start();
}

bool SweepPanel::runSweep(const QString& cli, const QString& sweepFile, const QString& sweepDir,
                          QString* error) {
  if (isRunning()) {
    if (error) *error = tr("a sweep is running in this panel");
    return false;
  }
  const QStringList args = {"sweep", sweepFile, "--sweep-dir", sweepDir};
  emit logLines({QStringLiteral("$ %1 %2").arg(cli, args.join(' '))});
  partial_.clear();
  if (QDir(sweepDir).absolutePath() != sweepDir_) brushes_.clear();  // another sweep's axes
  sweepDir_ = QDir(sweepDir).absolutePath();  // the one this panel follows from now on
  process_->start(cli, args);
  if (!process_->waitForStarted(10000)) {
    if (error) *error = tr("cannot start %1: %2").arg(cli, process_->errorString());
    return false;
  }
  stop_->setEnabled(true);
  showSweep(sweepDir);
  return true;
}

void SweepPanel::stop() {
  if (isRunning()) {
    process_->terminate();  // the queue cancels its trials, each at a step
  } else if (state_.queuePid > 0) {
    // A queue outside this window (the CLI, or a window closed with "keep it running"): the
    // same signal as Ctrl-C.
    ::kill(static_cast<pid_t>(state_.queuePid), SIGTERM);
    emit logLines({tr("asked the sweep's queue (pid %1) to stop").arg(state_.queuePid)});
  }
}

void SweepPanel::readOutput() {
  partial_ += process_->readAllStandardOutput();
  const qsizetype end = partial_.lastIndexOf('\n');
  if (end < 0) return;
  const QStringList lines = QString::fromUtf8(partial_.left(end)).split('\n');
  partial_ = partial_.mid(end + 1);
  emit logLines(lines);
}

int SweepPanel::bestTrial() const {
  // The engine's ranking (rankTrials): a trial that ran to its end outranks a pruned one.
  return state_.bestTrial >= 0 && state_.bestTrial < state_.trials.size()
             ? static_cast<int>(state_.bestTrial)
             : -1;
}

void SweepPanel::fillImportance() {
  importance_->setRowCount(state_.importance.size());
  for (int row = 0; row < state_.importance.size(); ++row) {
    const auto& p = state_.importance[row];
    importance_->setItem(row, 0, textItem(p.path));
    auto* imp = textItem(QString::number(p.importance, 'f', 3));
    imp->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    importance_->setItem(row, 1, imp);
    auto* corr = textItem(QString::asprintf("%+.3f", p.correlation));
    corr->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    // W&B's colours: a positive correlation green, a negative one red.
    corr->setForeground(p.correlation >= 0 ? ui::Palette::good() : ui::Palette::error());
    importance_->setItem(row, 2, corr);
  }
  importance_->resizeColumnsToContents();
  importanceNote_->setText(state_.importance.isEmpty()
                               ? tr("Parameter importance: after 3 trials with a result.")
                               : tr("Importance for %1 (random forest) and correlation:")
                                     .arg(state_.metric.toHtmlEscaped()));
}

void SweepPanel::refresh() {
  if (sweepDir_.isEmpty() || !reader_) return;
  state_ = reader_(sweepDir_);
  if (!state_.present) {
    summary_->setText(tr("%1: no sweep-state.json yet").arg(QDir::toNativeSeparators(sweepDir_)));
    return;
  }
  if (!state_.error.isEmpty()) {
    summary_->setText(state_.error);
    return;
  }
  std::map<QString, int> counts;
  for (const auto& t : state_.trials) ++counts[t.state];
  QStringList parts;
  for (const auto& [state, n] : counts) parts << QStringLiteral("%1 %2").arg(n).arg(state);
  const int best = bestTrial();
  summary_->setText(
      tr("<b>%1</b> (%2): %3 trials, %4. %5")
          .arg(state_.sweepId.toHtmlEscaped(), QDir::toNativeSeparators(sweepDir_).toHtmlEscaped())
          .arg(state_.trials.size())
          .arg(parts.join(", ") + (state_.paused ? tr(" (paused)") : QString()))
          .arg(best < 0 ? QString()
                        : tr("Best: trial %1, %2 %3.")
                              .arg(state_.trials[best].index)
                              .arg(state_.metric)
                              .arg(lastMetric(state_.trials[best]), 0, 'g', 4)));
  openBest_->setEnabled(best >= 0);
  // Not running anywhere, with trials left: Continue runs the sweep file again, which adopts
  // the trials still alive, records those gone, and starts the pending ones.
  const bool left = std::any_of(state_.trials.begin(), state_.trials.end(), [](const auto& t) {
    // A trial the stopped sweep never started runs when continued; not one cancelled on
    // request or left by metric.target (they say why in their detail).
    return t.state == QLatin1String("pending") || t.state == QLatin1String("running") ||
           (t.state == QLatin1String("cancelled") && t.started == 0 && t.detail.isEmpty());
  });
  const bool queueHere = isRunning() || state_.queuePid > 0;
  {
    int ended = 0, running = 0;
    for (const auto& t : state_.trials) {
      running += t.state == QLatin1String("running") ? 1 : 0;
      ended += t.state != QLatin1String("running") && t.state != QLatin1String("pending") ? 1 : 0;
    }
    const int total = static_cast<int>(state_.trials.size());
    emit sweepProgress(
        tr("Sweep: %1 of %2 trials ended, %3 running").arg(ended).arg(total).arg(running),
        queueHere && total > 0 ? 100 * ended / total : -1);
  }
  continue_->setVisible(!queueHere && left);
  stop_->setEnabled(queueHere);
  if (!queueHere && left) {
    summary_->setText(summary_->text() +
                      tr(" <i>Its queue is not running: Continue Sweep goes on with it.</i>"));
  } else if (!isRunning() && state_.queuePid > 0) {
    summary_->setText(
        summary_->text() +
        tr(" <i>Running outside this window (queue pid %1).</i>").arg(state_.queuePid));
  }
  const QSignalBlocker quiet(pause_);
  pause_->setChecked(state_.paused);
  fillTable();
  fillImportance();
  drawCoordinates();
  applyBrushes();
  updateTrialButtons();
  if (curves_->isChecked()) emitCurves();
  const bool busy = std::any_of(state_.trials.begin(), state_.trials.end(), [](const auto& t) {
    return t.state == QLatin1String("pending") || t.state == QLatin1String("running");
  });
  pause_->setEnabled(busy);
  if (!busy && !isRunning()) timer_.stop();
}

void SweepPanel::fillTable() {
  // The selection follows its trial, wherever the refreshed values sort it.
  const int selected = selectedTrial();
  const qint64 selectedIndex = selected < 0 ? -1 : state_.trials.value(selected).index;
  table_->setSortingEnabled(false);
  QStringList header = {tr("trial"), tr("state"), state_.metric, tr("values")};
  header << state_.parameters;
  table_->setColumnCount(header.size());
  table_->setHorizontalHeaderLabels(header);
  table_->setRowCount(state_.trials.size());
  for (int row = 0; row < state_.trials.size(); ++row) {
    const auto& t = state_.trials[row];
    table_->setItem(row, 0, numberItem(static_cast<double>(t.index), {}));
    QString state = t.state;
    if (t.state == QLatin1String("pruned")) state += tr(" at epoch %1").arg(t.prunedAt);
    if (t.processGone) state = tr("running? process gone");
    auto* stateItem = textItem(state);
    if (!t.detail.isEmpty()) stateItem->setToolTip(t.detail);
    if (t.processGone) {
      stateItem->setToolTip(
          tr("Recorded running, but its process has ended without the queue "
             "recording how: running the sweep again records its end and "
             "goes on with the pending trials."));
    }
    if (t.state == QLatin1String("failed") || t.processGone) {
      stateItem->setForeground(ui::Palette::error());
    } else if (t.state == QLatin1String("running")) {
      stateItem->setForeground(ui::Palette::active());
    }
    table_->setItem(row, 1, stateItem);
    const double metric = lastMetric(t);
    table_->setItem(row, 2, numberItem(metric, std::isfinite(metric) ? QString() : "-"));
    table_->setItem(row, 3, numberItem(static_cast<double>(t.metric.size()), {}));
    for (int p = 0; p < state_.parameters.size(); ++p) {
      const QJsonValue v = t.values.value(state_.parameters[p]);
      table_->setItem(
          row, 4 + p,
          v.isDouble() ? numberItem(v.toDouble(), valueText(v)) : textItem(valueText(v)));
    }
  }
  table_->setSortingEnabled(true);
  if (!sortedOnce_) {  // by trial at first; then as the user sorts
    table_->sortByColumn(0, Qt::AscendingOrder);
    sortedOnce_ = true;
  }
  table_->resizeColumnsToContents();
  if (selectedIndex >= 0) {
    const QSignalBlocker quiet(table_);
    for (int row = 0; row < table_->rowCount(); ++row) {
      if (table_->item(row, 0)->data(Qt::DisplayRole).toLongLong() == selectedIndex) {
        table_->selectRow(row);
      }
    }
  }
}

void SweepPanel::drawCoordinates() {
  plot_->clearPlottables();
  plot_->clearItems();
  const int axes = static_cast<int>(state_.parameters.size()) + 1;  // + the metric
  // Each axis maps its values to [0, 1]: numbers by their range (log when they span more than
  // a decade and are positive), anything else by its rank among the distinct values.
  std::vector<std::function<double(const QJsonValue&)>> scale;
  std::vector<QString> lowText, highText;
  const auto axisValues = [&](int a) {
    std::vector<QJsonValue> out;
    for (const auto& t : state_.trials) {
      if (a < axes - 1) {
        out.push_back(t.values.value(state_.parameters[a]));
      } else if (!t.metric.isEmpty() && std::isfinite(t.metric.back())) {
        out.push_back(t.metric.back());
      }
    }
    return out;
  };
  for (int a = 0; a < axes; ++a) {
    const std::vector<QJsonValue> values = axisValues(a);
    const bool numbers = !values.empty() && std::all_of(values.begin(), values.end(),
                                                        [](const auto& v) { return v.isDouble(); });
    if (numbers) {
      double lo = HUGE_VAL, hi = -HUGE_VAL;
      for (const auto& v : values) {
        lo = std::min(lo, v.toDouble());
        hi = std::max(hi, v.toDouble());
      }
      const bool log = lo > 0 && hi / lo >= 10;  // a decade or more: learning rates
      const double l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
      scale.push_back([=](const QJsonValue& v) {
        const double x = log ? std::log10(v.toDouble()) : v.toDouble();
        return h > l ? (x - l) / (h - l) : 0.5;
      });
      lowText.push_back(QString::number(lo, 'g', 3));
      highText.push_back(QString::number(hi, 'g', 3));
    } else {
      QStringList distinct;
      for (const auto& v : values) {
        if (!distinct.contains(valueText(v))) distinct << valueText(v);
      }
      distinct.sort();
      scale.push_back([=](const QJsonValue& v) {
        const auto i = distinct.indexOf(valueText(v));
        return distinct.size() > 1 ? double(i) / double(distinct.size() - 1) : 0.5;
      });
      lowText.push_back(distinct.value(0));
      highText.push_back(distinct.isEmpty() ? QString() : distinct.back());
    }
  }
  // The metric's colour: best green to worst red.
  double best = HUGE_VAL, worst = -HUGE_VAL;
  for (const auto& t : state_.trials) {
    const double m = lastMetric(t);
    if (!std::isfinite(m)) continue;
    best = std::min(best, m);
    worst = std::max(worst, m);
  }
  if (state_.maximize) std::swap(best, worst);
  positions_.assign(static_cast<size_t>(state_.trials.size()),
                    std::vector<double>(static_cast<size_t>(axes), std::nan("")));
  for (int i = 0; i < state_.trials.size(); ++i) {
    const auto& t = state_.trials[i];
    auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
    QVector<double> x, y;
    for (int a = 0; a < axes - 1; ++a) {
      x << a;
      y << scale[a](t.values.value(state_.parameters[a]));
    }
    const double m = lastMetric(t);
    if (std::isfinite(m)) {
      x << axes - 1;
      y << scale[axes - 1](QJsonValue(m));
    }
    for (int a = 0; a < x.size(); ++a) positions_[i][static_cast<size_t>(x[a])] = y[a];
    curve->setData(x, y);
    QColor colour = palette().color(QPalette::Disabled, QPalette::Text);
    if (std::isfinite(m) && best != worst) {
      const double f = std::clamp((m - best) / (worst - best), 0.0, 1.0);  // 0 best, 1 worst
      colour = QColor::fromHsvF((1.0 - f) / 3.0, 0.85, 0.8);               // green .. red
    } else if (std::isfinite(m)) {
      colour = QColor::fromHsvF(1.0 / 3.0, 0.85, 0.8);
    }
    if (!passesBrushes(i)) colour.setAlpha(40);  // brushed out: faint
    QPen pen(colour, 2);
    if (t.state == QLatin1String("pruned")) pen.setStyle(Qt::DashLine);
    curve->setPen(pen);
    curve->setName(tr("trial %1").arg(t.index));
  }
  // One vertical axis per parameter and the metric, labelled below, with their ranges.
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int a = 0; a < axes; ++a) {
    // The key's last segment ("learning_rate"); the table's columns have the whole path.
    ticker->addTick(a, (a < axes - 1 ? state_.parameters[a] : state_.metric).section('.', -1));
    auto* line = new QCPItemLine(plot_);
    line->start->setCoords(a, 0);
    line->end->setCoords(a, 1);
    line->setPen(QPen(palette().color(QPalette::Mid), 1));
    for (const bool high : {false, true}) {
      auto* label = new QCPItemText(plot_);
      label->position->setCoords(a, high ? 1.04 : -0.04);
      label->setText(high ? highText[a] : lowText[a]);
      label->setColor(palette().color(QPalette::Text));
    }
  }
  // The brushes: a band over the kept range of their axis.
  for (auto b = brushes_.begin(); b != brushes_.end(); ++b) {
    auto* band = new QCPItemRect(plot_);
    band->topLeft->setCoords(b.key() - 0.09, b.value().second);
    band->bottomRight->setCoords(b.key() + 0.09, b.value().first);
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(60);
    band->setBrush(fill);
    band->setPen(QPen(palette().color(QPalette::Highlight), 1));
  }
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setRange(-0.4, axes - 0.6);
  plot_->yAxis->setRange(-0.1, 1.1);
  plot_->yAxis->setVisible(false);
  plot_->xAxis->grid()->setVisible(false);
  plot_->replot();
}

void SweepPanel::setTrialRequests(bridge::SweepTrialRequest runNext,
                                  bridge::SweepTrialRequest cancel) {
  runNext_ = std::move(runNext);
  cancelTrial_ = std::move(cancel);
  updateTrialButtons();
}

int SweepPanel::selectedTrial() const {
  const QList<QTableWidgetItem*> selected = table_->selectedItems();
  if (selected.isEmpty()) return -1;
  const QTableWidgetItem* first = table_->item(selected.front()->row(), 0);
  if (first == nullptr) return -1;
  const qint64 index = first->data(Qt::DisplayRole).toLongLong();
  for (int i = 0; i < state_.trials.size(); ++i) {
    if (state_.trials[i].index == index) return i;
  }
  return -1;
}

void SweepPanel::updateTrialButtons() {
  const int trial = selectedTrial();
  const QString state = trial < 0 ? QString() : state_.trials[trial].state;
  runNextButton_->setEnabled(runNext_ && state == QLatin1String("pending"));
  cancelTrialButton_->setEnabled(
      cancelTrial_ && (state == QLatin1String("pending") || state == QLatin1String("running")));
}

void SweepPanel::emitCurves() {
  QStringList runDirs, names;
  for (const auto& t : state_.trials) {
    if (t.started <= 0 || t.runDir.isEmpty()) continue;  // not started: nothing to draw
    runDirs << t.runDir;
    names << tr("trial %1").arg(t.index);
  }
  emit trialCurves(runDirs, names);
}

bool SweepPanel::passesBrushes(int position) const {
  if (position < 0 || position >= static_cast<int>(positions_.size())) return true;
  for (auto b = brushes_.begin(); b != brushes_.end(); ++b) {
    const auto& at = positions_[static_cast<size_t>(position)];
    if (b.key() < 0 || b.key() >= static_cast<int>(at.size())) continue;
    const double y = at[static_cast<size_t>(b.key())];
    if (!(y >= b.value().first && y <= b.value().second)) return false;  // NaN: out
  }
  return true;
}

void SweepPanel::setBrush(int axis, double low, double high) {
  brushes_[axis] = {std::min(low, high), std::max(low, high)};
  drawCoordinates();
  applyBrushes();
}

void SweepPanel::clearBrush(int axis) {
  if (axis < 0) {
    brushes_.clear();
  } else {
    brushes_.remove(axis);
  }
  drawCoordinates();
  applyBrushes();
}

void SweepPanel::applyBrushes() {
  int shown = 0;
  for (int row = 0; row < table_->rowCount(); ++row) {
    const QTableWidgetItem* first = table_->item(row, 0);
    const qint64 index = first ? first->data(Qt::DisplayRole).toLongLong() : -1;
    int position = -1;
    for (int i = 0; i < state_.trials.size(); ++i) {
      if (state_.trials[i].index == index) position = i;
    }
    const bool keep = passesBrushes(position);
    table_->setRowHidden(row, !keep);
    shown += keep ? 1 : 0;
  }
  table_->setToolTip(brushes_.isEmpty()
                         ? QString()
                         : tr("%1 of %2 trials in the chart's brushed ranges (double-click the "
                              "chart to show all)")
                               .arg(shown)
                               .arg(table_->rowCount()));
}

void SweepPanel::onPlotPress(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || positions_.empty()) return;
  const double x = plot_->xAxis->pixelToCoord(event->position().x());
  const int axis = static_cast<int>(std::lround(x));
  const int axes = static_cast<int>(positions_.front().size());
  if (axis < 0 || axis >= axes || std::abs(x - axis) > 0.25) return;
  brushAxis_ = axis;
  brushFrom_ = plot_->yAxis->pixelToCoord(event->position().y());
}

void SweepPanel::onPlotMove(QMouseEvent* event) {
  if (brushAxis_ < 0 || !(event->buttons() & Qt::LeftButton)) return;
  const double y = plot_->yAxis->pixelToCoord(event->position().y());
  if (std::abs(plot_->yAxis->coordToPixel(brushFrom_) - event->position().y()) < 3) return;
  setBrush(brushAxis_, brushFrom_, y);
}

void SweepPanel::onPlotRelease(QMouseEvent* event) {
  if (brushAxis_ < 0) return;
  const int axis = std::exchange(brushAxis_, -1);
  if (std::abs(plot_->yAxis->coordToPixel(brushFrom_) - event->position().y()) < 3) {
    clearBrush(axis);  // a click on the axis
  } else {
    setBrush(axis, brushFrom_, plot_->yAxis->pixelToCoord(event->position().y()));
  }
}

}  // namespace tbench::gui
