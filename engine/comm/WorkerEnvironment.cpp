#include "engine/comm/WorkerEnvironment.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "engine/core/Check.h"

namespace tbench {
namespace {

int integerVariable(const std::function<const char*(const char*)>& get, const char* name, int min) {
  const char* text = get(name);
  if (text == nullptr || *text == '\0') {
    throw InputError(str("distributed worker: the environment variable ", name,
                         " is not set (see Note [Worker environment])"));
  }
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < min || value > 1000000) {
    throw InputError(
        str("distributed worker: ", name, "=\"", text, "\" is not an integer >= ", min));
  }
  return static_cast<int>(value);
}

int optionalInteger(const std::function<const char*(const char*)>& get, const char* name, int min,
                    int fallback) {
  const char* text = get(name);
  return text == nullptr || *text == '\0' ? fallback : integerVariable(get, name, min);
}

/// SLURM_TASKS_PER_NODE looks like "2(x3),1": the first node's count is enough for
/// LOCAL_WORLD_SIZE on homogeneous allocations.
int slurmTasksPerNode(const std::function<const char*(const char*)>& get, int fallback) {
  if (const char* n = get("SLURM_NTASKS_PER_NODE"); n != nullptr && *n != '\0') {
    return integerVariable(get, "SLURM_NTASKS_PER_NODE", 1);
  }
  const char* text = get("SLURM_TASKS_PER_NODE");
  if (text == nullptr) return fallback;
  const long value = std::strtol(text, nullptr, 10);
  return value > 0 ? static_cast<int>(value) : fallback;
}

}  // namespace

std::string WorkerEnvironment::describe() const {
  if (!launched()) return "one process (no launcher variables)";
  return str("rank ", rank, " of ", worldSize, " (", launcher, ", local rank ", localRank, " of ",
             localWorldSize, ", master ", masterAddr, ":", masterPort,
             agentStore ? str(", agent store ", keyPrefix) : std::string(), ")");
}

WorkerEnvironment WorkerEnvironment::fromEnvironment() {
  return fromLookup([](const char* name) { return std::getenv(name); });
}

WorkerEnvironment WorkerEnvironment::fromLookup(
    const std::function<const char*(const char*)>& get) {
  WorkerEnvironment env;
  const bool torchrun = get("RANK") != nullptr || get("WORLD_SIZE") != nullptr;
  const bool slurm = !torchrun && get("SLURM_PROCID") != nullptr;
  if (torchrun) {
    env.launcher = "torchrun";
    env.rank = integerVariable(get, "RANK", 0);
    env.worldSize = integerVariable(get, "WORLD_SIZE", 1);
    env.localRank = optionalInteger(get, "LOCAL_RANK", 0, env.rank);
    env.localWorldSize = optionalInteger(get, "LOCAL_WORLD_SIZE", 1, env.worldSize);
  } else if (slurm) {
    env.launcher = "slurm";
    env.rank = integerVariable(get, "SLURM_PROCID", 0);
    env.worldSize = integerVariable(get, "SLURM_NTASKS", 1);
    env.localRank = optionalInteger(get, "SLURM_LOCALID", 0, env.rank);
    env.localWorldSize = slurmTasksPerNode(get, env.worldSize);
  } else {
    env.timeoutOverrideS = 0;
  }
  if (const char* t = get("TB_DIST_TIMEOUT_S"); t != nullptr && *t != '\0') {
    env.timeoutOverrideS = integerVariable(get, "TB_DIST_TIMEOUT_S", 1);
  }
  if (!env.launched()) return env;
  if (env.rank >= env.worldSize) {
    throw InputError(str("distributed worker: rank ", env.rank, " is outside world size ",
                         env.worldSize, " (",
                         torchrun ? "RANK/WORLD_SIZE"
                                  : "SLURM_PROCID/"
                                    "SLURM_NTASKS",
                         ")"));
  }
  const char* addr = get("MASTER_ADDR");
  if (env.worldSize > 1 && (addr == nullptr || *addr == '\0')) {
    throw InputError(str("distributed worker: MASTER_ADDR is not set (", env.launcher,
                         " gives the rank; the master's address must be given too)"));
  }
  if (addr != nullptr && *addr != '\0') env.masterAddr = addr;
  env.masterPort = env.worldSize > 1 ? integerVariable(get, "MASTER_PORT", 1)
                                     : optionalInteger(get, "MASTER_PORT", 1, env.masterPort);
  if (env.masterPort > 65535) {
    throw InputError(str("distributed worker: MASTER_PORT=", env.masterPort, " is not a port"));
  }
  const char* agent = get("TORCHELASTIC_USE_AGENT_STORE");
  env.agentStore = torchrun && agent != nullptr && std::string(agent) == "True";
  env.restartCount = optionalInteger(get, "TORCHELASTIC_RESTART_COUNT", 0, 0);
  if (env.agentStore) env.keyPrefix = str("/worker/attempt_", env.restartCount);
  return env;
}

int freeLoopbackPort(int fallback) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port > 0 ? port : fallback;
}

}  // namespace tbench
