#include "engine/train/Environment.h"

#include <dlfcn.h>
#include <malloc.h>

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
    using CoreName = char* (*)();
    if (auto fn = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
      library += std::string(", core ") + fn();
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
