#pragma once
// EmaSmoother: a de-biased exponential moving average, fed one value at a time (the smoothing
// TensorBoard applies to scalar curves).
//
//   s_0 = 0,   s_t = a * s_{t-1} + (1 - a) * x_t,   shown value = s_t / (1 - a^t)
//
// The division removes the bias towards the zero start, so the first shown value equals the
// first input and every shown value is a weighted mean of the inputs so far (it never leaves
// their range). Non-finite inputs (NaN, +-inf) are passed through unchanged and do not enter
// the average, so one NaN does not erase the rest of the curve.

namespace tbench::ui {

class EmaSmoother {
 public:
  /// Largest accepted weight; 1 would freeze the average at the first value.
  static constexpr double kMaxWeight = 0.999;

  /// `weight` is a, clamped to [0, kMaxWeight]; 0 shows the raw values.
  explicit EmaSmoother(double weight = 0.0);

  double weight() const { return weight_; }
  /// Feeds x_t and returns the de-biased smoothed value (x itself if x is not finite).
  double add(double x);
  /// Feeds x as if it came `times` times in a row (times > 0; fractional for a kept point
  /// that stands for several, see Note [Bounded series] in Series.h).
  double addRepeated(double x, double times);
  /// Forgets every value fed so far; the weight is kept.
  void reset();

  /// Clamps a requested weight to the accepted range (NaN becomes 0).
  static double clampWeight(double weight);

 private:
  double weight_;
  double average_ = 0.0;      // s_t
  double weightPower_ = 1.0;  // a^t, t = finite values fed so far
};

}  // namespace tbench::ui
