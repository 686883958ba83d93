#pragma once
// The distributed tests' ranks: a free MASTER_PORT, the torchrun contract's variables
// (Note [Worker environment], engine/comm/WorkerEnvironment.h) for one rank, a run's options.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

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

/// The options of the distributed tests' runs: `runDir`, epochs of `stepsPerEpoch` for
/// `maxEpoch`, no validation (fast), a checkpoint per epoch and every one kept.
inline QStringList checkpointedRun(const QString& runDir, int stepsPerEpoch, int maxEpoch) {
  return {"--run-dir",
          runDir,
          "--steps-per-epoch",
          QString::number(stepsPerEpoch),
          "--max-epoch",
          QString::number(maxEpoch),
          "--set",
          R"(callbacks=[{"type": "model_saver", "max_to_keep": 100}])"};
}

}  // namespace tbench::testing
