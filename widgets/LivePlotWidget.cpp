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
#include "widgets/EmaSmoother.h"
#include "widgets/MetricChart.h"
#include "widgets/Palette.h"
#include "widgets/PlotControls.h"
#include "widgets/SeriesCsvWriter.h"

namespace tbench::ui {

namespace {
constexpr int kColumns = 2;
constexpr int kChartMinimumHeight = 300;
}  // namespace

LivePlotWidget::LivePlotWidget(QWidget* parent) : QWidget(parent) {
  store_.setSmoothingWeight(smoothingWeight_);
  controls_ = new PlotControls(this);
  controls_->setSmoothingWeight(smoothingWeight_);
  chartArea_ = new QWidget;
  grid_ = new QGridLayout(chartArea_);
  grid_->setContentsMargins(4, 4, 4, 4);
  grid_->setSpacing(6);
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
  grid_->addWidget(emptyHint_, 0, 0, 1, kColumns);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(controls_);
  layout->addWidget(scroll_, 1);

  flushTimer_.setSingleShot(true);
  flushTimer_.setInterval(kCoalesceMs);
  connect(&flushTimer_, &QTimer::timeout, this, &LivePlotWidget::flush);

  connect(controls_, &PlotControls::smoothingWeightChanged, this,
          &LivePlotWidget::setSmoothingWeight);
  connect(controls_, &PlotControls::xAxisModeChanged, this, &LivePlotWidget::setXAxisMode);
  connect(controls_, &PlotControls::logYToggled, this, &LivePlotWidget::setLogY);
  connect(controls_, &PlotControls::fitRequested, this, &LivePlotWidget::fitAll);
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
    } else if (!newKeySet_.contains(key)) {
      newKeySet_.insert(key);
      newKeys_.append(key);
    }
  }
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
    for (MetricChart* chart : charts_) chart->invalidateSmoothing();
    markAllDirty();
  }
  for (const SeriesKey& key : newKeys_) {
    if (!store_.series(key)) continue;  // its run was cleared meanwhile
    const ChartPlacement placement = ChartGrouping::placementFor(key.name);
    MetricChart* chart = chartFor(placement);
    chart->addSeries(key, placement);
    chart->setRunVisible(key.run, isRunVisible(key.run));
    chartOfKey_.insert(key, chart);
    dirty_.insert(chart);
  }
  if (!newKeys_.isEmpty()) restyleAll();  // new names or runs change colours and legends
  newKeys_.clear();
  newKeySet_.clear();
  for (MetricChart* chart : std::as_const(dirty_)) {
    chart->sync();
    chart->replot();
  }
  dirty_.clear();
  ++replotCount_;
  lastFlushMs_ = elapsed.nsecsElapsed() / 1e6;
  flushTimer_.setInterval(
      std::clamp(int(std::ceil(lastFlushMs_ * kReplotBudgetFactor)), kCoalesceMs, kMaxCoalesceMs));
  emit replotted();
}

MetricChart* LivePlotWidget::chartFor(const ChartPlacement& placement) {
  for (MetricChart* chart : std::as_const(charts_))
    if (chart->title() == placement.chart) return chart;
  auto* chart = new MetricChart(placement.chart, store_, chartArea_);
  chart->setMinimumHeight(kChartMinimumHeight);
  chart->setXAxisMode(xMode_);
  chart->setLogY(logY_ || placement.logYByDefault);
  if (placement.chart == ChartGrouping::lossAndErrorChart())
    charts_.prepend(chart);
  else
    charts_.append(chart);
  relayoutCharts();
  return chart;
}

void LivePlotWidget::setEmptyText(const QString& text) { emptyHint_->setText(text); }

void LivePlotWidget::relayoutCharts() {
  emptyHint_->setVisible(charts_.isEmpty());
  for (MetricChart* chart : std::as_const(charts_)) grid_->removeWidget(chart);
  const int n = int(charts_.size());
  for (int i = 0; i < n; ++i) {
    // Two per row; an odd last chart takes the whole row.
    const int span = (i == n - 1 && i % kColumns == 0) ? kColumns : 1;
    grid_->addWidget(charts_[i], i / kColumns, i % kColumns, 1, span);
    charts_[i]->show();
  }
  for (int c = 0; c < kColumns; ++c) grid_->setColumnStretch(c, 1);
}

void LivePlotWidget::markAllDirty() {
  for (MetricChart* chart : std::as_const(charts_)) dirty_.insert(chart);
}

void LivePlotWidget::restyleAll() {
  for (MetricChart* chart : std::as_const(charts_)) chart->restyle(store_.runs());
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
  for (MetricChart* chart : std::as_const(charts_)) chart->setXAxisMode(mode);
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::setLogY(bool on) {
  logY_ = on;
  controls_->setLogY(on);
  for (MetricChart* chart : std::as_const(charts_)) chart->setLogY(on);
  markAllDirty();
  scheduleFlush();
}

void LivePlotWidget::fitAll() {
  for (MetricChart* chart : std::as_const(charts_)) chart->fit();
}

void LivePlotWidget::setRunVisible(const QString& run, bool visible) {
  if (visible == isRunVisible(run)) return;
  if (visible)
    hiddenRuns_.remove(run);
  else
    hiddenRuns_.insert(run);
  for (MetricChart* chart : std::as_const(charts_)) chart->setRunVisible(run, visible);
  restyleAll();
  markAllDirty();
  scheduleFlush();
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
  for (MetricChart* chart : std::as_const(charts_)) {
    grid_->removeWidget(chart);
    delete chart;
  }
  charts_.clear();
  chartOfKey_.clear();
  newKeys_.clear();
  newKeySet_.clear();
  dirty_.clear();
  hiddenRuns_.clear();
  store_.clear();
  relayoutCharts();
}

QStringList LivePlotWidget::chartTitles() const {
  QStringList titles;
  for (const MetricChart* chart : charts_) titles.append(chart->title());
  return titles;
}

MetricChart* LivePlotWidget::chart(const QString& title) const {
  for (MetricChart* chart : charts_)
    if (chart->title() == title) return chart;
  return nullptr;
}

bool LivePlotWidget::exportPng(const QString& path) {
  flush();
  return chartArea_->grab().save(path, "PNG");
}

bool LivePlotWidget::exportPdf(const QString& path) {
  flush();
  if (charts_.isEmpty()) return false;
  QPdfWriter writer(path);
  writer.setResolution(72);  // one pixel of the chart = one PDF point
  writer.setPageMargins(QMarginsF(0, 0, 0, 0));
  writer.setTitle(tr("Towerbench live plots"));
  const QSize first = charts_.first()->plot()->size();
  writer.setPageSize(QPageSize(QSizeF(first), QPageSize::Point));
  QCPPainter painter;
  if (!painter.begin(&writer)) return false;
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  for (int i = 0; i < charts_.size(); ++i) {
    QCustomPlot* plot = charts_[i]->plot();
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
