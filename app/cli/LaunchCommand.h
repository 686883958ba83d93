#pragma once
// `towerbench-cli launch`: starts the local workers of a distributed run as child processes of
// this program (`train PROJECT ...` with the torchrun variables RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT; Note [Worker environment]), merges
// their output line by line with a "[rank N] " prefix, forwards Ctrl-C / SIGTERM to them, and
// returns the worst exit status (a worker killed by signal S counts as 128 + S). When one worker
// fails, the others end on their own within the strategy's timeout (Note [Distributed
// faults]); any still running 30 s after that are terminated.

#include "app/cli/CliArgs.h"

namespace tbench::cli {

int runLaunch(const CliArgs& args, const std::string& program);

}  // namespace tbench::cli
