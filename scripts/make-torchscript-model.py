#!/usr/bin/python3
"""Writes a small CNN with BatchNorm and Dropout as TorchScript, for Towerbench.

    /usr/bin/python3 scripts/make-torchscript-model.py OUT.pt [--channels 1] [--size 28]
        [--classes 10] [--seed 0] [--traced] [--scalar-cost] [--plain] [--frozen]
        [--weights KIND:PATH]...

The module is scripted (torch.jit.script), so train() and eval() switch its BatchNorm and
Dropout. --traced writes torch.jit.trace's version instead (Towerbench refuses it: a trace
freezes the mode). --scalar-cost writes a module whose forward(x, label) returns the
cross-entropy itself (the project's cost "scalar"). --plain leaves out BatchNorm and Dropout
(a network whose towers compute exactly what one big batch does). --frozen saves the module
with its parameters' requires_grad off (as an export for inference does). --weights also saves
the network's weights the ways PyTorch users save them, to start a Towerbench run from
(init.checkpoint): state_dict (torch.save(model.state_dict())), ddp (under "model", each name
with DataParallel's "module." prefix), lightning (a Lightning checkpoint: "state_dict" with
"model." before each name, beside "epoch"), safetensors (the Hugging Face format, written here
by hand: no package needed). No downloads; deterministic for a seed.
"""
import json
import struct
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


def save_safetensors(tensors: dict, path: str) -> None:
    """safetensors' layout: 8-byte little-endian header length, JSON header, raw bytes."""
    kinds = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16",
             torch.int64: "I64", torch.int32: "I32", torch.uint8: "U8"}
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().cpu().numpy().tobytes()
        header[name] = {"dtype": kinds[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def save_weights(net: nn.Module, kind: str, path: str) -> None:
    state = net.state_dict()
    if kind == "state_dict":
        torch.save(state, path)
    elif kind == "ddp":
        torch.save({"model": {"module." + k: v for k, v in state.items()}, "epoch": 3}, path)
    elif kind == "lightning":
        torch.save({"epoch": 3, "global_step": 120, "pytorch-lightning_version": "2.4.0",
                    "state_dict": {"model." + k: v for k, v in state.items()}}, path)
    elif kind == "safetensors":
        save_safetensors(state, path)
    else:
        raise SystemExit(f"--weights {kind}: not state_dict, ddp, lightning or safetensors")


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
    parser.add_argument("--frozen", action="store_true")
    parser.add_argument("--weights", action="append", default=[], metavar="KIND:PATH")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    net = SmallCnn(args.channels, args.size, args.classes, args.plain)
    model = WithCost(net) if args.scalar_cost else net
    for spec in args.weights:
        kind, _, path = spec.partition(":")
        save_weights(net, kind, path)
    if args.frozen:
        model.requires_grad_(False)
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
