#!/usr/bin/env bash
# Configures a build directory (BUILD_DIR, default ./build) with Ninja in Release, as
# scripts/test.sh and scripts/run.sh build it. Extra arguments go to cmake.
#
# A new build directory gets clang++ when it is installed (scripts/setup.sh installs clang-14):
# clang's precompiled header keeps LibTorch's template instantiations, so a file that includes
# <torch/torch.h> compiles in about a quarter of g++'s time on the 2-core machines (g++
# instantiates them again in every file: 11 s for an empty one). CXX=g++ (or any compiler)
# chooses another; an existing build directory keeps the compiler it was configured with.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
compiler=()
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  if [ -n "${CXX:-}" ]; then
    compiler=(-DCMAKE_CXX_COMPILER="$CXX")
  else
    for candidate in clang++ clang++-14; do
      if command -v "$candidate" >/dev/null 2>&1; then
        compiler=(-DCMAKE_CXX_COMPILER="$(command -v "$candidate")")
        break
      fi
    done
  fi
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${compiler[@]}" "$@" >/dev/null
