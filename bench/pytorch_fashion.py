"""The PyTorch-Python side of bench_whole_job.py: the Fashion-MNIST job as a PyTorch user writes
it. The IDX files are read once into memory (torchvision's FashionMNIST does the same), a
Dataset returns one (image / 255 as float32 [1, 28, 28], label) per index (ToTensor), a
DataLoader batches them (shuffle, num_workers W), and the model, optimizer and epochs are the
project's: Adam, cross-entropy, then the test set evaluated once per epoch.

    /usr/bin/python3 bench/pytorch_fashion.py --model mlp|convnet [--hidden 256,256]
        [--fc 1024] [--batch-norm] [--dropout P] [--batch 128] [--epochs 1] [--workers 0]
        [--dir /usr/share/datasets/fashion-mnist | --image-folder ROOT] [--steps N]

--image-folder ROOT reads ROOT/train and ROOT/test as torchvision's ImageFolder would, with
bench_image_folder.py's transforms (PIL decode, RandomCrop(28, padding=2) and flip for
training, Normalize(0.286, 0.353): the fashion-mnist-image-folder project's).

Prints one line: "epochs E steps S train_s T test_error X". The caller times the whole
process (start-up and data loading included), as a user experiences it.
"""

import argparse
import gzip
import os
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


class Fashion(Dataset):
    def __init__(self, directory, split):
        prefix = "train" if split == "train" else "t10k"
        self.images = read_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte.gz"))
        self.labels = read_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte.gz"))

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = torch.from_numpy(self.images[i].astype(np.float32) / 255.0).unsqueeze(0)
        return image, int(self.labels[i])


def mlp(hidden):
    layers, width = [nn.Flatten()], 784
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, 10))
    return nn.Sequential(*layers)


def convnet(fc, batch_norm, dropout):
    # Towerbench's ConvNet: conv 5x5 (same) 32, [bn], relu, pool; conv 5x5 64, [bn], relu,
    # pool; fc, relu, dropout, fc 10. BatchNorm replaces the convolutions' bias.
    def block(cin, cout):
        layers = [nn.Conv2d(cin, cout, 5, padding=2, bias=not batch_norm)]
        if batch_norm:
            layers.append(nn.BatchNorm2d(cout))
        return layers + [nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*block(1, 32), *block(32, 64), nn.Flatten(),
                         nn.Linear(64 * 7 * 7, fc), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(fc, 10))


class Normalized(Dataset):
    """bench_image_folder.ImageFolder (random crop and flip) for training, plain decoding for
    the test set, normalised with the project's mean and std."""

    def __init__(self, root, train):
        from bench_image_folder import ImageFolder
        self.folder = ImageFolder(root, 28, 2)
        self.train = train

    def __len__(self):
        return len(self.folder)

    def __getitem__(self, i):
        if self.train:
            x, label = self.folder[i]  # normalised with (0.5, 0.5): back to [0, 1]
            x = x.mul_(0.5).add_(0.5)
        else:
            from PIL import Image
            path, label = self.folder.samples[i]
            with open(path, "rb") as f:
                image = Image.open(f).convert("L")
            x = torch.from_numpy(np.array(image, dtype=np.uint8)).unsqueeze(0).float().div_(255)
        return x.sub_(0.286).div_(0.353), label


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "convnet"], required=True)
    parser.add_argument("--hidden", default="256,128")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--steps", type=int, default=0, help="stop each epoch after N steps")
    parser.add_argument("--dir", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--image-folder", default="")
    parser.add_argument("--fc", type=int, default=1024)
    parser.add_argument("--batch-norm", action="store_true")
    parser.add_argument("--dropout", type=float, default=0.0)
    args = parser.parse_args()

    torch.manual_seed(42)
    if args.image_folder:
        train = Normalized(os.path.join(args.image_folder, "train"), True)
        test = Normalized(os.path.join(args.image_folder, "test"), False)
    else:
        train = Fashion(args.dir, "train")
        test = Fashion(args.dir, "test")
    loader = DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                        drop_last=True, persistent_workers=args.workers > 0)
    test_loader = DataLoader(test, batch_size=args.batch, num_workers=args.workers)
    if args.model == "mlp":
        model = mlp([int(h) for h in args.hidden.split(",")])
    else:
        model = convnet(args.fc, args.batch_norm, args.dropout)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    steps, error, start = 0, 1.0, time.perf_counter()
    for _ in range(args.epochs):
        model.train()
        for i, (x, y) in enumerate(loader):
            if args.steps and i >= args.steps:
                break
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            steps += 1
        model.eval()
        wrong = total = 0
        with torch.no_grad():
            for x, y in test_loader:
                wrong += (model(x).argmax(1) != y).sum().item()
                total += len(y)
        error = wrong / total
    elapsed = time.perf_counter() - start
    print(f"epochs {args.epochs} steps {steps} train_s {elapsed:.2f} test_error {error:.4f}")


if __name__ == "__main__":
    main()
