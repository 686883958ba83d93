#pragma once
// Process-wide settings that decide training speed on CPU (docs/ARCHITECTURE.md, speed notes).

#include <cstdint>
#include <string>

namespace tbench {

/// The CPUs this process may run on: its CPU affinity (taskset, a cgroup's cpuset, SLURM's
/// --cpus-per-task under task/affinity), the machine's cores without one.
int64_t availableCores();

/// The cores this process may count on: availableCores(), divided by LOCAL_WORLD_SIZE when
/// several distributed ranks share the host.
int64_t coresForThisProcess();

/// OMP_NUM_THREADS as a thread count (its first level, "4" of "4,2"); 0 when unset or not a
/// positive count.
int64_t threadsFromEnvironment();

/// Sets LibTorch's intra-op threads: `requested`; when 0, OMP_NUM_THREADS as PyTorch honours
/// it, else coresForThisProcess().
void configureThreads(int64_t requested);

/// Raises glibc's mmap and trim thresholds so that the 10-25 MB tensors a step frees and
/// re-allocates stay in the heap instead of going back to the kernel every step (measured
/// 1.10-1.17x on a ConvNet step). Call once, early in main().
void tuneAllocator();

/// The OpenBLAS core this CPU can run but OpenBLAS did not pick ("SkylakeX" with AVX-512,
/// "Haswell" with AVX2 and FMA), or empty when OpenBLAS is not loaded or already uses kernels
/// as good. OpenBLAS 0.3.21 does not recognise the Xeons of the build machines and falls back to
/// its generic "Prescott" kernels (docs/ARCHITECTURE.md, speed notes).
std::string fasterOpenBlasCore();

/// Note [OpenBLAS core restart]: OpenBLAS reads OPENBLAS_CORETYPE only while it loads, before
/// main(). When fasterOpenBlasCore() names a core, this sets OPENBLAS_CORETYPE to it and
/// restarts the program with the same arguments (execv of /proc/self/exe); measured here, an MLP
/// step is 1.85x and a ConvNet step 1.3x faster with SkylakeX kernels. It does nothing when
/// OPENBLAS_CORETYPE is already set (the user's choice, or the restarted process) or
/// TB_NO_BLAS_RESTART is, when the program was started through the dynamic loader or runs under
/// valgrind, and returns normally when exec fails. The restarted process keeps its name (it
/// execs its own file, not /proc/self/exe). Call first in main(), before any thread starts.
/// blasDescription() and logEnvironment() report what was chosen, and whether OpenBLAS
/// followed it.
void restartWithFasterBlasCore(char** argv);

/// What every Towerbench program does first in main(): restartWithFasterBlasCore and
/// tuneAllocator.
void prepareProcess(char** argv);

/// Ends a program whose work is done with `code`: flushes the standard streams and exits
/// without the static destructors, whose largest part is LibTorch taking down its operator
/// registry (~65 ms of a CLI command's ~0.6 s here, every rank and trial included). Everything
/// the program wrote must be closed already (main's locals are). Under AddressSanitizer it
/// returns `code`, so that main's return runs the leak check.
int endProcess(int code);

/// Which BLAS library the process loaded ("OpenBLAS (openmp), core SkylakeX", "reference
/// BLAS", ...), read from /proc/self/maps and OpenBLAS itself.
std::string blasDescription();

/// Logs the BLAS and thread settings; warns when the reference BLAS is loaded (9-12x slower).
void logEnvironment();

}  // namespace tbench
