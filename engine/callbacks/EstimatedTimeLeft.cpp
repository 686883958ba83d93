#include "engine/callbacks/EstimatedTimeLeft.h"

#include <algorithm>

#include "engine/callbacks/ProgressBar.h"
#include "engine/core/Logging.h"

namespace tbench {

void EstimatedTimeLeft::onTriggerEpoch() {
  double seconds = clock_.running(context());
  const int64_t steps = context().stepsPerEpoch(), before = clock_.stepsBefore();
  if (before > 0 && before < steps) {
    // Only the steps scale: validation at the epoch's end takes as long after a resume.
    seconds += stepsSeconds_ * (static_cast<double>(before) / static_cast<double>(steps - before));
  }
  durations_.push_back(seconds);
  std::vector<double> sorted = durations_;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  const double median = sorted[sorted.size() / 2];
  const int64_t remaining = context().maxEpoch() - context().epochNum();
  secondsLeft_ = median * static_cast<double>(std::max<int64_t>(remaining, 0));
  if (remaining > 0) {
    TB_LOG(Info) << "estimated time left: " << formatDuration(secondsLeft_) << " (" << remaining
                 << " epochs of about " << formatDuration(median) << ")";
  }
}

}  // namespace tbench
