"""The PyTorch side of bench_image_folder: torchvision's ImageFolder with RandomCrop(28,
padding=2), RandomHorizontalFlip, ToTensor and Normalize(0.5, 0.5), written by hand
(torchvision is not installed here), read by a DataLoader with batch 128. Prints the samples
per second of one timed epoch after a warm-up epoch (persistent workers: the timed epoch does
not start processes).

    /usr/bin/python3 bench/bench_image_folder.py DIR --workers W [--epochs E]
"""

import argparse
import os
import time

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

EXTENSIONS = (".png", ".jpg", ".jpeg")


class ImageFolder(Dataset):
    """torchvision.datasets.ImageFolder: classes are the sorted sub-folders."""

    def __init__(self, root, size, padding):
        classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.samples = []
        for label, name in enumerate(classes):
            folder = os.path.join(root, name)
            for file in sorted(os.listdir(folder)):
                if file.lower().endswith(EXTENSIONS):
                    self.samples.append((os.path.join(folder, file), label))
        self.size, self.padding = size, padding

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        path, label = self.samples[index]
        with open(path, "rb") as f:
            image = Image.open(f).convert("L")
        # ToTensor
        x = torch.from_numpy(np.array(image, dtype=np.uint8)).unsqueeze(0).float().div_(255)
        # RandomCrop(size, padding): zero padding, a random window
        p = self.padding
        x = torch.nn.functional.pad(x, (p, p, p, p))
        top = int(torch.randint(0, x.shape[1] - self.size + 1, (1,)))
        left = int(torch.randint(0, x.shape[2] - self.size + 1, (1,)))
        x = x[:, top:top + self.size, left:left + self.size]
        # RandomHorizontalFlip
        if float(torch.rand(1)) < 0.5:
            x = x.flip(-1)
        # Normalize(0.5, 0.5)
        return x.sub_(0.5).div_(0.5), label


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=1, help="timed epochs (median reported)")
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    data = ImageFolder(args.dir, 28, 2)
    loader = DataLoader(data, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                        persistent_workers=args.workers > 0)
    rates = []
    for epoch in range(args.epochs + 1):
        start = time.perf_counter()
        samples = 0
        for images, labels in loader:
            samples += images.shape[0]
        elapsed = time.perf_counter() - start
        if epoch > 0:  # epoch 0 warms up (workers, page cache)
            rates.append(samples / elapsed)
    print(f"samples/s: {sorted(rates)[len(rates) // 2]:.1f}")


if __name__ == "__main__":
    main()
