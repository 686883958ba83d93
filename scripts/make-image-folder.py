#!/usr/bin/python3
"""Writes Fashion-MNIST (Debian's dataset-fashion-mnist, no download) as PNG image folders:

    OUT/train/<class name>/NNNNN.png     60000 images (or --limit per class)
    OUT/test/<class name>/NNNNN.png      10000 images

as an "image_folder" data source (and torchvision's ImageFolder) reads them. NNNNN is the
image's index in its IDX file. Class names are Fashion-MNIST's, with "/" written as "_"
("T-shirt_top"); an image folder numbers classes in the sorted order of their names, so its
labels are not the IDX file's numbers (use --numbered to keep them: "0_T-shirt_top", ...).

    /usr/bin/python3 scripts/make-image-folder.py OUT [--limit N] [--split train|test|both]
"""

import argparse
import gzip
import os
import sys

import numpy as np
from PIL import Image

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"  # engine/data/datasets/FashionMnist.h, kDefaultDir
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
           "Bag", "Ankle boot"]
FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def read_idx(path):
    """The array of an IDX file (plain or .gz) of unsigned bytes."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        sys.exit(f"{path}: not an IDX file of unsigned bytes")
    rank = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank)
    if body.size != int(np.prod(shape)):
        sys.exit(f"{path}: {body.size} bytes of data for a shape of {shape}")
    return body.reshape(shape)


def find(directory, name):
    for candidate in (name, name + ".gz"):
        path = os.path.join(directory, candidate)
        if os.path.exists(path):
            return path
    sys.exit(f"{directory}: neither {name} nor {name}.gz (install dataset-fashion-mnist)")


def folder_name(label, numbered):
    name = CLASSES[label].replace("/", "_")
    return f"{label}_{name}" if numbered else name


def write_split(source, out, split, limit, numbered):
    images = read_idx(find(source, FILES[split][0]))
    labels = read_idx(find(source, FILES[split][1]))
    if images.shape[0] != labels.shape[0]:
        sys.exit(f"{split}: {images.shape[0]} images but {labels.shape[0]} labels")
    written = [0] * len(CLASSES)
    for label in range(len(CLASSES)):
        os.makedirs(os.path.join(out, split, folder_name(label, numbered)), exist_ok=True)
    for index, (image, label) in enumerate(zip(images, labels)):
        if limit and written[label] >= limit:
            continue
        path = os.path.join(out, split, folder_name(label, numbered), f"{index:05d}.png")
        Image.fromarray(image, "L").save(path)
        written[label] += 1
    print(f"{split}: {sum(written)} images in {os.path.join(out, split)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the folder to write train/ and test/ into")
    parser.add_argument("--limit", type=int, default=0, help="at most this many images per class")
    parser.add_argument("--split", choices=["train", "test", "both"], default="both")
    parser.add_argument("--source", default=DEFAULT_DIR, help="the Fashion-MNIST IDX files")
    parser.add_argument("--numbered", action="store_true",
                        help="prefix class folders with the IDX label so the order is kept")
    args = parser.parse_args()
    for split in (["train", "test"] if args.split == "both" else [args.split]):
        write_split(args.source, args.out, split, args.limit, args.numbered)


if __name__ == "__main__":
    main()
