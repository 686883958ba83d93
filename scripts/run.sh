#!/usr/bin/env bash
# Installs what is missing, builds Towerbench and opens the window on the default project.
#   scripts/run.sh [PROJECT]                       the window (needs a display)
#   scripts/run.sh --headless [PROJECT] [options]  towerbench-cli train, same options
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${BUILD_DIR:-build}
BUILD_DIR="$build_dir" bash scripts/configure.sh
if [ "${1:-}" = "--headless" ]; then
  shift
  cmake --build "$build_dir" --parallel "$(nproc)" --target towerbench-cli
  project=${1:-projects/fashion-mnist-convnet.json}
  shift || true
  exec "$build_dir/bin/towerbench-cli" train "$project" "$@"
fi
cmake --build "$build_dir" --parallel "$(nproc)" --target towerbench
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "run.sh: no display (DISPLAY is not set). Use a desktop session, 'xvfb-run -a scripts/run.sh'," >&2
  echo "        or 'scripts/run.sh --headless' to train without the window." >&2
  exit 2
fi
exec "$build_dir/bin/towerbench" "${1:-projects/fashion-mnist-convnet.json}"
