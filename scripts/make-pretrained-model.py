#!/usr/bin/python3
"""Pretrains a small CNN on Fashion-MNIST in PyTorch and writes what a fine-tuning user has.

    /usr/bin/python3 scripts/make-pretrained-model.py OUTDIR [--steps 300] [--seed 0]
                                                      [--test-limit N]

The fine-tuning example (examples/fine-tuning/README.md) starts from these files, as a user
starts from weights pretrained elsewhere:

  pretrained.pt           torch.save(model.state_dict()) of the pretrained 10-class network
  pretrained.safetensors  the same weights in the Hugging Face format (written by hand)
  pretrained.json         PyTorch's own test error of it (eval mode), to compare with; on the
                          first --test-limit test images when given (data.validation.limit)
  smallcnn-10.pt          the network as TorchScript (random weights: the architecture)
  smallcnn-3.pt           the same network with a new 3-class head
  coarse-{train,test}-{images,labels}.npy
                          Fashion-MNIST relabelled into 3 coarse classes (tops, footwear, other):
                          the new task

Reads the dataset-fashion-mnist package's IDX files; no downloads; deterministic for a seed.
"""
import argparse
import gzip
import importlib.util
import json
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION = "/usr/share/datasets/fashion-mnist"
# tops: T-shirt/top, Pullover, Coat, Shirt; footwear: Sandal, Sneaker, Ankle boot; other:
# Trouser, Dress, Bag
COARSE = np.array([0, 2, 0, 2, 0, 1, 0, 1, 2, 1], dtype=np.int64)


def small_cnn():
    spec = importlib.util.spec_from_file_location(
        "make_torchscript_model", os.path.join(HERE, "make-torchscript-model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SmallCnn, module.save_safetensors


def read_idx(name: str) -> np.ndarray:
    with gzip.open(os.path.join(FASHION, name), "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--test-limit", type=int, default=0,
                        help="the test error on the first N test images (0: all)")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    SmallCnn, save_safetensors = small_cnn()
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    train_x = read_idx("train-images-idx3-ubyte.gz")
    train_y = read_idx("train-labels-idx1-ubyte.gz").astype(np.int64)
    test_x = read_idx("t10k-images-idx3-ubyte.gz")
    test_y = read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64)
    as_float = lambda x: torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)

    # Pretraining, as anyone would in PyTorch: Adam, batch 128, shuffled.
    net = SmallCnn(1, 28, 10)
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3)
    images, labels = as_float(train_x), torch.from_numpy(train_y)
    generator = torch.Generator().manual_seed(args.seed)
    net.train()
    order = torch.randperm(len(labels), generator=generator)
    for step in range(args.steps):
        at = (step * 128) % (len(labels) - 128)
        index = order[at:at + 128]
        loss = F.cross_entropy(net(images[index]), labels[index])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    net.eval()
    tested = len(test_y) if args.test_limit <= 0 else min(args.test_limit, len(test_y))
    with torch.no_grad():
        wrong = 0
        test_images = as_float(test_x[:tested])
        for at in range(0, tested, 1000):
            predicted = net(test_images[at:at + 1000]).argmax(1).numpy()
            wrong += int((predicted != test_y[at:min(at + 1000, tested)]).sum())
    error = wrong / tested

    torch.save(net.state_dict(), os.path.join(args.outdir, "pretrained.pt"))
    save_safetensors(net.state_dict(), os.path.join(args.outdir, "pretrained.safetensors"))
    with open(os.path.join(args.outdir, "pretrained.json"), "w") as f:
        json.dump({"test_error": error, "test_samples": tested, "steps": args.steps,
                   "seed": args.seed,
                   "torch": torch.__version__}, f, indent=1)
    torch.manual_seed(args.seed + 1)
    for classes in (10, 3):
        torch.jit.script(SmallCnn(1, 28, classes)).save(
            os.path.join(args.outdir, f"smallcnn-{classes}.pt"))
    for split, x, y in (("train", train_x[:20000], train_y[:20000]), ("test", test_x, test_y)):
        np.save(os.path.join(args.outdir, f"coarse-{split}-images.npy"), x[:, None, :, :])
        np.save(os.path.join(args.outdir, f"coarse-{split}-labels.npy"), COARSE[y])
    print(f"pretrained {args.steps} steps: PyTorch test error {error:.4f}; wrote {args.outdir}")


if __name__ == "__main__":
    main()
