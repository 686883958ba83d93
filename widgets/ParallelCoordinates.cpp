#include "widgets/ParallelCoordinates.h"

#include <qcustomplot.h>

#include <QMouseEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

namespace tbench::ui {

ParallelCoordinates::ParallelCoordinates(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumSize(320, 200);
  plot_->setToolTip(
      tr("Drag along an axis to keep the lines in that range; click an axis to clear its range, "
         "double-click to clear all"));
  connect(plot_, &QCustomPlot::mousePress, this, &ParallelCoordinates::onPress);
  connect(plot_, &QCustomPlot::mouseMove, this, &ParallelCoordinates::onMove);
  connect(plot_, &QCustomPlot::mouseRelease, this, &ParallelCoordinates::onRelease);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { clearBrush(); });
}

void ParallelCoordinates::setChart(QVector<Axis> axes, QVector<Line> lines) {
  axes_ = std::move(axes);
  lines_ = std::move(lines);
  redraw();
}

void ParallelCoordinates::setBrush(int axis, double low, double high) {
  brushes_[axis] = {std::min(low, high), std::max(low, high)};
  redraw();
  emit brushesChanged();
}

void ParallelCoordinates::clearBrush(int axis) {
  if (axis < 0) {
    brushes_.clear();
  } else {
    brushes_.remove(axis);
  }
  redraw();
  emit brushesChanged();
}

bool ParallelCoordinates::passes(int line) const {
  if (line < 0 || line >= lines_.size()) return true;
  const QVector<double>& at = lines_[line].positions;
  for (auto b = brushes_.begin(); b != brushes_.end(); ++b) {
    if (b.key() < 0 || b.key() >= at.size()) continue;
    const double y = at[b.key()];
    if (!(y >= b.value().first && y <= b.value().second)) return false;  // NaN: out
  }
  return true;
}

void ParallelCoordinates::redraw() {
  plot_->clearPlottables();
  plot_->clearItems();
  const int axes = static_cast<int>(axes_.size());
  for (int i = 0; i < lines_.size(); ++i) {
    const Line& line = lines_[i];
    auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
    QVector<double> x, y;
    for (int a = 0; a < axes && a < line.positions.size(); ++a) {
      if (std::isnan(line.positions[a])) continue;
      x << a;
      y << line.positions[a];
    }
    curve->setData(x, y);
    QColor colour =
        line.colour.isValid() ? line.colour : palette().color(QPalette::Disabled, QPalette::Text);
    if (!passes(i)) colour.setAlpha(40);  // brushed out: faint
    QPen pen(colour, 2);
    if (line.dashed) pen.setStyle(Qt::DashLine);
    curve->setPen(pen);
    curve->setName(line.name);
  }
  // One vertical axis each, named below, with the texts of its ends.
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int a = 0; a < axes; ++a) {
    ticker->addTick(a, axes_[a].name);
    auto* line = new QCPItemLine(plot_);
    line->start->setCoords(a, 0);
    line->end->setCoords(a, 1);
    line->setPen(QPen(palette().color(QPalette::Mid), 1));
    for (const bool high : {false, true}) {
      auto* label = new QCPItemText(plot_);
      label->position->setCoords(a, high ? 1.04 : -0.04);
      label->setText(high ? axes_[a].highText : axes_[a].lowText);
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

void ParallelCoordinates::onPress(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || lines_.isEmpty()) return;
  const double x = plot_->xAxis->pixelToCoord(event->position().x());
  const int axis = static_cast<int>(std::lround(x));
  if (axis < 0 || axis >= axes_.size() || std::abs(x - axis) > 0.25) return;
  brushAxis_ = axis;
  brushFrom_ = plot_->yAxis->pixelToCoord(event->position().y());
}

void ParallelCoordinates::onMove(QMouseEvent* event) {
  if (brushAxis_ < 0 || !(event->buttons() & Qt::LeftButton)) return;
  const double y = plot_->yAxis->pixelToCoord(event->position().y());
  if (std::abs(plot_->yAxis->coordToPixel(brushFrom_) - event->position().y()) < 3) return;
  setBrush(brushAxis_, brushFrom_, y);
}

void ParallelCoordinates::onRelease(QMouseEvent* event) {
  if (brushAxis_ < 0) return;
  const int axis = std::exchange(brushAxis_, -1);
  if (std::abs(plot_->yAxis->coordToPixel(brushFrom_) - event->position().y()) < 3) {
    clearBrush(axis);  // a click on the axis
  } else {
    setBrush(axis, brushFrom_, plot_->yAxis->pixelToCoord(event->position().y()));
  }
}

}  // namespace tbench::ui
