#pragma once
// DecimatedGraph: a QCPGraph that stays fast with millions of points.
//
// QCustomPlot's adaptive sampling draws one min/max pair per pixel column, but it finds them
// by visiting every visible point on every replot: O(points), and a cache miss per few points
// once several curves no longer fit in the cache. This graph keeps a min/max pyramid of its
// data (buckets of 16, 64, 256, ... consecutive points, each with its first and last key)
// and builds the same per-column min/max line from the coarsest level that still has two
// buckets per column: O(pixels) however long the run. A bucket that spans a column edge is
// split into its children, down to the points, so every extreme lands in the column its key
// falls in and the picture matches QCustomPlot's. Zoomed in, where few points share a pixel,
// it draws like a plain QCPGraph.
//
// A dense noisy curve (at least one point per pixel column, consecutive points more than 2
// pixels apart vertically on average) is a band of vertical min-max strokes. There a pen
// wider than 1 pixel adds nothing visible but makes Qt's raster engine stroke instead of
// drawing cosmetic lines, about 1.6x the cost, so such bands are drawn with a 1-pixel pen.
// Smooth or sparse curves and vector output (PDF) keep the pen's width.
//
// The pyramid follows the data through setPoints(), appendPoints() and truncate(); change the data
// only through them (data()->... directly leaves the pyramid stale until the next setPoints()). GUI
// thread only, like every QCustomPlot object.

#include <qcustomplot.h>
#include <QVector>

namespace tbench::ui {

class DecimatedGraph : public QCPGraph {
  Q_OBJECT
 public:
  DecimatedGraph(QCPAxis* keyAxis, QCPAxis* valueAxis);

  /// Replaces the data (`sorted`: the keys are in ascending order).
  void setPoints(const QVector<QCPGraphData>& points, bool sorted);
  /// Adds points; O(new points) when they are sorted and start at or after the last key.
  void appendPoints(const QVector<QCPGraphData>& points, bool sorted);

  /// Keeps the first `count` points and drops the rest, O(dropped points + levels).
  void truncate(int count);

  /// Bucket sizes of the pyramid levels built so far, finest first (for tests).
  QVector<int> levelSizes() const;

 protected:
  void getOptimizedLineData(QVector<QCPGraphData>* lineData,
                            const QCPGraphDataContainer::const_iterator& begin,
                            const QCPGraphDataContainer::const_iterator& end) const override;
  void drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const override;

 private:
  struct Bucket {
    double firstKey;
    double lastKey;
    double min;  // NaN when the bucket holds no number
    double max;
  };
  struct Level {
    int size = 0;             // data points per bucket
    QVector<Bucket> buckets;  // complete buckets only, in key order
  };
  void extendPyramid();
  bool decimate(QVector<QCPGraphData>* lineData, int first, int last) const;

  QVector<Level> levels_;
};

}  // namespace tbench::ui
