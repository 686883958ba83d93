#include "widgets/DecimatedGraph.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tbench::ui {

namespace {

constexpr int kFinestBucket = 16;
constexpr int kBranching = 4;
// A level is used when a pixel column spans at least this many of its buckets on average
// (buckets across a column edge are split, so this only trades bucket visits for splits).
constexpr int kBucketsPerPixel = 2;
// Mean vertical distance (pixels) between consecutive drawn points above which a dense curve
// is a noisy band rather than a line.
constexpr double kBandHeight = 2.0;

// NaN-ignoring min/max: a NaN bound means "no number seen yet".
void widen(double& lo, double& hi, double min, double max) {
  if (std::isnan(min)) return;
  if (std::isnan(lo) || min < lo) lo = min;
  if (std::isnan(hi) || max > hi) hi = max;
}

}  // namespace

DecimatedGraph::DecimatedGraph(QCPAxis* keyAxis, QCPAxis* valueAxis)
    : QCPGraph(keyAxis, valueAxis) {}

void DecimatedGraph::setPoints(const QVector<QCPGraphData>& points, bool sorted) {
  data()->set(points, sorted);
  levels_.clear();
  extendPyramid();
}

void DecimatedGraph::appendPoints(const QVector<QCPGraphData>& points, bool sorted) {
  if (points.isEmpty()) return;
  const bool inOrder =
      sorted && (data()->isEmpty() || (data()->constEnd() - 1)->key <= points.constFirst().key);
  data()->add(points, sorted);
  if (!inOrder) levels_.clear();  // points went into the middle: the buckets moved
  extendPyramid();
}

namespace {
// QCPDataContainer removes points by key only; the points to drop are the last ones by index
// (a series' open bucket may share its key with the point before it).
struct ContainerAccess : QCPGraphDataContainer {
  static void truncate(QCPGraphDataContainer& container, int count) {
    QVector<QCPGraphData>& data = container.*(&ContainerAccess::mData);
    data.resize(container.*(&ContainerAccess::mPreallocSize) + count);
  }
};
}  // namespace

void DecimatedGraph::truncate(int count) {
  if (count >= data()->size()) return;
  ContainerAccess::truncate(*data(), std::max(0, count));
  for (Level& level : levels_)
    level.buckets.resize(std::min(level.buckets.size(), qsizetype(count / level.size)));
  while (!levels_.isEmpty() && levels_.constLast().buckets.isEmpty()) levels_.removeLast();
}

QVector<int> DecimatedGraph::levelSizes() const {
  QVector<int> sizes;
  for (const Level& level : levels_) sizes.append(level.size);
  return sizes;
}

void DecimatedGraph::extendPyramid() {
  const auto& points = *data();
  const int n = points.size();
  for (int li = 0;; ++li) {
    const int size = li == 0 ? kFinestBucket : levels_[li - 1].size * kBranching;
    const int complete = n / size;
    if (complete < 1) break;
    if (li == int(levels_.size())) levels_.append(Level{size, {}});
    QVector<Bucket>& buckets = levels_[li].buckets;
    buckets.reserve(complete);
    for (int b = int(buckets.size()); b < complete; ++b) {
      Bucket bucket{points.at(b * size)->key, points.at((b + 1) * size - 1)->key,
                    std::numeric_limits<double>::quiet_NaN(),
                    std::numeric_limits<double>::quiet_NaN()};
      if (li == 0) {
        auto it = points.at(b * size);
        for (int i = 0; i < size; ++i, ++it) widen(bucket.min, bucket.max, it->value, it->value);
      } else {
        const QVector<Bucket>& children = levels_[li - 1].buckets;
        for (int c = b * kBranching; c < (b + 1) * kBranching; ++c)
          widen(bucket.min, bucket.max, children[c].min, children[c].max);
      }
      buckets.append(bucket);
    }
  }
}

void DecimatedGraph::getOptimizedLineData(QVector<QCPGraphData>* lineData,
                                          const QCPGraphDataContainer::const_iterator& begin,
                                          const QCPGraphDataContainer::const_iterator& end) const {
  const int first = int(begin - data()->constBegin());
  const int last = int(end - data()->constBegin());
  if (!lineData || !adaptiveSampling() || !decimate(lineData, first, last))
    QCPGraph::getOptimizedLineData(lineData, begin, end);
}

void DecimatedGraph::drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const {
  const QPen pen = painter->pen();
  const int columns = keyAxis()->axisRect()->width();
  if (pen.widthF() <= 1.0 || lines.size() < columns ||
      painter->modes().testFlag(QCPPainter::pmVectorized)) {
    QCPGraph::drawLinePlot(painter, lines);
    return;
  }
  // At least one point per pixel column (the output of adaptive sampling, ours or
  // QCustomPlot's): a band when consecutive points are far apart vertically on average.
  double travel = 0.0;
  int steps = 0;
  for (int i = 1; i < lines.size(); ++i) {
    const double dy = std::abs(lines[i].y() - lines[i - 1].y());
    if (std::isnan(dy)) continue;
    travel += dy;
    ++steps;
  }
  if (steps > 0 && travel / steps > kBandHeight) {
    QPen thin = pen;
    thin.setWidthF(1.0);
    painter->setPen(thin);
  }
  QCPGraph::drawLinePlot(painter, lines);
  painter->setPen(pen);
}

bool DecimatedGraph::decimate(QVector<QCPGraphData>* lineData, int first, int last) const {
  QCPAxis* keyAxis = this->keyAxis();
  if (!keyAxis || keyAxis->scaleType() != QCPAxis::stLinear || keyAxis->pixelOrientation() != 1 ||
      last - first < 2)
    return false;
  const auto& points = *data();
  const double firstPixel = keyAxis->coordToPixel(points.at(first)->key);
  const double lastPixel = keyAxis->coordToPixel(points.at(last - 1)->key);
  const double pointsPerPixel = (last - first) / std::max(1.0, lastPixel - firstPixel);
  const Level* level = nullptr;
  for (const Level& l : levels_)
    if (l.size * kBucketsPerPixel <= pointsPerPixel) level = &l;
  if (!level) return false;  // few points per pixel: QCustomPlot's own sampling is cheap

  lineData->clear();
  lineData->reserve(int(2 * (lastPixel - firstPixel) + 8));
  // One min/max pair per pixel column, placed like QCustomPlot's adaptive sampling does; a
  // point belongs to the column its key falls in, so the picture is the same. toKey and
  // columnOf are QCPAxis::pixelToCoord and coordToPixel for a horizontal linear axis, the
  // same arithmetic inlined: the loop calls them a few times per column.
  const double lower = keyAxis->range().lower, span = keyAxis->range().size();
  const double left = keyAxis->axisRect()->left(), width = keyAxis->axisRect()->width();
  const auto toKey = [=](double pixel) { return (pixel - left) / width * span + lower; };
  const auto columnOf = [=](double key) {
    return int(std::floor((key - lower) / span * width + left));
  };
  int column = std::numeric_limits<int>::min();
  double columnStart = 0.0, columnEnd = 0.0;  // keys of the current column's edges
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = lo;
  const auto emitColumn = [&] {
    if (column == std::numeric_limits<int>::min()) return;
    lineData->append(QCPGraphData(toKey(column + 0.25), lo));
    lineData->append(QCPGraphData(toKey(column + 0.75), hi));
  };
  const auto visit = [&](int c, double min, double max) {
    if (c != column) {
      emitColumn();
      column = c;
      columnStart = toKey(c);
      columnEnd = toKey(c + 1);
      lo = hi = std::numeric_limits<double>::quiet_NaN();
    }
    widen(lo, hi, min, max);
  };
  const auto visitPoint = [&](int i) {
    const auto p = points.at(i);
    const bool inColumn = p->key >= columnStart && p->key < columnEnd;
    visit(inColumn ? column : columnOf(p->key), p->value, p->value);
  };
  // A bucket inside one column counts as a whole; one across a column edge is split into its
  // children (down to the points), so each extreme lands in its own column.
  const auto visitBucket = [&](const auto& self, int li, int b) -> void {
    const Level& l = levels_[li];
    const Bucket& bucket = l.buckets[b];
    if (bucket.firstKey >= columnStart && bucket.lastKey < columnEnd) {  // common, no mapping
      visit(column, bucket.min, bucket.max);
      return;
    }
    const int c0 = columnOf(bucket.firstKey);
    if (c0 == columnOf(bucket.lastKey)) {
      visit(c0, bucket.min, bucket.max);
    } else if (li == 0) {
      for (int i = b * l.size; i < (b + 1) * l.size; ++i) visitPoint(i);
    } else {
      for (int child = b * kBranching; child < (b + 1) * kBranching; ++child)
        self(self, li - 1, child);
    }
  };
  // The real first and last points anchor the curve's ends.
  lineData->append(*points.at(first));
  const int li = int(level - levels_.constData());
  const int size = level->size;
  const int firstBucket = (first + size - 1) / size;
  const int endBucket = std::max(firstBucket, std::min(last / size, int(level->buckets.size())));
  for (int i = first; i < std::min(last, firstBucket * size); ++i) visitPoint(i);
  for (int b = firstBucket; b < endBucket; ++b) visitBucket(visitBucket, li, b);
  for (int i = std::max(first, endBucket * size); i < last; ++i) visitPoint(i);
  emitColumn();
  lineData->append(*points.at(last - 1));
  return true;
}

}  // namespace tbench::ui
