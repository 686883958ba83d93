#include "widgets/Series.h"

#include <cmath>

namespace tbench::ui {

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

Series::Series(double smoothingWeight) : smoother_(smoothingWeight) {}

void Series::append(qint64 step, qint64 epoch, double wallTime, double value) {
  steps_.append(step);
  epochs_.append(epoch);
  wallTimes_.append(wallTime);
  values_.append(value);
  smoothed_.append(smoother_.add(value));
  if (std::isfinite(value)) {
    bounds_.include(value);
    if (value > 0.0) positiveBounds_.include(value);
  }
}

void Series::setSmoothingWeight(double weight) {
  smoother_ = EmaSmoother(weight);
  for (int i = 0; i < size(); ++i) smoothed_[i] = smoother_.add(values_[i]);
}

}  // namespace tbench::ui
