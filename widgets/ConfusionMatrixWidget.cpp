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
  updateGeometry();
  update();
}

ConfusionMatrixWidget::Layout ConfusionMatrixWidget::layout() const {
  Layout l;
  const int k = static_cast<int>(names_.size());
  if (k == 0) return l;
  const QFontMetrics fm(font());
  int label = 0;
  for (const QString& name : names_) label = std::max(label, fm.horizontalAdvance(name));
  label = std::min(label + 8, 160);
  l.left = kMargin + kAxisTitle + label;
  l.top = kMargin + kAxisTitle + label;  // column names are drawn rotated
  const int room = std::min(width() - l.left - kMargin, height() - l.top - kMargin);
  l.cell = std::max(4, room / k);
  return l;
}

QRect ConfusionMatrixWidget::cellRect(int trueClass, int predicted) const {
  const int k = static_cast<int>(names_.size());
  if (trueClass < 0 || predicted < 0 || trueClass >= k || predicted >= k) return {};
  const Layout l = layout();
  return QRect(l.left + predicted * l.cell, l.top + trueClass * l.cell, l.cell, l.cell);
}

QPair<int, int> ConfusionMatrixWidget::cellAt(const QPoint& pos) const {
  const int k = static_cast<int>(names_.size());
  const Layout l = layout();
  if (k == 0 || pos.x() < l.left || pos.y() < l.top) return {-1, -1};
  const int p = (pos.x() - l.left) / l.cell;
  const int t = (pos.y() - l.top) / l.cell;
  if (p >= k || t >= k) return {-1, -1};
  return {t, p};
}

double ConfusionMatrixWidget::rowShare(int trueClass, int predicted) const {
  if (cellRect(trueClass, predicted).isNull()) return 0;
  qint64 row = 0;
  for (qint64 c : counts_[trueClass]) row += c;
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
  qint64 row = 0;
  for (qint64 c : counts_[t]) row += c;
  return tr("true %1 → predicted %2: %3 of %4 (%5%)")
      .arg(names_[t], names_[p])
      .arg(counts_[t][p])
      .arg(row)
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
  for (int i = 0; i < k; ++i) {
    const QString name = fm.elidedText(names_[i], Qt::ElideRight, label - 6);
    painter.drawText(QRect(kMargin + kAxisTitle, l.top + i * l.cell, label - 6, l.cell),
                     Qt::AlignRight | Qt::AlignVCenter, name);
    painter.save();
    painter.translate(l.left + i * l.cell, l.top - 6);
    painter.rotate(-90);
    painter.drawText(QRect(0, 0, label - 6, l.cell), Qt::AlignLeft | Qt::AlignVCenter, name);
    painter.restore();
  }
  QFont bold = font();
  bold.setBold(true);
  painter.setFont(bold);
  const int gridSize = k * l.cell;
  painter.drawText(QRect(l.left, kMargin, gridSize, kAxisTitle), Qt::AlignCenter,
                   tr("Predicted class"));
  painter.save();
  painter.translate(kMargin, l.top + gridSize);
  painter.rotate(-90);
  painter.drawText(QRect(0, 0, gridSize, kAxisTitle), Qt::AlignCenter, tr("True class"));
  painter.restore();
  painter.setFont(font());
  const bool showCounts = fm.height() + 2 <= l.cell;
  for (int t = 0; t < k; ++t) {
    for (int p = 0; p < k; ++p) {
      const QRect cell = cellRect(t, p);
      const double share = rowShare(t, p);
      painter.fillRect(cell, colorOf(share));
      painter.setPen(QColor(200, 200, 200));
      painter.drawRect(cell.adjusted(0, 0, -1, -1));
      if (showCounts && fm.horizontalAdvance(QString::number(counts_[t][p])) + 4 <= l.cell) {
        painter.setPen(share > 0.5 ? Qt::white : Qt::black);
        painter.drawText(cell, Qt::AlignCenter, QString::number(counts_[t][p]));
      }
    }
  }
  painter.setPen(palette().color(QPalette::Text));
  painter.drawRect(QRect(l.left, l.top, gridSize, gridSize).adjusted(0, 0, -1, -1));
}

}  // namespace tbench::ui
