#pragma once
// `towerbench-cli types [KIND] [--markdown]`: the component types a project may use, read from
// the engine's registry (engine/project/registry/ComponentRegistry.h), so types registered by a
// test or a plugin are listed like the built-in ones.

#include <iosfwd>

#include "app/cli/CliArgs.h"

namespace tbench::cli {

/// Prints the listing (or the Markdown key reference) to `out`; an unknown KIND goes to `err`
/// with the kinds there are. Returns 0, or 2 for an unknown kind.
int runTypes(const CliArgs& args, std::ostream& out, std::ostream& err);

}  // namespace tbench::cli
