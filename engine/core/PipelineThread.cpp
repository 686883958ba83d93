#include "engine/core/PipelineThread.h"

#include <dlfcn.h>

#include <ATen/Parallel.h>

namespace tbench {

int useOneIntraOpThreadHere() {
  // ATen initialises a thread's OpenMP setting from the process-wide one at the thread's first
  // parallel call; do that now, so that it does not undo the setting below later.
  at::internal::lazy_init_num_threads();
  // omp_set_num_threads through the process's own OpenMP runtime (the one LibTorch loaded:
  // libgomp, or the copy with a hashed name that PyTorch's wheels bundle), so that this file
  // needs no -fopenmp and calls no second runtime.
  using SetThreads = void (*)(int);
  static const auto setThreads =
      reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (setThreads != nullptr) setThreads(1);
  return at::get_num_threads();
}

}  // namespace tbench
