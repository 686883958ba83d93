#include "widgets/ConfusionMatrixWidget.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace tbench::ui {

namespace {

constexpr int kMargin = 6;
constexpr int kAxisTitle = 18;  // room for "True class" / "Predicted" titles

}  // namespace

ConfusionMatrixWidget::ConfusionMatrixWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ConfusionMatrixWidget::setMatrix(const QStringList& names,
                                      const QVector<QVector<qint64>>& counts) {
  bool square = counts.size() == names.size();
  for (const auto& row : counts) square = square && row.size() == names.size();
  if (names.isEmpty() || !square) {
    names_.clear();
    counts_.clear();
  } else {
    names_ = names;
    counts_ = counts;
  }
  // Measured once per matrix (a paint would otherwise measure every name for every cell).
  rowSums_ = QVector<qint64>(counts_.size(), 0);
  for (int t = 0; t < counts_.size(); ++t)
    for (qint64 c : counts_[t]) rowSums_[t] += c;
  const int k = static_cast<int>(names_.size());
  heat_ = k == 0 ? QImage() : QImage(k, k, QImage::Format_RGB32);
  for (int t = 0; t < k; ++t)
    for (int p = 0; p < k; ++p) heat_.setPixelColor(p, t, colorOf(rowShare(t, p)));
  measureLabels();
  updateGeometry();
  update();
}

void ConfusionMatrixWidget::measureLabels() {
  const QFontMetrics fm(font());
  int label = 0;
  for (const QString& name : names_) label = std::max(label, fm.horizontalAdvance(name));
  labelWidth_ = std::min(label + 8, 160);
}

void ConfusionMatrixWidget::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange) measureLabels();
  QWidget::changeEvent(event);
}

ConfusionMatrixWidget::Layout ConfusionMatrixWidget::layout() const {
  Layout l;
  const int k = static_cast<int>(names_.size());
  if (k == 0) return l;
  l.left = kMargin + kAxisTitle + labelWidth_;
  l.top = kMargin + kAxisTitle + labelWidth_;  // column names are drawn rotated
  const int room = std::min(width() - l.left - kMargin, height() - l.top - kMargin);
  // Whole pixels per cell while they fit; below one pixel with more classes than pixels, so
  // that the whole matrix stays in the widget (the tooltip still names each cell).
  l.cell = room >= k ? double(room / k) : std::max(1, room) / double(k);
  return l;
}

QRect ConfusionMatrixWidget::cellRect(int trueClass, int predicted) const {
  const int k = static_cast<int>(names_.size());
  if (trueClass < 0 || predicted < 0 || trueClass >= k || predicted >= k) return {};
  const Layout l = layout();
  const int x0 = int(predicted * l.cell), x1 = int((predicted + 1) * l.cell);
  const int y0 = int(trueClass * l.cell), y1 = int((trueClass + 1) * l.cell);
  return QRect(l.left + x0, l.top + y0, std::max(1, x1 - x0), std::max(1, y1 - y0));
}

QPair<int, int> ConfusionMatrixWidget::cellAt(const QPoint& pos) const {
  const int k = static_cast<int>(names_.size());
  const Layout l = layout();
  if (k == 0 || pos.x() < l.left || pos.y() < l.top) return {-1, -1};
  const int p = int((pos.x() - l.left) / l.cell);
  const int t = int((pos.y() - l.top) / l.cell);
  if (p >= k || t >= k) return {-1, -1};
  return {t, p};
}

double ConfusionMatrixWidget::rowShare(int trueClass, int predicted) const {
  const int k = static_cast<int>(names_.size());
  if (trueClass < 0 || predicted < 0 || trueClass >= k || predicted >= k) return 0;
  const qint64 row = rowSums_[trueClass];
  return row > 0 ? static_cast<double>(counts_[trueClass][predicted]) / row : 0.0;
}

QColor ConfusionMatrixWidget::colorOf(double share) {
  share = std::clamp(share, 0.0, 1.0);
  return QColor(int(255 - share * (255 - 8)), int(255 - share * (255 - 48)),
                int(255 - share * (255 - 107)));
}

QString ConfusionMatrixWidget::toolTipAt(const QPoint& pos) const {
  const auto [t, p] = cellAt(pos);
  if (t < 0) return {};
  return tr("true %1 → predicted %2: %3 of %4 (%5%)")
      .arg(names_[t], names_[p])
      .arg(counts_[t][p])
      .arg(rowSums_[t])
      .arg(100.0 * rowShare(t, p), 0, 'f', 1);
}

bool ConfusionMatrixWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
      event->ignore();
    } else {
      QToolTip::showText(help->globalPos(), text, this,
                         cellRect(cellAt(help->pos()).first, cellAt(help->pos()).second));
    }
    return true;
  }
  return QWidget::event(event);
}

QSize ConfusionMatrixWidget::sizeHint() const { return {480, 480}; }
QSize ConfusionMatrixWidget::minimumSizeHint() const { return {160, 160}; }

void ConfusionMatrixWidget::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  const int k = static_cast<int>(names_.size());
  if (k == 0) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     tr("No confusion matrix yet: it appears after a validation pass of a "
                        "classifier."));
    return;
  }
  const Layout l = layout();
  const QFontMetrics fm(font());
  const int label = l.left - kMargin - kAxisTitle;
  painter.setPen(palette().color(QPalette::Text));
  // Names need a row of text; below that the tooltips name the cells.
  for (int i = 0; i < k && l.cell >= fm.height() / 2; ++i) {
    const QString name = fm.elidedText(names_[i], Qt::ElideRight, label - 6);
    const int cell = int(l.cell);
    painter.drawText(QRect(kMargin + kAxisTitle, l.top + int(i * l.cell), label - 6, cell),
                     Qt::AlignRight | Qt::AlignVCenter, name);
    painter.save();
    painter.translate(l.left + int(i * l.cell), l.top - 6);
    painter.rotate(-90);
    painter.drawText(QRect(0, 0, label - 6, cell), Qt::AlignLeft | Qt::AlignVCenter, name);
    painter.restore();
  }
  QFont bold = font();
  bold.setBold(true);
  painter.setFont(bold);
  const int gridSize = int(k * l.cell);
  painter.drawText(QRect(l.left, kMargin, gridSize, kAxisTitle), Qt::AlignCenter,
                   tr("Predicted class"));
  painter.save();
  painter.translate(kMargin, l.top + gridSize);
  painter.rotate(-90);
  painter.drawText(QRect(0, 0, gridSize, kAxisTitle), Qt::AlignCenter, tr("True class"));
  painter.restore();
  painter.setFont(font());
  // The colours in one call (a million cells would take seconds one by one); borders and
  // counts where a cell has room for them.
  painter.setRenderHint(QPainter::SmoothPixmapTransform, l.cell < 1);
  painter.drawImage(QRect(l.left, l.top, gridSize, gridSize), heat_);
  const bool showCounts = fm.height() + 2 <= l.cell;
  if (l.cell >= 6) {
    for (int t = 0; t < k; ++t) {
      for (int p = 0; p < k; ++p) {
        const QRect cell = cellRect(t, p);
        painter.setPen(QColor(200, 200, 200));
        painter.drawRect(cell.adjusted(0, 0, -1, -1));
        const QString count = QString::number(counts_[t][p]);
        if (showCounts && fm.horizontalAdvance(count) + 4 <= l.cell) {
          painter.setPen(rowShare(t, p) > 0.5 ? Qt::white : Qt::black);
          painter.drawText(cell, Qt::AlignCenter, count);
        }
      }
    }
  }
  painter.setPen(palette().color(QPalette::Text));
  painter.drawRect(QRect(l.left, l.top, gridSize, gridSize).adjusted(0, 0, -1, -1));
}

}  // namespace tbench::ui
