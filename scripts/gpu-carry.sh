#!/usr/bin/env bash
# Puts together what scripts/gpu-check.sh needs on a GPU machine that lacks it and has no
# network: run it here (Debian 12 with its package archive), then carry the folder along.
#
#   scripts/gpu-carry.sh [DIR]     (default .gpu-carry, ignored by git; about 50 MB)
#
# DIR/debs/: Debian 12's development packages of nlohmann-json, libpng, libjpeg, zlib, Gloo
#   (headers that c10d's ProcessGroupGloo.hpp includes) and protobuf (with their shared libraries and protoc), and QtCore and QtTest with moc and their
#   runtime libraries (for the engine's Qt Test executables that hold the CUDA test cases).
#   gpu-check.sh unpacks a group into its build directory, never into the system, and only when
#   the machine lacks it.
# DIR/fashion-mnist/: the Fashion-MNIST IDX files of dataset-fashion-mnist, for the MLP,
#   ConvNet and mixed-precision rows.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath -m "${1:-$root/.gpu-carry}")
mkdir -p "$dir/debs" "$dir/fashion-mnist"
packages=(nlohmann-json3-dev libpng-dev libpng16-16 libjpeg62-turbo-dev libjpeg62-turbo
          zlib1g-dev libgloo-dev libprotobuf-dev libprotobuf32 libprotobuf-lite32 libprotoc32
          protobuf-compiler
          qt6-base-dev qt6-base-dev-tools qmake6 qmake6-bin libqt6core6 libqt6test6 libicu72
          libdouble-conversion3 libpcre2-16-0 libb2-1 libglib2.0-0)
(cd "$dir/debs" && rm -f ./*.deb && apt-get download "${packages[@]}")
cp /usr/share/datasets/fashion-mnist/*.gz "$dir/fashion-mnist/"
du -sh "$dir/debs" "$dir/fashion-mnist"
du -sh "$dir"
# The device tool carries at most 64 MiB with the working tree.
