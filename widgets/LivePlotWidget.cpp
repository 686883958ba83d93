#include "widgets/LivePlotWidget.h"

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPageSize>
#include <QPdfWriter>
#include <QScrollArea>
#include <QVBoxLayout>

#include "widgets/ChartGrouping.h"
#include "widgets/ChartPanel.h"
#include "widgets/EmaSmoother.h"
#include "widgets/MetricChart.h"
#include "widgets/Palette.h"
#include "widgets/PlotControls.h"
#include "widgets/RunSelector.h"
#include "widgets/SeriesCsvWriter.h"
#include "widgets/SeriesPalette.h"

namespace tbench::ui {

namespace {
constexpr int kPrimaryMinimumHeight = 220;
constexpr int kMinSecondaryHeight = 100;
constexpr int kComfortableSecondaryHeight = 140;  // what a row gets if the height allows
constexpr int kMaxSecondaryHeight = 220;
constexpr int kSpacing = 6;
constexpr int kDataBoundWindow = 3;  // the latest fullness values the verdict averages
}  // namespace

LivePlotWidget::LivePlotWidget(QWidget* parent) : QWidget(parent) {
  store_.setSmoothingWeight(smoothingWeight_);
  controls_ = new PlotControls(this);
  controls_->setSmoothingWeight(smoothingWeight_);
  chartArea_ = new QWidget;
  areaLayout_ = new QVBoxLayout(chartArea_);
  areaLayout_->setContentsMargins(4, 4, 4, 4);
  areaLayout_->setSpacing(kSpacing);
  strip_ = new QWidget(chartArea_);
  stripGrid_ = new QGridLayout(strip_);
  stripGrid_->setContentsMargins(0, 0, 0, 0);
  stripGrid_->setSpacing(kSpacing);
  scroll_ = new QScrollArea(this);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setWidget(chartArea_);
  emptyHint_ = new QLabel(chartArea_);
  emptyHint_->setObjectName("emptyHint");
  emptyHint_->setAlignment(Qt::AlignCenter);
  emptyHint_->setWordWrap(true);
  emptyHint_->setStyleSheet(Palette::mutedText() + QStringLiteral(" font-size: 13pt;"));
  emptyHint_->setText(tr("No curves yet: every scalar of a run is plotted here as it arrives."));
  areaLayout_->addWidget(emptyHint_, 1);
  areaLayout_->addWidget(strip_);
  areaLayout_->addStretch(0);  // takes the room a collapsed primary chart leaves
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  runSelector_ = new RunSelector(this);
  layout->addWidget(controls_);
  layout->addWidget(runSelector_);
  layout->addWidget(scroll_, 1);

  flushTimer_.setSingleShot(true);
  flushTimer_.setInterval(kCoalesceMs);
  connect(&flushTimer_, &QTimer::timeout, this, &LivePlotWidget::flush);

  connect(controls_, &PlotControls::smoothingWeightChanged, this,
          &LivePlotWidget::setSmoothingWeight);
  connect(controls_, &PlotControls::xAxisModeChanged, this, &LivePlotWidget::setXAxisMode);
  connect(controls_, &PlotControls::logYToggled, this, &LivePlotWidget::setLogY);
  connect(controls_, &PlotControls::fitRequested, this, &LivePlotWidget::fitAll);
  connect(runSelector_, &RunSelector::runToggled, this, &LivePlotWidget::setRunShown);
  connect(controls_, &PlotControls::exportPngRequested, this, [this] {
    askAndExport(tr("Export charts as PNG"), tr("PNG image (*.png)"), ".png",
                 [this](const QString& path) { return exportPng(path); });
  });
  connect(controls_, &PlotControls::exportPdfRequested, this, [this] {
    askAndExport(tr("Export charts as PDF"), tr("PDF document (*.pdf)"), ".pdf",
                 [this](const QString& path) { return exportPdf(path); });
  });
  connect(controls_, &PlotControls::exportCsvRequested, this, [this] {
    askAndExport(tr("Export series as CSV"), tr("CSV file (*.csv)"), ".csv",
                 [this](const QString& path) { return exportCsv(path); });
  });
}

LivePlotWidget::~LivePlotWidget() = default;

void LivePlotWidget::appendPoints(const MetricPoints& points) {
  if (points.isEmpty()) return;
  for (const SeriesKey& key : store_.append(points)) {
    if (MetricChart* chart = chartOfKey_.value(key)) {
      dirty_.insert(chart);
    } else if (!newKeySet_.contains(key) && !uncharted_.contains(key)) {
      newKeySet_.insert(key);
      newKeys_.append(key);
    }
  }
  for (MetricChart* chart : std::as_const(heldCharts_)) dirty_.insert(chart);  // lines grow
  scheduleFlush();
}

void LivePlotWidget::scheduleFlush() {
  // Not restarted by later appends: a steady stream still gets a replot every interval.
  if (!flushTimer_.isActive()) flushTimer_.start();
}

void LivePlotWidget::flush() {
  flushTimer_.stop();
  QElapsedTimer elapsed;
  elapsed.start();
  if (smoothingPending_) {
    smoothingPending_ = false;
    store_.setSmoothingWeight(smoothingWeight_);
    for (ChartPanel* panel : std::as_const(panels_)) panel->chart()->invalidateSmoothing();
    markAllDirty();
  }
  for (const SeriesKey& key : newKeys_) {
    if (!store_.series(key)) continue;  // its run was cleared meanwhile
    const ChartPlacement placement = ChartGrouping::placementFor(key.name);
    if (!placement.supersededBy.isEmpty() && store_.series({key.run, placement.supersededBy})) {
      uncharted_.insert(key);  // the engine puts the better scalar first, in the same burst
      continue;
    }
    MetricChart* chart = chartFor(placement);
    chart->addSeries(key, placement);
    chart->setRunVisible(key.run, isRunVisible(key.run));
    if (chart->hasHeldValues()) heldCharts_.insert(chart);
    chartOfKey_.insert(key, chart);
    dirty_.insert(chart);
  }
  if (!newKeys_.isEmpty()) restyleAll();  // new names or runs change colours and legends
  newKeys_.clear();
  newKeySet_.clear();
  for (ChartPanel* panel : std::as_const(panels_)) {
    if (!dirty_.contains(panel->chart())) continue;
    panel->chart()->sync();
    panel->chart()->replot();
    updateBadge(panel);
  }
  dirty_.clear();
  ++replotCount_;
  lastFlushMs_ = elapsed.nsecsElapsed() / 1e6;
  flushTimer_.setInterval(
      std::clamp(int(std::ceil(lastFlushMs_ * kReplotBudgetFactor)), kCoalesceMs, kMaxCoalesceMs));
  emit replotted();
}

MetricChart* LivePlotWidget::chartFor(const ChartPlacement& placement) {
  if (MetricChart* existing = chart(placement.chart)) return existing;
  auto* chart = new MetricChart(placement.chart, store_);
  chart->setXAxisMode(xMode_);
  chart->setLogY(logY_ || placement.logYByDefault);
  auto* panel = new ChartPanel(chart, chartArea_);
  connect(panel, &ChartPanel::enlargeToggled, this,
          [this](ChartPanel* p) { setEnlargedPanel(enlarged_ == p ? nullptr : p); });
  connect(panel, &ChartPanel::collapsedChanged, this, [this] { updateSecondaryHeights(); });
  if (placement.primary)
    panels_.prepend(panel);
  else
    panels_.append(panel);
  relayoutCharts();
  return chart;
}

void LivePlotWidget::setEmptyText(const QString& text) { emptyHint_->setText(text); }

void LivePlotWidget::setEnlargedPanel(ChartPanel* panel) {
  if (panel && !panels_.contains(panel)) return;
  if (enlarged_) enlarged_->setEnlarged(false);
  enlarged_ = panel;
  if (enlarged_) enlarged_->setEnlarged(true);
  relayoutCharts();
}

int LivePlotWidget::columnsFor(int width) const {
  const int secondaries = std::max(1, int(panels_.size()) - 1);
  const int fit = std::max(1, (width + kSpacing) / (kMinSecondaryWidth + kSpacing));
  return std::min({fit, kMaxSecondaryColumns, secondaries});
}

void LivePlotWidget::relayoutCharts() {
  emptyHint_->setVisible(panels_.isEmpty());
  for (ChartPanel* panel : std::as_const(panels_)) {
    areaLayout_->removeWidget(panel);
    stripGrid_->removeWidget(panel);
  }
  secondaryColumns_ = columnsFor(scroll_->viewport()->width());
  for (int i = 0; i < panels_.size(); ++i) {
    ChartPanel* panel = panels_[i];
    if (enlarged_) {
      panel->setVisible(panel == enlarged_);
      if (panel == enlarged_) areaLayout_->insertWidget(1, panel, 1);
    } else if (i == 0) {
      areaLayout_->insertWidget(1, panel, 1);
      panel->show();
    } else {
      const int slot = i - 1;
      stripGrid_->addWidget(panel, slot / secondaryColumns_, slot % secondaryColumns_);
      panel->show();
    }
  }
  for (int c = 0; c < kMaxSecondaryColumns; ++c)
    stripGrid_->setColumnStretch(c, c < secondaryColumns_ ? 1 : 0);
  strip_->setVisible(!enlarged_ && panels_.size() > 1);
  updateSecondaryHeights();
}

void LivePlotWidget::updateSecondaryHeights() {
  const int secondaries = int(panels_.size()) - 1;
  const int rows = secondaries > 0 ? (secondaries + secondaryColumns_ - 1) / secondaryColumns_ : 1;
  const int available = scroll_->viewport()->height() - 8;
  // The strip's share of the height, but never so much that the area would have to scroll.
  const int share = int(available * kSecondaryShare) / rows - kSpacing;
  const int fit = (available - kPrimaryMinimumHeight) / rows - kSpacing;
  const int rowHeight = std::clamp(std::min(std::max(share, kComfortableSecondaryHeight), fit),
                                   kMinSecondaryHeight, kMaxSecondaryHeight);
  for (int i = 0; i < panels_.size(); ++i) {
    ChartPanel* panel = panels_[i];
    if (panel == enlarged_) {
      panel->setMinimumHeight(0);
      panel->setMaximumHeight(QWIDGETSIZE_MAX);
    } else if (panel->isCollapsed()) {
      panel->setFixedHeight(panel->headerHeight());
    } else if (i == 0) {
      panel->setMinimumHeight(kPrimaryMinimumHeight);
      panel->setMaximumHeight(QWIDGETSIZE_MAX);
    } else {
      panel->setFixedHeight(rowHeight);
    }
  }
}

void LivePlotWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (columnsFor(scroll_->viewport()->width()) != secondaryColumns_)
    relayoutCharts();
  else
    updateSecondaryHeights();
}

void LivePlotWidget::updateBadge(ChartPanel* panel) {
  // The verdict reads the newest visible run (the live one while training).
  const Series* latest = nullptr;
  for (const SeriesKey& key : panel->chart()->seriesKeys())
    if (isRunVisible(key.run) && ChartGrouping::placementFor(key.name).dataBoundSignal)
      latest = store_.series(key);
  if (!latest || latest->size() == 0) return;
  const int n = latest->size(), from = std::max(0, n - kDataBoundWindow);
  double sum = 0;
  for (int i = from; i < n; ++i) sum += latest->value(i);
  const double fullness = sum / double(n - from);
  const QString percent = QString::number(qRound(fullness * 100.0)) + QLatin1Char('%');
  if (fullness < kDataBoundFullness)
    panel->setBadge(tr("data-bound"),
                    tr("The input queue is %1 full on average: training waits for data. Speed "
                       "up the input pipeline (more workers, prefetching, caching).")
                        .arg(percent),
                    true);
  else
    panel->setBadge(tr("keeps up"),
                    tr("The input queue is %1 full on average: the model, not the data, sets "
                       "the pace.")
                        .arg(percent),
                    false);
}

void LivePlotWidget::markAllDirty() {
  for (ChartPanel* panel : std::as_const(panels_)) dirty_.insert(panel->chart());
}

void LivePlotWidget::restyleAll() {
  QHash<QString, QColor> colours;
  QHash<QString, QString> names;
  for (auto it = appearance_.begin(); it != appearance_.end(); ++it) {
    if (it->colour.isValid()) colours.insert(it.key(), it->colour);
    if (!it->name.isEmpty()) names.insert(it.key(), it->name);
  }
  for (ChartPanel* panel : std::as_const(panels_)) {
    panel->chart()->restyle(store_.runs(), colours, names);
  }
  updateRunSelector();
}

void LivePlotWidget::updateRunSelector() {
  QVector<RunChip> chips;
  const QStringList runs = store_.runs();
  for (int i = 0; i < runs.size(); ++i) {
    const QString& run = runs.at(i);
    if (hiddenRuns_.contains(run)) continue;
    const Appearance look = appearance_.value(run);
    chips.append(RunChip{run, look.name.isEmpty() ? run : look.name,
                         look.colour.isValid() ? look.colour : SeriesPalette::colour(i),
                         !mutedRuns_.contains(run), run == liveRun_});
  }
  const auto same = [](const RunChip& a, const RunChip& b) {
    return a.run == b.run && a.name == b.name && a.colour == b.colour && a.shown == b.shown &&
           a.live == b.live;
  };
  const QVector<RunChip>& shown = runSelector_->runs();
  if (shown.size() == chips.size() && std::equal(chips.begin(), chips.end(), shown.begin(), same)) {
    return;
  }
  runSelector_->setRuns(chips);
}

void LivePlotWidget::applyRunVisibility(const QString& run) {
  const bool visible = isRunVisible(run);
  for (ChartPanel* panel : std::as_const(panels_)) panel->chart()->setRunVisible(run, visible);
  restyleAll();
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::setRunShown(const QString& run, bool shown) {
  if (shown == !mutedRuns_.contains(run)) return;
  if (shown)
    mutedRuns_.remove(run);
  else
    mutedRuns_.insert(run);
  applyRunVisibility(run);
}

void LivePlotWidget::setRunAppearance(const QString& run, const QString& name,
                                      const QColor& colour) {
  const Appearance old = appearance_.value(run);
  if (appearance_.contains(run) && old.name == name && old.colour == colour) return;
  appearance_.insert(run, Appearance{name, colour});
  restyleAll();
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::setRunAppearances(const QHash<QString, QPair<QString, QColor>>& looks) {
  bool changed = false;
  for (auto it = looks.begin(); it != looks.end(); ++it) {
    const auto old = appearance_.constFind(it.key());
    if (old != appearance_.constEnd() && old->name == it->first && old->colour == it->second) {
      continue;
    }
    appearance_.insert(it.key(), Appearance{it->first, it->second});
    changed = true;
  }
  if (!changed) return;
  restyleAll();
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::setLiveRun(const QString& run) {
  if (run == liveRun_) return;
  liveRun_ = run;
  updateRunSelector();
}

void LivePlotWidget::setSmoothingWeight(double weight) {
  weight = EmaSmoother::clampWeight(weight);
  if (weight == smoothingWeight_ && !smoothingPending_) return;
  smoothingWeight_ = weight;
  smoothingPending_ = weight != store_.smoothingWeight();
  controls_->setSmoothingWeight(weight);
  // Dragging the slider emits many values; the timer recomputes only the last one.
  if (smoothingPending_) scheduleFlush();
}

void LivePlotWidget::setXAxisMode(XAxisMode mode) {
  if (mode == xMode_) return;
  xMode_ = mode;
  controls_->setXAxisMode(mode);
  for (ChartPanel* panel : std::as_const(panels_)) panel->chart()->setXAxisMode(mode);
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::setLogY(bool on) {
  logY_ = on;
  controls_->setLogY(on);
  for (ChartPanel* panel : std::as_const(panels_)) panel->chart()->setLogY(on);
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::fitAll() {
  for (ChartPanel* panel : std::as_const(panels_)) panel->chart()->fit();
}

void LivePlotWidget::setRunVisible(const QString& run, bool visible) {
  if (visible == !hiddenRuns_.contains(run)) return;
  if (visible) {
    hiddenRuns_.remove(run);
  } else {
    hiddenRuns_.insert(run);
    mutedRuns_.remove(run);  // overlaid again later, it comes back shown
  }
  applyRunVisibility(run);
}

void LivePlotWidget::setStepsPerEpoch(const QString& run, qint64 steps) {
  store_.setStepsPerEpoch(run, steps);
  if (xMode_ == XAxisMode::Epoch) {
    markAllDirty();
    scheduleFlush();
  }
}

void LivePlotWidget::clear() {
  flushTimer_.stop();
  enlarged_ = nullptr;
  qDeleteAll(panels_);
  panels_.clear();
  chartOfKey_.clear();
  uncharted_.clear();
  heldCharts_.clear();
  newKeys_.clear();
  newKeySet_.clear();
  dirty_.clear();
  hiddenRuns_.clear();
  mutedRuns_.clear();
  store_.clear();
  updateRunSelector();
  relayoutCharts();
}

QStringList LivePlotWidget::chartTitles() const {
  QStringList titles;
  for (const ChartPanel* panel : panels_) titles.append(panel->title());
  return titles;
}

MetricChart* LivePlotWidget::chart(const QString& title) const {
  ChartPanel* found = panel(title);
  return found ? found->chart() : nullptr;
}

ChartPanel* LivePlotWidget::panel(const QString& title) const {
  for (ChartPanel* panel : panels_)
    if (panel->title() == title) return panel;
  return nullptr;
}

bool LivePlotWidget::exportPng(const QString& path) {
  flush();
  return chartArea_->grab().save(path, "PNG");
}

bool LivePlotWidget::exportPdf(const QString& path) {
  flush();
  if (panels_.isEmpty()) return false;
  QPdfWriter writer(path);
  writer.setResolution(72);  // one pixel of the chart = one PDF point
  writer.setPageMargins(QMarginsF(0, 0, 0, 0));
  writer.setTitle(tr("Towerbench live plots"));
  const QSize first = panels_.first()->chart()->plot()->size();
  writer.setPageSize(QPageSize(QSizeF(first), QPageSize::Point));
  QCPPainter painter;
  if (!painter.begin(&writer)) return false;
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  for (int i = 0; i < panels_.size(); ++i) {
    QCustomPlot* plot = panels_[i]->chart()->plot();
    if (i > 0) {
      writer.setPageSize(QPageSize(QSizeF(plot->size()), QPageSize::Point));
      writer.newPage();
    }
    plot->toPainter(&painter, plot->width(), plot->height());
  }
  return painter.end();
}

bool LivePlotWidget::exportCsv(const QString& path, QString* error) const {
  QVector<SeriesKey> keys;
  for (const SeriesKey& key : store_.keys())
    if (isRunVisible(key.run)) keys.append(key);
  return SeriesCsvWriter::writeFile(path, store_, keys, error);
}

void LivePlotWidget::askAndExport(const QString& caption, const QString& filter,
                                  const QString& suffix,
                                  const std::function<bool(const QString&)>& exporter) {
  const QString path =
      QFileDialog::getSaveFileName(this, caption, QStringLiteral("liveplots") + suffix, filter);
  if (path.isEmpty()) return;
  if (!exporter(path)) QMessageBox::warning(this, caption, tr("Could not write %1.").arg(path));
}

}  // namespace tbench::ui
