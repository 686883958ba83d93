#pragma once
// Process-wide settings that decide training speed on CPU (docs/ARCHITECTURE.md, speed notes).

#include <string>

namespace tbench {

/// Sets LibTorch's intra-op threads: `requested`, or the cores available when 0.
void configureThreads(int64_t requested);

/// Raises glibc's mmap and trim thresholds so that the 10-25 MB tensors a step frees and
/// re-allocates stay in the heap instead of going back to the kernel every step (measured
/// 1.10-1.17x on a ConvNet step). Call once, early in main().
void tuneAllocator();

/// Which BLAS library the process loaded ("OpenBLAS (openmp), core SkylakeX", "reference
/// BLAS", ...), read from /proc/self/maps and OpenBLAS itself.
std::string blasDescription();

/// Logs the BLAS and thread settings; warns when the reference BLAS is loaded (9-12x slower).
void logEnvironment();

}  // namespace tbench
