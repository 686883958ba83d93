#include "engine/core/Environment.h"

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <sched.h>

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include <torch/torch.h>

#include "engine/core/CpuInfo.h"
#include "engine/core/Logging.h"

namespace tbench {

int64_t availableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    if (const int count = CPU_COUNT(&set); count > 0) return count;
  }
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

int64_t threadsFromEnvironment() {
  const char* value = std::getenv("OMP_NUM_THREADS");
  if (value == nullptr) return 0;
  // "4" or a nested list "4,2" (the outer level counts); anything else is not a count.
  char* end = nullptr;
  errno = 0;
  const long long threads = std::strtoll(value, &end, 10);
  if (errno != 0 || end == value || (*end != '\0' && *end != ',') || threads < 1) return 0;
  return threads;
}

int64_t coresForThisProcess() {
  int64_t cores = availableCores();
  // Several ranks of a distributed run on one host (LOCAL_WORLD_SIZE, Note [Worker
  // environment]) share its cores instead of each taking them all.
  if (const char* local = std::getenv("LOCAL_WORLD_SIZE"); local != nullptr) {
    const int64_t ranks = std::atoll(local);
    if (ranks > 1) cores = std::max<int64_t>(1, cores / ranks);
  }
  return cores;
}

void configureThreads(int64_t requested) {
  const int64_t fromEnvironment = threadsFromEnvironment();
  const int64_t threads = requested > 0         ? requested
                          : fromEnvironment > 0 ? fromEnvironment
                                                : coresForThisProcess();
  if (at::get_num_threads() != threads) at::set_num_threads(static_cast<int>(threads));
}

void tuneAllocator() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

namespace {

/// Set in the restarted process: the core OpenBLAS had picked on its own.
constexpr const char* kRestartedFrom = "TB_OPENBLAS_CORE_BEFORE_RESTART";

/// What the restart did, read by blasDescription: the core asked for and the one OpenBLAS
/// had picked before (both empty when this process was not restarted). Set once in
/// prepareProcess, before any thread starts.
struct RestartRecord {
  std::string requested;
  std::string before;
};
RestartRecord& restartRecord() {
  static RestartRecord record;
  return record;
}

bool sameCore(std::string a, std::string b) {
  const auto lower = [](std::string& s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  };
  lower(a);
  lower(b);
  return a == b;
}

/// The program's own file, as the kernel knows it; empty when /proc is unavailable.
std::string executablePath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return {};
  path[n] = '\0';
  return path;
}

/// True when /proc/self/exe is this program's own ELF interpreter: the dynamic loader run by
/// hand ("ld-linux-x86-64.so.2 ./towerbench-cli ..."), where re-executing /proc/self/exe with
/// this argv would not restart this program. (The loader rewrites the auxiliary vector, so
/// AT_PHDR cannot tell.)
bool startedThroughTheLoader(const std::string& program) {
  std::string interpreter;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {  // the first object is the program
          const ElfW(Phdr)& header = info->dlpi_phdr[i];
          if (header.p_type == PT_INTERP) {
            *static_cast<std::string*>(out) =
                reinterpret_cast<const char*>(info->dlpi_addr + header.p_vaddr);
          }
        }
        return 1;
      },
      &interpreter);
  if (interpreter.empty()) return false;
  char a[PATH_MAX], b[PATH_MAX];
  return realpath(interpreter.c_str(), a) != nullptr && realpath(program.c_str(), b) != nullptr &&
         std::strcmp(a, b) == 0;
}

/// Valgrind (and tools like it) follow the program through LD_PRELOAD; a restart would leave
/// them behind.
bool underAPreloadingTool() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && (std::strstr(preload, "vgpreload") != nullptr ||
                                std::strstr(preload, "valgrind") != nullptr);
}

/// OpenBLAS's name of the kernels it uses ("Prescott", "SkylakeX"), or empty without OpenBLAS.
std::string openBlasCoreName() {
  using CoreName = char* (*)();
  auto fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  return fn != nullptr ? std::string(fn()) : std::string();
}

/// A rank of OpenBLAS x86-64 cores by the widest vector kernels they use: 0 for the generic
/// SSE ones, 1 for AVX2 + FMA, 2 for AVX-512.
int kernelRank(std::string core) {
  std::transform(core.begin(), core.end(), core.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  for (const char* avx512 : {"skylakex", "cooperlake", "sapphirerapids"}) {
    if (core == avx512) return 2;
  }
  for (const char* avx2 : {"haswell", "zen"}) {
    if (core == avx2) return 1;
  }
  return 0;
}

}  // namespace

std::string fasterOpenBlasCore() {
  const std::string core = openBlasCoreName();
  if (core.empty()) return {};
#if defined(__x86_64__) && defined(__GNUC__)
  // __builtin_cpu_supports also checks that the OS saves the AVX-512 / AVX state (XCR0).
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const int rank = kernelRank(core);
  if (avx512 && rank < 2) return "SkylakeX";
  if (avx2 && rank < 1) return "Haswell";
#endif
  return {};
}

void restartWithFasterBlasCore(char** argv) {
  if (const char* before = std::getenv(kRestartedFrom)) {
    // The restarted process: remember what happened, and keep the marker from children (they
    // inherit OPENBLAS_CORETYPE, which is right on the same CPU, and so never restart).
    const char* requested = std::getenv("OPENBLAS_CORETYPE");
    restartRecord() = {requested != nullptr ? requested : "", before};
    unsetenv(kRestartedFrom);
    return;
  }
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::getenv("TB_NO_BLAS_RESTART") != nullptr ||
      underAPreloadingTool()) {
    return;
  }
  const std::string core = fasterOpenBlasCore();
  const std::string program = executablePath();
  if (core.empty() || program.empty() || startedThroughTheLoader(program)) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  setenv(kRestartedFrom, openBlasCoreName().c_str(), 1);
  // The real path, not /proc/self/exe: the kernel names the process after the file it runs,
  // and `pkill towerbench-cli` or top must still find it.
  execv(program.c_str(), argv);
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kRestartedFrom);
  TB_LOG(Warning) << "could not restart with OPENBLAS_CORETYPE=" << core << " (exec of " << program
                  << " failed); set it in the environment for faster BLAS kernels";
}

void prepareProcess(char** argv) {
  restartWithFasterBlasCore(argv);
  tuneAllocator();
}

int endProcess(int code) {
#if defined(__SANITIZE_ADDRESS__)
  return code;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return code;
#endif
#endif
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

std::string blasDescription() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::string library;
  while (std::getline(maps, line)) {
    if (line.find("libopenblas") != std::string::npos ||
        line.find("openblas-") != std::string::npos) {
      library = "OpenBLAS";
      break;
    }
    if (line.find("/blas/libblas.so") != std::string::npos) library = "reference BLAS";
  }
  if (library == "OpenBLAS") {
    const std::string core = openBlasCoreName();
    if (!core.empty()) library += ", core " + core;
    const RestartRecord& restart = restartRecord();
    if (!restart.requested.empty() && sameCore(core, restart.requested)) {
      library += " (chosen by Towerbench; OpenBLAS picked " + restart.before + ")";
    } else if (!restart.requested.empty()) {
      // An OpenBLAS built for one target ignores OPENBLAS_CORETYPE.
      library += " (Towerbench asked for " + restart.requested + " but OpenBLAS kept " + core +
                 "; set TB_NO_BLAS_RESTART=1 to skip the restart)";
    } else if (const std::string faster = fasterOpenBlasCore(); !faster.empty()) {
      const char* set = std::getenv("OPENBLAS_CORETYPE");
      library += set != nullptr
                     ? " (OPENBLAS_CORETYPE=" + std::string(set) +
                           " from the environment, kept; this CPU could use " + faster + ")"
                     : " (this CPU could use " + faster + ": set OPENBLAS_CORETYPE=" + faster + ")";
    } else if (const char* set = std::getenv("OPENBLAS_CORETYPE")) {
      library += " (OPENBLAS_CORETYPE=" + std::string(set) + " from the environment)";
    }
  }
  return library.empty() ? "unknown BLAS" : library;
}

void logEnvironment() {
  const std::string blas = blasDescription();
  TB_LOG(Info) << "LibTorch " << TORCH_VERSION << ", " << at::get_num_threads()
               << " intra-op threads (input pipeline threads: 1 each), " << blas;
  TB_LOG(Info) << "CPU: " << cpuDescription();
  if (blas.rfind("reference", 0) == 0) {
    TB_LOG(Warning) << "the reference BLAS is loaded: training is 9-12x slower than with "
                       "OpenBLAS (install libopenblas0-openmp; scripts/setup.sh does)";
  }
}

}  // namespace tbench
