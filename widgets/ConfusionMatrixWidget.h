#pragma once
// ConfusionMatrixWidget: a confusion matrix as a heat map (NVIDIA DIGITS' view). Rows are the
// true classes, columns the predicted ones, both labelled with the class names; each cell shows
// its count and is coloured by its share of its row (white 0 to dark blue 1), so that a row's
// errors stand out whatever the class sizes. Hovering a cell shows "true → predicted: n of m
// (p%)". Qt only (no engine); GUI thread.

#include <QImage>
#include <QStringList>
#include <QVector>
#include <QWidget>

namespace tbench::ui {

class ConfusionMatrixWidget : public QWidget {
  Q_OBJECT

 public:
  explicit ConfusionMatrixWidget(QWidget* parent = nullptr);

  /// Shows `counts` ([true][predicted], K x K) of the classes `names` (K). An empty `names`
  /// clears the view; counts that are not K x K clear it too.
  void setMatrix(const QStringList& names, const QVector<QVector<qint64>>& counts);
  const QStringList& classNames() const { return names_; }
  const QVector<QVector<qint64>>& counts() const { return counts_; }

  /// The cell (true, predicted) on screen; null when there is no matrix or no such cell.
  QRect cellRect(int trueClass, int predicted) const;
  /// The cell under `pos` as (true, predicted), or (-1, -1).
  QPair<int, int> cellAt(const QPoint& pos) const;
  /// The tooltip of the cell under `pos`, or empty.
  QString toolTipAt(const QPoint& pos) const;
  /// The share of the true class's samples that the cell holds, 0..1.
  double rowShare(int trueClass, int predicted) const;
  /// The fill colour of a share (white 0 to dark blue 1).
  static QColor colorOf(double share);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  /// Where the cells start and how big each is, for the widget's current size.
  struct Layout {
    int left = 0;
    int top = 0;
    double cell = 0;  ///< below 1 when there are more classes than pixels
  };
  Layout layout() const;
  void measureLabels();

  QStringList names_;
  QVector<qint64> rowSums_;  // per true class
  QImage heat_;              // one pixel per cell, drawn scaled to the grid
  int labelWidth_ = 0;       // the widest name (capped), measured when the matrix changes
  QVector<QVector<qint64>> counts_;
};

}  // namespace tbench::ui
