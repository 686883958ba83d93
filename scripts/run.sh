#!/usr/bin/env bash
# Installs what is missing, builds Towerbench and trains the default project headless.
#   scripts/run.sh [PROJECT] [towerbench-cli train options...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)" --target towerbench-cli
project=${1:-projects/fashion-mnist-convnet.json}
shift || true
exec "$build_dir/bin/towerbench-cli" train "$project" "$@"
