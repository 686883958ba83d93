#!/usr/bin/env bash
# Installs the Debian packages Towerbench needs. Non-interactive and idempotent; works as root
# or through sudo. Installs nothing that is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqcustomplot-dev libqcustomplot2.1-qt6
  libtorch-dev libopenblas0-openmp libgloo-dev
  nlohmann-json3-dev libyaml-cpp-dev zlib1g-dev libpng-dev libjpeg62-turbo-dev
  libprotobuf-dev protobuf-compiler python3-protobuf
  dataset-fashion-mnist python3-torch python3-sklearn python3-pil
  xvfb xauth openbox x11-utils
  # test_Slurm starts a private single-node SLURM from these (its own key, ports and state;
  # the packages' system services are not used: without systemd they do not start).
  slurmctld slurmd slurm-client munge
  # The build's compiler and linker (scripts/configure.sh: clang's precompiled header makes a
  # LibTorch file about four times faster to compile than g++'s; lld links a test in a sixth
  # of GNU ld's time), and scripts/fuzz.sh's libFuzzer and the sanitizers' runtimes.
  clang-14 libclang-rt-14-dev clang lld
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  bash "$(dirname "$0")/make-example-assets.sh"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and not root, no sudo" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
bash "$(dirname "$0")/make-example-assets.sh"
