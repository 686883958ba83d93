#!/usr/bin/python3
"""Writes a small CNN with BatchNorm and Dropout as TorchScript, for Towerbench.

    /usr/bin/python3 scripts/make-torchscript-model.py OUT.pt [--channels 1] [--size 28]
        [--classes 10] [--seed 0] [--traced] [--scalar-cost] [--plain]

The module is scripted (torch.jit.script), so train() and eval() switch its BatchNorm and
Dropout. --traced writes torch.jit.trace's version instead (Towerbench refuses it: a trace
freezes the mode). --scalar-cost writes a module whose forward(x, label) returns the
cross-entropy itself (the project's cost "scalar"). --plain leaves out BatchNorm and Dropout
(a network whose towers compute exactly what one big batch does). No downloads; deterministic for a seed.
"""
import argparse

import torch
from torch import nn
import torch.nn.functional as F


class SmallCnn(nn.Module):
    def __init__(self, channels: int, size: int, classes: int, plain: bool = False):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 16, 3, padding=1, bias=plain)
        self.bn1 = nn.Identity() if plain else nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=plain)
        self.bn2 = nn.Identity() if plain else nn.BatchNorm2d(32)
        self.dropout = nn.Identity() if plain else nn.Dropout(0.25)
        self.fc = nn.Linear(32 * (size // 4) * (size // 4), classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(self.dropout(x.flatten(1)))


class WithCost(nn.Module):
    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor, label: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(self.net(x), label)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--size", type=int, default=28)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--traced", action="store_true")
    parser.add_argument("--scalar-cost", action="store_true")
    parser.add_argument("--plain", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    net = SmallCnn(args.channels, args.size, args.classes, args.plain)
    model = WithCost(net) if args.scalar_cost else net
    if args.traced:
        example = torch.zeros(2, args.channels, args.size, args.size)
        module = torch.jit.trace(model.train(), (example,))
    else:
        module = torch.jit.script(model)
    module.save(args.out)
    print(f"wrote {args.out}: {'traced' if args.traced else 'scripted'} "
          f"{sum(p.numel() for p in model.parameters())} parameters")


if __name__ == "__main__":
    main()
