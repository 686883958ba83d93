#include "widgets/ImageView.h"

#include <QPainter>

#include <algorithm>

namespace tbench::ui {

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ImageView::setImage(const QImage& image) {
  image_ = image;
  update();
}

void ImageView::setEmptyText(const QString& text) {
  emptyText_ = text;
  update();
}

QRect ImageView::targetRect(const QSize& image, const QSize& size) {
  if (image.isEmpty() || size.isEmpty()) return {};
  const int factor = std::min(size.width() / image.width(), size.height() / image.height());
  const QSize drawn = factor >= 1 ? image * factor : image.scaled(size, Qt::KeepAspectRatio);
  return QRect(QPoint((size.width() - drawn.width()) / 2, (size.height() - drawn.height()) / 2),
               drawn);
}

void ImageView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  if (image_.isNull()) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                     emptyText_);
    return;
  }
  const QRect target = targetRect(image_.size(), size());
  // Enlarged: nearest neighbour keeps the pixels square; shrunk: smooth, or detail aliases.
  painter.setRenderHint(QPainter::SmoothPixmapTransform, target.width() < image_.width());
  painter.drawImage(target, image_);
}

}  // namespace tbench::ui
