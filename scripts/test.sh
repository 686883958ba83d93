#!/usr/bin/env bash
# Installs what is missing, builds Towerbench and runs the whole test suite.
#   scripts/test.sh            (BUILD_DIR defaults to ./build)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
BUILD_DIR="$build_dir" bash scripts/configure.sh
jobs=$(nproc)
cmake --build "$build_dir" --parallel "$jobs"
cd "$build_dir"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure --parallel "$jobs" --timeout 600
