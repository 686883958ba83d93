#pragma once
// WorkerEnvironment: which rank of which group this process is, read from the variables the
// cluster launchers set (Note [Worker environment]). No LibTorch here.
//
// Note [Worker environment]: the contract of PyTorch's launchers, so that a Towerbench worker
// runs wherever a PyTorch script would.
//  - torchrun / torch.distributed.launch / `towerbench-cli launch`: RANK, WORLD_SIZE,
//    LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT. With
//    TORCHELASTIC_USE_AGENT_STORE=True (torchrun 1.13's static rendezvous) the elastic agent
//    already hosts the TCPStore at MASTER_ADDR:MASTER_PORT: every rank is a client and its keys
//    live under /worker/attempt_<TORCHELASTIC_RESTART_COUNT>. Otherwise rank 0 hosts the store.
//  - SLURM (srun): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NTASKS_PER_NODE (or
//    SLURM_TASKS_PER_NODE); the master is given by MASTER_ADDR and MASTER_PORT (as in
//    PyTorch's SLURM recipes). Rank 0 hosts the store.
//  - TB_DIST_TIMEOUT_S (optional, seconds) overrides the strategy's timeout_s.
//  - Neither: one process, rank 0 of 1 (the distributed strategy then trains alone).

#include <cstdint>
#include <functional>
#include <string>

namespace tbench {

struct WorkerEnvironment {
  std::string launcher = "none";  ///< "torchrun" (the RANK contract), "slurm" or "none"
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
  int localWorldSize = 1;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;
  /// TORCHELASTIC_USE_AGENT_STORE=True: the store exists; connect as a client under keyPrefix.
  bool agentStore = false;
  int restartCount = 0;  ///< TORCHELASTIC_RESTART_COUNT
  /// "/worker/attempt_<restartCount>" with the agent's store; "" otherwise.
  std::string keyPrefix;
  double timeoutOverrideS = 0;  ///< TB_DIST_TIMEOUT_S, 0 when unset

  /// Whether a launcher started this process as one of several ranks.
  bool launched() const { return launcher != "none"; }
  /// "rank 1 of 2 (torchrun, local rank 1 of 2, master 127.0.0.1:29500)".
  std::string describe() const;

  /// Reads the process's environment. Throws InputError naming the variable that is missing or
  /// not a number, or a rank outside [0, world size).
  static WorkerEnvironment fromEnvironment();
  /// The same from any lookup (tests): returns the value or nullptr when unset.
  static WorkerEnvironment fromLookup(const std::function<const char*(const char*)>& get);
};

/// A TCP port of 127.0.0.1 that nobody listens on now (the system's choice for port 0), for a
/// MASTER_PORT on one machine: concurrent launches never share one. `fallback` when the system
/// gives none. Rank 0 binds it a moment later; another process may take it in between.
int freeLoopbackPort(int fallback);

}  // namespace tbench
