#include "app/gui/learned/MisclassifiedView.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace tbench::gui {

MisclassifiedView::MisclassifiedView(QWidget* parent) : QWidget(parent) {
  setObjectName("misclassifiedView");
  setMouseTracking(true);
  setMinimumHeight(60);
}

void MisclassifiedView::setGrid(const QImage& image,
                                const QVector<bridge::MisclassifiedView>& samples, int columns,
                                const QStringList& classNames) {
  image_ = image;
  samples_ = image.isNull() ? QVector<bridge::MisclassifiedView>() : samples;
  columns_ = std::max(1, columns);
  classNames_ = classNames;
  setCursor(samples_.isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
  updateGeometry();
  update();
}

QSize MisclassifiedView::sizeHint() const {
  return image_.isNull() ? QSize(200, 60) : image_.size() * 2;
}

QRect MisclassifiedView::imageRect() const {
  if (image_.isNull()) return {};
  const int factor = std::max(1, std::min(width() / image_.width(), height() / image_.height()));
  const QSize size = image_.size() * factor;
  return QRect(QPoint((width() - size.width()) / 2, 0), size);
}

int MisclassifiedView::tileAt(const QPoint& pos) const {
  const QRect rect = imageRect();
  if (samples_.isEmpty() || !rect.contains(pos)) return -1;
  const int n = int(samples_.size());
  const int columns = std::min(columns_, n);
  const int rows = (n + columns - 1) / columns;
  // Grid pixels: columns * (w + 1) + 1 across.
  const double scale = double(rect.width()) / image_.width();
  const int x = int((pos.x() - rect.left()) / scale), y = int((pos.y() - rect.top()) / scale);
  const int pitchX = (image_.width() - 1) / columns, pitchY = (image_.height() - 1) / rows;
  if (pitchX < 1 || pitchY < 1) return -1;
  const int column = std::min(columns - 1, x / pitchX), row = std::min(rows - 1, y / pitchY);
  const int tile = row * columns + column;
  return tile < n ? tile : -1;
}

QString MisclassifiedView::tileText(int tile) const {
  if (tile < 0 || tile >= samples_.size()) return {};
  const bridge::MisclassifiedView& s = samples_[tile];
  auto name = [this](qint64 k) {
    return k >= 0 && k < classNames_.size() ? classNames_[int(k)] : QString::number(k);
  };
  return tr("validation sample %1: a %2 taken for %3\n(click to try it)")
      .arg(s.index)
      .arg(name(s.trueClass), name(s.predicted));
}

void MisclassifiedView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  if (image_.isNull()) {
    painter.setPen(palette().color(QPalette::Disabled, QPalette::Text));
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     tr("No misclassified samples to show for this pass"));
    return;
  }
  painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
  painter.drawImage(imageRect(), image_);
}

bool MisclassifiedView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int tile = tileAt(help->pos());
    if (tile >= 0) {
      QToolTip::showText(help->globalPos(), tileText(tile), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

void MisclassifiedView::mouseReleaseEvent(QMouseEvent* event) {
  const int tile = tileAt(event->position().toPoint());
  if (event->button() == Qt::LeftButton && tile >= 0) emit sampleClicked(samples_[tile].index);
  QWidget::mouseReleaseEvent(event);
}

}  // namespace tbench::gui
