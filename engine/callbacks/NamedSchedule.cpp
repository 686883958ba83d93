#include "engine/callbacks/NamedSchedule.h"

#include <algorithm>
#include <cmath>

#include "engine/callbacks/TrainerContext.h"
#include "engine/core/Check.h"

namespace tbench {
namespace {

/// PyTorch's _annealing_cos: from `start` at pct 0 to `end` at pct 1.
double annealCos(double start, double end, double pct) {
  return end + (start - end) / 2.0 * (std::cos(M_PI * pct) + 1.0);
}

}  // namespace

double namedScheduleValue(const NamedScheduleShape& s, int64_t position) {
  TB_CHECK(s.length > 0, "a named schedule needs a length, got ", s.length);
  const double T = static_cast<double>(s.length);
  const double t = static_cast<double>(std::clamp<int64_t>(position, 0, s.length));
  if (s.shape == "cosine") return annealCos(s.base, s.minValue, t / T);
  if (s.shape == "warmup_cosine") {
    const double W = static_cast<double>(std::min(s.warmup, s.length - 1));
    if (t < W) return s.base * t / W;
    return annealCos(s.base, s.minValue, (t - W) / std::max(1.0, T - W));
  }
  if (s.shape == "one_cycle") {
    const double initial = s.base / s.divFactor;
    const double last = initial / s.finalDivFactor;
    // OneCycleLR's phases end at these steps; the last position is T - 1.
    const double riseEnd = s.pctStart * T - 1.0;
    const double fallEnd = T - 1.0;
    const double step = std::min(t, fallEnd);
    if (step <= riseEnd) return annealCos(initial, s.base, riseEnd > 0 ? step / riseEnd : 1.0);
    return annealCos(s.base, last, (step - riseEnd) / (fallEnd - riseEnd));
  }
  TB_CHECK(false, "unknown schedule shape \"", s.shape, "\"");
  return 0;
}

NamedScheduleSetter::NamedScheduleSetter(std::string param, NamedScheduleShape shape, Unit unit,
                                         int64_t runLength)
    : HyperParamSetter(std::move(param), unit), shape_(std::move(shape)), runLength_(runLength) {
  TB_CHECK(shape_.length >= 0 && shape_.warmup >= 0, "schedule length and warm-up must be >= 0");
}

std::optional<double> NamedScheduleSetter::valueAt(int64_t position) const {
  NamedScheduleShape shape = shape_;
  if (shape.length == 0) {
    shape.length = runLength_;
    if (shape.length == 0) {
      const TrainerContext& c = context();
      shape.length = unit() == Unit::Epoch ? c.maxEpoch() : c.maxEpoch() * c.stepsPerEpoch();
    }
  }
  return namedScheduleValue(shape, position);
}

}  // namespace tbench
