#pragma once
// NamedSchedule: the learning-rate shapes users name instead of listing points
// ("schedule.learning_rate.shape", docs/PROJECT-FORMAT.md), each scaled by the optimizer's
// learning_rate (`base`) over `length` positions (epochs or steps; 0: the whole run, maxEpoch
// epochs or maxEpoch × stepsPerEpoch steps), position t = epochs completed or the global step
// about to run (HyperParamSetter.h), as a PyTorch scheduler stepped once per epoch or step:
//
//   cosine         min + (base - min)(1 + cos(pi t / T)) / 2: torch.optim.lr_scheduler.
//                  CosineAnnealingLR(T_max = T, eta_min = min) (its closed form).
//   warmup_cosine  base × t / W for t < W, then cosine from base to min over the remaining T - W:
//                  Hugging Face's get_cosine_schedule_with_warmup when min = 0.
//   one_cycle      torch.optim.lr_scheduler.OneCycleLR(max_lr = base, total_steps = T,
//                  pct_start, div_factor, final_div_factor, anneal_strategy="cos",
//                  three_phase=False): cosine from base / div_factor up to base over
//                  pct_start × T - 1 positions, then down to base / div_factor /
//                  final_div_factor at T - 1. PyTorch also cycles the momentum; this does not.
//
// After T every shape holds its last value (OneCycleLR raises instead). Golden values are
// PyTorch's own (tests/engine/callbacks/test_NamedSchedule.cpp runs torch's schedulers).

#include <cstdint>
#include <string>

#include "engine/callbacks/HyperParamSetter.h"

namespace tbench {

struct NamedScheduleShape {
  std::string shape = "cosine";  ///< "cosine", "warmup_cosine" or "one_cycle"
  double base = 1e-3;
  int64_t length = 0;  ///< 0: the whole run (NamedScheduleSetter resolves it)
  int64_t warmup = 0;
  double minValue = 0;
  double pctStart = 0.3;
  double divFactor = 25;
  double finalDivFactor = 1e4;
};

/// The value of `shape` at `position` (shape.length must be > 0). CheckError for an unknown
/// shape.
double namedScheduleValue(const NamedScheduleShape& shape, int64_t position);

/// Sets a hyper-parameter by a named shape. A length of 0 is the whole run, read from the
/// trainer when training starts (or `runLength` when given: a preview's valueFor needs it).
class NamedScheduleSetter : public HyperParamSetter {
 public:
  NamedScheduleSetter(std::string param, NamedScheduleShape shape, Unit unit,
                      int64_t runLength = 0);

 protected:
  std::optional<double> valueAt(int64_t position) const override;

 private:
  NamedScheduleShape shape_;
  int64_t runLength_;
};

}  // namespace tbench
