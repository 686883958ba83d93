// MetricChart: its legend (the rest is in MetricChart.cpp). One entry per visible curve, or
// per scalar while several runs show (legendKeys_); wrapped into as many columns as fit, and
// hidden when it would take more than kMaxLegendShare of the chart's height.
#include <qcustomplot.h>

#include <algorithm>

#include "widgets/MetricChart.h"

namespace tbench::ui {
namespace {

constexpr int kLegendItemMargins = 20;   // an entry's left and right margins, with slack
constexpr double kMaxLegendShare = 0.3;  // of the chart's height; a taller legend is hidden

}  // namespace

QStringList MetricChart::legendLabels() const {
  QStringList labels;
  for (int i = 0; i < plot_->legend->itemCount(); ++i) {
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot_->legend->item(i))) {
      labels << item->plottable()->name();
    }
  }
  return labels;
}

void MetricChart::rebuildLegend() {
  plot_->legend->clearItems();
  if (!legendKeys_.isEmpty()) {
    for (QCPGraph* key : std::as_const(legendKeys_)) key->addToLegend(plot_->legend);
  } else {
    for (const Curve& c : curves_)
      if (curveVisible(c)) c.smooth->addToLegend(plot_->legend);
  }
  // One curve needs no legend (the chart's title names it): the plot keeps the room. Nor does
  // a small chart with many curves (ten classes' accuracies): the legend would squeeze the
  // plot to nothing; the tooltip names the curves, and enlarged the chart has its legend.
  const bool show = plot_->legend->itemCount() > 1 && legendFits_;
  if (show == plot_->legend->visible()) return;
  plot_->legend->setVisible(show);
  if (show) {
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
  } else {
    plot_->plotLayout()->take(plot_->legend);
    plot_->plotLayout()->simplify();
  }
}

void MetricChart::updateLegendWrap() {
  // The most columns (up to kMaxLegendColumns) whose entries fit side by side; QCPLegend
  // sizes each column to its widest entry.
  const QFontMetrics metrics(plot_->legend->font());
  const QCPLegend* legend = plot_->legend;
  QVector<int> widths;
  for (const QString& label : legendLabels())
    widths.append(metrics.horizontalAdvance(label) + legend->iconSize().width() +
                  legend->iconTextPadding() + kLegendItemMargins);
  int columns = std::max(1, std::min(kMaxLegendColumns, int(widths.size())));
  for (; columns > 1; --columns) {
    int total = (columns - 1) * legend->columnSpacing() + kLegendItemMargins;
    for (int col = 0; col < columns; ++col) {
      int widest = 0;
      for (int i = col; i < widths.size(); i += columns) widest = std::max(widest, widths[i]);
      total += widest;
    }
    if (total <= width()) break;
  }
  if (columns != legend->wrap()) {
    plot_->legend->setWrap(columns);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);
  }
  const int rows = (int(widths.size()) + columns - 1) / columns;
  const bool fits = rows * (metrics.height() + 4) <= kMaxLegendShare * height();
  if (fits != legendFits_) {
    legendFits_ = fits;
    rebuildLegend();
    replot();
  }
}

}  // namespace tbench::ui
