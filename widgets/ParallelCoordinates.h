#pragma once
// ParallelCoordinates: a parallel-coordinates chart with brushing (a QCustomPlot, plot()). One
// vertical axis per Axis, left to right, labelled below with its name and at its ends with the
// texts of its lowest and highest values; each Line joins its positions on the axes (a line
// without a position on an axis skips it), in its colour, dashed or solid.
//
// Brushing: dragging along an axis keeps the lines whose position on it lies in the dragged
// range (the others fade to a faint line); brushes on several axes must all hold; a click on
// an axis clears its brush, a double click all of them. brushesChanged() says so, for whoever
// filters its own views by passes().
//
// Positions are the caller's: it maps its values to [0, 1] (a log scale, the rank of a
// category), and says what the ends are in the axis' texts. The chart knows nothing of what
// the lines stand for. Qt only (no engine); GUI thread.

#include <QColor>
#include <QMap>
#include <QPair>
#include <QString>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QMouseEvent;

namespace tbench::ui {

class ParallelCoordinates : public QWidget {
  Q_OBJECT

 public:
  struct Axis {
    QString name;      ///< below the axis
    QString lowText;   ///< at its bottom (position 0)
    QString highText;  ///< at its top (position 1)
  };
  struct Line {
    QVector<double> positions;  ///< per axis: [0, 1], or NaN where the line has no value
    QColor colour;              ///< invalid: the palette's disabled text (grey)
    bool dashed = false;
    QString name;  ///< the curve's name
  };
  /// Axis -> [low, high], positions.
  using Brushes = QMap<int, QPair<double, double>>;

  explicit ParallelCoordinates(QWidget* parent = nullptr);

  /// Draws `lines` across `axes` (left to right). Line i is what passes(i) judges. The brushes
  /// stay (clearBrush() when the axes mean something else now).
  void setChart(QVector<Axis> axes, QVector<Line> lines);
  const QVector<Axis>& axes() const { return axes_; }
  const QVector<Line>& lines() const { return lines_; }
  /// The chart, for its object name, its tooltip and tests that click on it.
  QCustomPlot* plot() const { return plot_; }

  /// Keeps the lines whose position on `axis` lies in [low, high] (either order); what a drag
  /// along the axis does. Redraws and emits brushesChanged().
  void setBrush(int axis, double low, double high);
  /// Removes the brush of `axis` (-1: every brush). Redraws and emits brushesChanged().
  void clearBrush(int axis = -1);
  const Brushes& brushes() const { return brushes_; }
  /// Whether line `line` passes every brush (a line that does not exist does; a NaN does not).
  bool passes(int line) const;

 signals:
  /// A brush was set or cleared, by the mouse or setBrush()/clearBrush().
  void brushesChanged();

 private:
  void redraw();
  /// Mouse events on the chart: a drag along an axis brushes it.
  void onPress(QMouseEvent* event);
  void onMove(QMouseEvent* event);
  void onRelease(QMouseEvent* event);

  QCustomPlot* plot_;
  QVector<Axis> axes_;
  QVector<Line> lines_;
  Brushes brushes_;
  int brushAxis_ = -1;  // the axis being dragged along
  double brushFrom_ = 0;
};

}  // namespace tbench::ui
