#pragma once
// Series: the points of one curve (one scalar name in one run) in arrival order, with their
// smoothed values kept up to date incrementally, in bounded memory.
//
// Note [Bounded series]: a series keeps every point until it has maxPoints() of them (32,768
// by default); from then on it keeps, for each bucket of consecutive points, the one with the
// lowest value and the one with the highest (the first lowest and the last highest, in
// arrival order), so a spike of one step in a run of millions is still drawn. When the kept
// points reach maxPoints() again, pairs of neighbouring buckets merge (the bucket size
// doubles: 4, 8, 16, ... points), so a series holds between maxPoints() / 2 and
// maxPoints() + 1 points however long the run is, evenly spread over it. The bucket still
// filling is shown as its lowest, highest and latest points, so the last point is always the
// latest value (buckets close and merge only when the next point arrives); those (at most 3)
// points after stableSize() are replaced by the next append. Kept points are real points:
// their step, epoch, wall time, value and smoothed value are those they arrived with (the
// smoothed value averages every point appended, not only the kept ones). Until the first
// merge nothing is dropped.

#include <QVector>
#include <QtGlobal>

#include "widgets/EmaSmoother.h"

namespace tbench::ui {

class Series {
 public:
  /// Points kept before buckets merge (a multiple of 4).
  static constexpr int kMaxPoints = 1 << 15;

  /// The range of the finite values seen; empty() until one arrives.
  struct Bounds {
    double lower = 0.0;
    double upper = 0.0;
    bool valid = false;
    void include(double v);
  };

  /// `maxPoints` is rounded up to a multiple of 4, at least 8 (smaller only for tests).
  explicit Series(double smoothingWeight = 0.0, int maxPoints = kMaxPoints);

  /// Points kept (every point appended until maxPoints() is reached).
  int size() const { return int(points_.size()); }
  qint64 step(int i) const { return points_[i].step; }
  qint64 epoch(int i) const { return points_[i].epoch; }
  double wallTime(int i) const { return points_[i].wallTime; }
  double value(int i) const { return points_[i].value; }
  /// The de-biased moving average up to and including point i (see EmaSmoother).
  double smoothed(int i) const { return points_[i].smoothed; }

  /// Appends one point and smooths it in O(1) (amortised: a merge is O(maxPoints) once per
  /// maxPoints / 2 kept points).
  void append(qint64 step, qint64 epoch, double wallTime, double value);
  /// Changes the smoothing weight and recomputes every smoothed value (O(size)). Once buckets
  /// merged, the average runs over the kept points, each counting for the points it stands
  /// for (half its bucket), so the curve keeps its time scale.
  void setSmoothingWeight(double weight);
  double smoothingWeight() const { return smoother_.weight(); }

  /// Range of the finite values (smoothed values always lie inside it).
  const Bounds& bounds() const { return bounds_; }
  /// Range of the finite values above zero, for logarithmic axes.
  const Bounds& positiveBounds() const { return positiveBounds_; }

  int maxPoints() const { return maxPoints_; }
  /// Points appended in all, kept or not.
  qint64 appended() const { return appended_; }
  /// Points per bucket: 1 until the first merge, then 4, 8, 16, ...
  qint64 bucketSize() const { return bucket_; }
  /// Points [0, stableSize()) stay as they are until the next merge; those after it (the
  /// bucket still filling) are replaced by the next append.
  int stableSize() const { return stable_; }
  /// Changes with every merge, after which any kept point may have changed.
  int revision() const { return revision_; }

 private:
  struct Point {
    qint64 step;
    qint64 epoch;
    double wallTime;
    double value;
    double smoothed;
  };
  struct Pending {  // a point of the open bucket and its arrival index
    Point point;
    qint64 index = -1;
  };
  void closeBucket();
  void showOpenBucket();
  void merge();

  QVector<Point> points_;
  int maxPoints_;
  qint64 appended_ = 0;
  qint64 bucket_ = 1;
  int stable_ = 0;
  int revision_ = 0;
  qint64 openCount_ = 0;  // points in the open bucket
  Pending openFirst_, openLow_, openHigh_, openLast_;
  EmaSmoother smoother_;
  Bounds bounds_;
  Bounds positiveBounds_;
};

}  // namespace tbench::ui
