#pragma once
// A sweep trial's process (Note [The sweep queue]): `towerbench-cli train ...` started with
// posix_spawn, its standard input /dev/null, its output appended to a file, SIGINT and SIGTERM
// back to their defaults and no signal blocked.

#include <sys/types.h>

#include <string>
#include <vector>

namespace tbench {

/// Starts args[0] with `args` and the environment `env`, its stdout and stderr appended to
/// `outputFile`; in a process group of its own when `ownProcessGroup`. Returns 0 with `*pid`,
/// or the errno of a process that could not start.
int spawnProcess(const std::vector<std::string>& args, const std::vector<std::string>& env,
                 const std::string& outputFile, bool ownProcessGroup, pid_t* pid);

}  // namespace tbench
