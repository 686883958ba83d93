#include "engine/train/Environment.h"

#include <dlfcn.h>
#include <malloc.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <torch/torch.h>

#include "engine/core/Logging.h"

namespace tbench {

void configureThreads(int64_t requested) {
  const int64_t cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  const int64_t threads = requested > 0 ? requested : cores;
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
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::getenv("TB_NO_BLAS_RESTART") != nullptr) {
    return;
  }
  const std::string core = fasterOpenBlasCore();
  if (core.empty()) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  setenv(kRestartedFrom, openBlasCoreName().c_str(), 1);
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, say): go on with the kernels OpenBLAS picked, and say so.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kRestartedFrom);
  TB_LOG(Warning) << "could not restart with OPENBLAS_CORETYPE=" << core
                  << " (exec failed); set it in the environment for faster BLAS kernels";
}

void prepareProcess(char** argv) {
  restartWithFasterBlasCore(argv);
  tuneAllocator();
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
    if (const char* before = std::getenv(kRestartedFrom)) {
      library += std::string(" (chosen by Towerbench; OpenBLAS picked ") + before + ")";
    } else if (const std::string faster = fasterOpenBlasCore(); !faster.empty()) {
      library += " (this CPU could use " + faster + ": set OPENBLAS_CORETYPE=" + faster + ")";
    }
  }
  return library.empty() ? "unknown BLAS" : library;
}

void logEnvironment() {
  const std::string blas = blasDescription();
  TB_LOG(Info) << "LibTorch " << TORCH_VERSION << ", " << at::get_num_threads()
               << " intra-op threads, " << blas;
  if (blas.rfind("reference", 0) == 0) {
    TB_LOG(Warning) << "the reference BLAS is loaded: training is 9-12x slower than with "
                       "OpenBLAS (install libopenblas0-openmp; scripts/setup.sh does)";
  }
}

}  // namespace tbench
