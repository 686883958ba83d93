#pragma once
// Series: every point of one curve (one scalar name in one run), stored column-wise in arrival
// order, with its smoothed values kept up to date incrementally.

#include <QVector>
#include <QtGlobal>

#include "widgets/EmaSmoother.h"

namespace tbench::ui {

class Series {
 public:
  /// The range of the finite values seen; empty() until one arrives.
  struct Bounds {
    double lower = 0.0;
    double upper = 0.0;
    bool valid = false;
    void include(double v);
  };

  explicit Series(double smoothingWeight = 0.0);

  int size() const { return int(values_.size()); }
  qint64 step(int i) const { return steps_[i]; }
  qint64 epoch(int i) const { return epochs_[i]; }
  double wallTime(int i) const { return wallTimes_[i]; }
  double value(int i) const { return values_[i]; }
  /// The de-biased moving average up to and including point i (see EmaSmoother).
  double smoothed(int i) const { return smoothed_[i]; }

  /// Appends one point and smooths it in O(1).
  void append(qint64 step, qint64 epoch, double wallTime, double value);
  /// Changes the smoothing weight and recomputes every smoothed value (O(size)).
  void setSmoothingWeight(double weight);
  double smoothingWeight() const { return smoother_.weight(); }

  /// Range of the finite values (smoothed values always lie inside it).
  const Bounds& bounds() const { return bounds_; }
  /// Range of the finite values above zero, for logarithmic axes.
  const Bounds& positiveBounds() const { return positiveBounds_; }

 private:
  QVector<qint64> steps_;
  QVector<qint64> epochs_;
  QVector<double> wallTimes_;
  QVector<double> values_;
  QVector<double> smoothed_;
  EmaSmoother smoother_;
  Bounds bounds_;
  Bounds positiveBounds_;
};

}  // namespace tbench::ui
