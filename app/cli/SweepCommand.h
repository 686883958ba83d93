#pragma once
// towerbench-cli sweep SWEEP: the sweep checked whole (its keys, then every trial's
// project through the registry) and its trials listed with their values; then, without
// --dry-run, run by the queue (engine/sweep/SweepQueue.h) and printed ranked by the metric.

#include <iosfwd>

#include "app/cli/CliArgs.h"

namespace tbench::cli {

/// 0 with the trials on `out` (run: when any trial finished or was pruned; 1 when none did);
/// 2 with every problem on `err`.
int runSweep(const CliArgs& args, std::ostream& out, std::ostream& err);

}  // namespace tbench::cli
