#!/usr/bin/env bash
# Writes the files the example projects read that are made, not shipped: the TorchScript CNN
# of projects/fashion-mnist-torchscript.json and the PNG class folders of
# projects/fashion-mnist-image-folder.json (1000 training images per class, the 10000 test
# images; about 3 s). Idempotent: existing files are kept. Uses /usr/bin/python3 (python3-torch); downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
assets=projects/assets
mkdir -p "$assets"
if [ ! -f "$assets/fashion_cnn.pt" ]; then
  /usr/bin/python3 scripts/make-torchscript-model.py "$assets/fashion_cnn.pt.tmp" \
    --channels 1 --size 28 --classes 10 --seed 0
  mv "$assets/fashion_cnn.pt.tmp" "$assets/fashion_cnn.pt"
fi
if [ ! -d "$assets/fashion-mnist-png" ]; then
  rm -rf "$assets/fashion-mnist-png.tmp"
  /usr/bin/python3 scripts/make-image-folder.py "$assets/fashion-mnist-png.tmp" --limit 1000 >/dev/null
  mv "$assets/fashion-mnist-png.tmp" "$assets/fashion-mnist-png"
fi
echo "example assets in $assets: $(ls "$assets" | tr '\n' ' ')"
