#include "widgets/EmaSmoother.h"

#include <cmath>

namespace tbench::ui {

EmaSmoother::EmaSmoother(double weight) : weight_(clampWeight(weight)) {}

double EmaSmoother::clampWeight(double weight) {
  if (!(weight > 0.0)) return 0.0;  // also maps NaN to 0
  return weight > kMaxWeight ? kMaxWeight : weight;
}

double EmaSmoother::add(double x) {
  if (!std::isfinite(x)) return x;
  average_ = weight_ * average_ + (1.0 - weight_) * x;
  weightPower_ *= weight_;
  // weightPower_ < 1 after one finite value (weight_ <= 0.999), so the divisor is positive.
  return average_ / (1.0 - weightPower_);
}

double EmaSmoother::addRepeated(double x, double times) {
  if (!std::isfinite(x)) return x;
  const double decay = std::pow(weight_, times);
  average_ = decay * average_ + (1.0 - decay) * x;
  weightPower_ *= decay;
  return average_ / (1.0 - weightPower_);
}

void EmaSmoother::reset() {
  average_ = 0.0;
  weightPower_ = 1.0;
}

}  // namespace tbench::ui
