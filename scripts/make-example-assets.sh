#!/usr/bin/env bash
# Writes the files the example projects read that are made, not shipped: the TorchScript CNN
# of projects/fashion-mnist-torchscript.json (and the image folders of
# projects/fashion-mnist-image-folder.json once its script exists). Idempotent: existing files
# are kept. Uses /usr/bin/python3 (python3-torch); downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
assets=projects/assets
mkdir -p "$assets"
if [ ! -f "$assets/fashion_cnn.pt" ]; then
  /usr/bin/python3 scripts/make-torchscript-model.py "$assets/fashion_cnn.pt.tmp" \
    --channels 1 --size 28 --classes 10 --seed 0
  mv "$assets/fashion_cnn.pt.tmp" "$assets/fashion_cnn.pt"
fi
echo "example assets in $assets: $(ls "$assets" | tr '\n' ' ')"
