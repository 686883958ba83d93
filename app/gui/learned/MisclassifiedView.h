#pragma once
// MisclassifiedView: the grid of a validation pass's wrong samples (the engine's
// confusion/epoch-<E>-misclassified.png), enlarged by a whole factor so pixels stay crisp. Each
// tile says which sample it is and its true and predicted classes (tooltip); clicking a tile
// asks for "Try it" on that sample (sampleClicked). The grid's layout is the engine's
// imageGrid: `columns` tiles per row, 1 pixel of padding between tiles and around them. GUI
// thread.
//
// Object name: "misclassifiedView".

#include <QImage>
#include <QStringList>
#include <QWidget>

#include "app/bridge/LearnedTypes.h"

namespace tbench::gui {

class MisclassifiedView : public QWidget {
  Q_OBJECT
 public:
  explicit MisclassifiedView(QWidget* parent = nullptr);

  /// Shows `image` (the grid; null: nothing) with one entry of `samples` per tile.
  void setGrid(const QImage& image, const QVector<bridge::MisclassifiedView>& samples, int columns,
               const QStringList& classNames);
  int tileCount() const { return int(samples_.size()); }
  /// The tile under `pos` (widget coordinates), or -1.
  int tileAt(const QPoint& pos) const;
  /// What the tile's tooltip says.
  QString tileText(int tile) const;

 signals:
  /// A tile was clicked: the sample's index in the validation data.
  void sampleClicked(qint64 index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  QSize sizeHint() const override;

 private:
  QRect imageRect() const;  // where the enlarged grid is drawn

  QImage image_;
  QVector<bridge::MisclassifiedView> samples_;
  QStringList classNames_;
  int columns_ = 8;
};

}  // namespace tbench::gui
