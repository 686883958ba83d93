#pragma once
// The distributed tests' ranks: a free MASTER_PORT and the torchrun contract's variables
// (Note [Worker environment], engine/comm/WorkerEnvironment.h) for one rank.

#include <QProcessEnvironment>
#include <QString>

#include <unistd.h>

#include "engine/comm/WorkerEnvironment.h"

namespace tbench::testing {

/// A free port for MASTER_PORT: concurrent test runs (CI beside a developer's, ctest
/// --parallel) never share one.
inline int freePort() {
  return tbench::freeLoopbackPort(29700 + static_cast<int>(::getpid() % 1000));
}

/// `base` with the variables of rank `rank` of `world` on this machine, the store at
/// 127.0.0.1:`port`.
inline QProcessEnvironment rankEnvironment(QProcessEnvironment base, int rank, int world,
                                           int port) {
  base.insert("RANK", QString::number(rank));
  base.insert("WORLD_SIZE", QString::number(world));
  base.insert("LOCAL_RANK", QString::number(rank));
  base.insert("LOCAL_WORLD_SIZE", QString::number(world));
  base.insert("MASTER_ADDR", "127.0.0.1");
  base.insert("MASTER_PORT", QString::number(port));
  return base;
}

}  // namespace tbench::testing
