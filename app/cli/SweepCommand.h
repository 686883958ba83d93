#pragma once
// towerbench-cli sweep SWEEP --dry-run: the sweep checked whole (its keys, then every trial's
// project through the registry) and its trials listed with their values.

#include <iosfwd>

#include "app/cli/CliArgs.h"

namespace tbench::cli {

/// 0 with the trials on `out`; 2 with every problem on `err`.
int runSweep(const CliArgs& args, std::ostream& out, std::ostream& err);

}  // namespace tbench::cli
