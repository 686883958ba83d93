#pragma once
// The process's resident memory, for the benchmarks that watch it grow (bench_memory_growth,
// bench_soak). No LibTorch, no Qt.

#include <fstream>
#include <string>

namespace tbench::bench {

/// The process's resident set size in MiB, from /proc/self/status; -1 when unreadable.
inline double residentMiB() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      double kib = 0;
      status >> kib;
      return kib / 1024.0;
    }
    status.ignore(1 << 20, '\n');
  }
  return -1;
}

}  // namespace tbench::bench
