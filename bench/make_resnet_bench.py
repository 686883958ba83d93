#!/usr/bin/python3
"""Writes the compute-bound row of bench/gpu-matrix.sh: a small ResNet for 32x32 RGB images as
TorchScript, and a generated 32x32x3 classification set for it as .npy files.

    /usr/bin/python3 bench/make_resnet_bench.py [--out projects/assets/resnet_bench.pt]
        [--data projects/assets/resnet-bench] [--width 64] [--blocks 2,2,2] [--classes 10]
        [--samples 10240] [--test-samples 2048] [--seed 0]

The network is CIFAR's ResNet (He et al. 2016, section 4.2) with BasicBlocks: a 3x3 stem
convolution of --width channels, three stages of --blocks BasicBlocks (3x3 conv, BatchNorm,
ReLU, 3x3 conv, BatchNorm, plus the shortcut: a strided 1x1 conv + BatchNorm where the shape
changes) at width, 2 width and 4 width channels on 32x32, 16x16 and 8x8, global average
pooling and a linear layer of --classes outputs. With the defaults (64 channels, 2-2-2 blocks:
2.8 M parameters) a sample costs about 0.83 GFLOP forward, so a step of batch 256 is about 0.64
TFLOP forward and backward: enough to keep a GPU busy, unlike the Fashion-MNIST networks.
--width 16 makes a 16x cheaper one for quick runs on a CPU.

It is scripted (torch.jit.script), so Towerbench's towers switch its BatchNorm between train()
and eval(); the project bench/resnet-bench.json trains it (model type "torchscript"). Beside OUT
goes OUT.json, the arguments the network was made with: bench/pytorch_matrix.py builds the
same network eagerly from them (ResNet below) with the scripted file's initial weights.

The data (DATA-train-images.npy uint8 [N, 3, 32, 32], DATA-train-labels.npy int64 [N], and
DATA-test-*.npy) are a fixed random pattern per class plus noise, so the cost falls as it
trains; Towerbench's "numpy" source scales uint8 to [0, 1]. Existing files are kept (delete
them to remake). Deterministic for a seed; downloads nothing. Runs with PyTorch 1.13 and 2.x.
"""
import argparse
import json
import os

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(cout))
        else:
            self.shortcut = nn.Sequential()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, width: int = 64, blocks=(2, 2, 2), classes: int = 10, channels: int = 3):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        layers = []
        cin = width
        for stage, count in enumerate(blocks):
            cout = width * (2 ** stage)
            for i in range(count):
                layers.append(BasicBlock(cin, cout, 2 if stage > 0 and i == 0 else 1))
                cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layers(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def build(spec):
    """The eager network of a sidecar's arguments (OUT.json)."""
    return ResNet(spec["width"], tuple(spec["blocks"]), spec["classes"], spec.get("channels", 3))


def forward_flops(model, size=32):
    """Multiply-adds x 2 of the convolutions and the linear layer for one sample."""
    total = 0
    hooks = []

    def count(module, inputs, output):
        nonlocal total
        if isinstance(module, nn.Conv2d):
            k = module.kernel_size[0] * module.kernel_size[1] * module.in_channels
            total += 2 * k * output.shape[1] * output.shape[2] * output.shape[3]
        elif isinstance(module, nn.Linear):
            total += 2 * module.in_features * module.out_features

    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            hooks.append(m.register_forward_hook(count))
    with torch.no_grad():
        model.eval()(torch.zeros(1, 3, size, size))
    model.train()
    for h in hooks:
        h.remove()
    return total


def write_data(prefix, classes, train, test, seed):
    paths = [f"{prefix}-{split}-{kind}.npy" for split in ("train", "test")
             for kind in ("images", "labels")]
    if all(os.path.exists(p) for p in paths):
        return f"kept {prefix}-{{train,test}}-{{images,labels}}.npy"
    rng = np.random.RandomState(seed)
    patterns = rng.uniform(0, 255, size=(classes, 3, 32, 32)).astype(np.float32)
    for split, count in (("train", train), ("test", test)):
        labels = rng.randint(0, classes, size=count).astype(np.int64)
        noise = rng.normal(0, 60, size=(count, 3, 32, 32)).astype(np.float32)
        images = np.clip(0.5 * patterns[labels] + 64 + noise, 0, 255).astype(np.uint8)
        for kind, array in (("images", images), ("labels", labels)):
            path = f"{prefix}-{split}-{kind}.npy"
            np.save(path + ".tmp.npy", array)
            os.replace(path + ".tmp.npy", path)
    return f"wrote {prefix}-{{train,test}}-{{images,labels}}.npy ({train} + {test} samples)"


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    assets = os.path.join(root, "projects", "assets")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(assets, "resnet_bench.pt"))
    parser.add_argument("--data", default=os.path.join(assets, "resnet-bench"),
                        help="prefix of the .npy files")
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--blocks", default="2,2,2")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--samples", type=int, default=10240)
    parser.add_argument("--test-samples", type=int, default=2048)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    spec = {"builder": "bench/make_resnet_bench.py", "width": args.width,
            "blocks": [int(b) for b in args.blocks.split(",")], "classes": args.classes,
            "channels": 3, "size": 32}
    for path in (args.out, args.data):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)

    sidecar = args.out + ".json"
    same = False
    if os.path.exists(args.out) and os.path.exists(sidecar):
        with open(sidecar) as f:
            same = json.load(f) == spec
    torch.manual_seed(args.seed)
    model = build(spec)
    params = sum(p.numel() for p in model.parameters())
    flops = forward_flops(model)
    if same:
        print(f"kept {args.out}: {params} parameters")
    else:
        torch.jit.script(model).save(args.out + ".tmp")
        os.replace(args.out + ".tmp", args.out)
        with open(sidecar, "w") as f:
            json.dump(spec, f)
        print(f"wrote {args.out}: scripted ResNet, width {args.width}, blocks {args.blocks}, "
              f"{params} parameters")
    print(f"  {flops / 1e9:.3f} GFLOP forward per sample, about "
          f"{3 * flops * 256 / 1e12:.3f} TFLOP per step of batch 256 (forward and backward)")
    print("  " + write_data(args.data, args.classes, args.samples, args.test_samples, args.seed))


if __name__ == "__main__":
    main()
