#include "widgets/Series.h"

#include <QVarLengthArray>
#include <algorithm>
#include <cmath>
#include <utility>

namespace tbench::ui {

namespace {

// NaN is neither lower nor higher than anything, and any number beats it: a bucket keeps its
// numbers, and NaNs only where it has nothing else.
bool lower(double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); }
bool higherOrEqual(double a, double b) { return !std::isnan(a) && (std::isnan(b) || a >= b); }

// The two points a bucket keeps, in arrival order: its first lowest and its last highest;
// where those are one point (every other value NaN), that point and the bucket's last, or its
// first when it is the last.
template <typename Index>
std::pair<Index, Index> keptPair(Index low, Index high, Index first, Index last) {
  if (low != high) return {std::min(low, high), std::max(low, high)};
  if (low != last) return {low, last};
  return {first, low};
}

}  // namespace

void Series::Bounds::include(double v) {
  if (!valid) {
    lower = upper = v;
    valid = true;
  } else if (v < lower) {
    lower = v;
  } else if (v > upper) {
    upper = v;
  }
}

Series::Series(double smoothingWeight, int maxPoints)
    : maxPoints_(std::max(8, (maxPoints + 3) / 4 * 4)), smoother_(smoothingWeight) {}

void Series::append(qint64 step, qint64 epoch, double wallTime, double value) {
  const Point point{step, epoch, wallTime, value, smoother_.add(value)};
  if (std::isfinite(value)) {
    bounds_.include(value);
    if (value > 0.0) positiveBounds_.include(value);
  }
  const qint64 index = appended_++;
  if (bucket_ == 1) {
    if (size() < maxPoints_) {
      points_.append(point);
      stable_ = size();
      return;
    }
    merge();  // only when a point arrives, so that the latest point is never merged away
  } else if (openCount_ == bucket_) {
    points_.resize(stable_);
    closeBucket();  // likewise
  }
  const Pending pending{point, index};
  if (openCount_ == 0) {
    openFirst_ = openLow_ = openHigh_ = pending;
  } else {
    if (lower(value, openLow_.point.value)) openLow_ = pending;
    if (higherOrEqual(value, openHigh_.point.value)) openHigh_ = pending;
  }
  openLast_ = pending;
  ++openCount_;
  points_.resize(stable_);
  showOpenBucket();
}

void Series::showOpenBucket() {
  // Its lowest, highest and latest points, each once, in arrival order.
  QVarLengthArray<const Pending*, 3> shown = {&openLow_, &openHigh_, &openLast_};
  std::sort(shown.begin(), shown.end(),
            [](const Pending* a, const Pending* b) { return a->index < b->index; });
  for (int i = 0; i < shown.size(); ++i)
    if (i == 0 || shown[i]->index != shown[i - 1]->index) points_.append(shown[i]->point);
}

void Series::closeBucket() {
  const auto [a, b] = keptPair(openLow_.index, openHigh_.index, openFirst_.index, openLast_.index);
  for (const qint64 index : {a, b}) {
    for (const Pending* p : {&openLow_, &openHigh_, &openFirst_, &openLast_}) {
      if (p->index == index) {
        points_.append(p->point);
        break;
      }
    }
  }
  stable_ = size();
  openCount_ = 0;
  if (stable_ >= maxPoints_) merge();
}

void Series::merge() {
  // Every four kept points (two buckets, or four single points at the first merge) become
  // the two of one bucket twice as large (four points at the first merge).
  QVector<Point> merged;
  merged.reserve(maxPoints_ / 2 + 3);
  for (int g = 0; g + 4 <= size(); g += 4) {
    const Point* q = points_.constData() + g;
    int low = 0, high = 0;
    for (int i = 1; i < 4; ++i) {
      if (lower(q[i].value, q[low].value)) low = i;
      if (higherOrEqual(q[i].value, q[high].value)) high = i;
    }
    const auto [a, b] = keptPair(low, high, 0, 3);
    merged.append(q[a]);
    merged.append(q[b]);
  }
  points_ = std::move(merged);
  stable_ = size();
  bucket_ = bucket_ == 1 ? 4 : bucket_ * 2;
  ++revision_;
}

void Series::setSmoothingWeight(double weight) {
  smoother_ = EmaSmoother(weight);
  // A closed bucket's two points stand for half of it each; the open bucket's shown points
  // share what it has so far.
  const double perKept = bucket_ == 1 ? 1.0 : double(bucket_) / 2.0;
  for (int i = 0; i < stable_; ++i)
    points_[i].smoothed = smoother_.addRepeated(points_[i].value, perKept);
  if (stable_ == size()) return;
  const double perOpen = double(openCount_) / double(size() - stable_);
  QVarLengthArray<Pending*, 3> open = {&openLow_, &openHigh_, &openLast_};
  std::sort(open.begin(), open.end(),
            [](const Pending* a, const Pending* b) { return a->index < b->index; });
  double smoothed = 0.0;
  for (int i = 0; i < open.size(); ++i) {
    if (i == 0 || open[i]->index != open[i - 1]->index)
      smoothed = smoother_.addRepeated(open[i]->point.value, perOpen);
    open[i]->point.smoothed = smoothed;
  }
  points_.resize(stable_);
  showOpenBucket();
}

}  // namespace tbench::ui
