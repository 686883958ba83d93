#pragma once
// ImageView: one image, as large as fits and centred, with its aspect ratio kept. Enlarged by
// whole factors with nearest-neighbour sampling, so that a grid of 28x28 samples stays crisp
// (every image pixel a square of screen pixels); shrunk smoothly when the image is larger than
// the view. An empty view shows a centred note instead. GUI thread only.

#include <QImage>
#include <QString>
#include <QWidget>

namespace tbench::ui {

class ImageView : public QWidget {
  Q_OBJECT

 public:
  explicit ImageView(QWidget* parent = nullptr);

  void setImage(const QImage& image);
  const QImage& image() const { return image_; }
  /// Shown while there is no image.
  void setEmptyText(const QString& text);

  /// Where the image is drawn in a view of `size`: the largest whole-factor enlargement that
  /// fits (at least 1x), or the aspect-preserving fit when even 1x does not; centred.
  static QRect targetRect(const QSize& image, const QSize& size);

  QSize sizeHint() const override { return {320, 320}; }
  QSize minimumSizeHint() const override { return {96, 96}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QImage image_;
  QString emptyText_;
};

}  // namespace tbench::ui
