#!/usr/bin/python3
"""A TorchScript CNN trained by Towerbench against the same module trained by a PyTorch loop.

    /usr/bin/python3 bench/bench_torchscript.py [--cli build/bin/towerbench-cli] [--steps 300]
        [--rounds 3] [--threads 2]

Both sides train the same scripted module (scripts/make-torchscript-model.py: two conv +
BatchNorm blocks, dropout, a linear layer; 20538 parameters) on Fashion-MNIST, batch 128, Adam
1e-3, the same number of intra-op threads, in rounds that alternate the two (this machine is
shared and noisy; the ratio of each round is what counts). Towerbench: `towerbench-cli train` of a
project with the module, the "simple" strategy and the throughput callback, whose steps/s covers
the epoch's steps (setup excluded). PyTorch: torch.jit.load of the same file, shuffled batches
from tensors in memory, the same steps timed after 5 warm-up steps, in a child process run twice:
as PyTorch starts by default, and with the process settings towerbench-cli makes for itself
(engine/core/Environment.cpp: the OpenBLAS kernels, and glibc malloc's mmap/trim thresholds and
top pad, given here through MALLOC_*_ variables). The second ratio is the engine's own; the
first includes what those settings buy (measured: the malloc settings alone take this CNN from
about 32 to 45 steps/s in PyTorch).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_fashion import read_idx as idx  # noqa: E402 (beside this file)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/usr/share/datasets/fashion-mnist"


def pytorch_steps_per_sec(module_path, images, labels, steps, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = torch.jit.load(module_path)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    order = torch.randperm(images.shape[0])
    start = None
    for step in range(steps + 5):
        if step == 5:
            start = time.perf_counter()
        i = order[(step * 128) % (images.shape[0] - 128):][:128]
        x, y = images[i], labels[i]
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return steps / (time.perf_counter() - start)


def pytorch_child(module_path, steps, threads, core):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if core:
        env["OPENBLAS_CORETYPE"] = core
        env.update(MALLOC_MMAP_THRESHOLD_=str(32 << 20), MALLOC_TRIM_THRESHOLD_=str(1 << 30),
                   MALLOC_TOP_PAD_=str(64 << 20))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", module_path,
                           "--steps", str(steps), "--threads", str(threads)],
                          env=env, check=True, stdout=subprocess.PIPE, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def load_fashion():
    images = torch.from_numpy(idx(DATA + "/train-images-idx3-ubyte.gz").astype(np.float32)
                              / 255.0).unsqueeze(1)
    labels = torch.from_numpy(idx(DATA + "/train-labels-idx1-ubyte.gz").astype(np.int64))
    return images, labels


def towerbench_core(run_dir):
    with open(os.path.join(run_dir, "log.log")) as f:
        for line in f:
            if "intra-op threads" in line and " core " in line:
                return line.rsplit(" core ", 1)[1].split()[0]
    return ""


def towerbench_steps_per_sec(cli, module_path, steps, threads, workdir):
    project = {
        "format": 1, "name": "bench-torchscript",
        "model": {"type": "torchscript", "path": module_path},
        "data": {"train": {"type": "fashion-mnist"}, "batch_size": 128, "shuffle": True},
        "optimizer": {"type": "adam", "learning_rate": 1e-3},
        "max_epoch": 1, "steps_per_epoch": steps, "num_threads": threads,
        "callbacks": [{"type": "throughput"}],
        "trainer": {"strategy": "simple"},
        "run_root": os.path.join(workdir, "runs"),
    }
    path = os.path.join(workdir, "project.json")
    with open(path, "w") as f:
        json.dump(project, f)
    run_dir = os.path.join(workdir, "run-%d" % time.monotonic_ns())
    env = dict(os.environ, TB_QUIET="1")
    done = subprocess.run([cli, "train", path, "--run-dir", run_dir], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"towerbench-cli train failed ({done.returncode}):\n{done.stderr}")
    with open(os.path.join(run_dir, "stats.json")) as f:
        return json.load(f)[-1]["ThroughputTracker/steps_per_sec"], towerbench_core(run_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build/bin/towerbench-cli"))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        images, labels = load_fashion()
        print(pytorch_steps_per_sec(args.child, images, labels, args.steps, args.threads))
        return
    with tempfile.TemporaryDirectory() as workdir:
        module_path = os.path.join(workdir, "cnn.pt")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts/make-torchscript-model.py"),
                        module_path], check=True, stdout=subprocess.DEVNULL)
        plain, same = [], []
        for r in range(args.rounds):
            ours, core = towerbench_steps_per_sec(args.cli, module_path, args.steps,
                                                  args.threads, workdir)
            default = pytorch_child(module_path, args.steps, args.threads, "")
            matched = pytorch_child(module_path, args.steps, args.threads, core)
            plain.append(ours / default)
            same.append(ours / matched)
            print(f"round {r + 1}: towerbench {ours:.1f} steps/s (OpenBLAS core {core or '?'}), "
                  f"pytorch loop {default:.1f} steps/s as started, {matched:.1f} with its settings: "
                  f"ratios {ours / default:.3f} and {ours / matched:.3f}", flush=True)
        print(f"median ratio towerbench / pytorch: {statistics.median(plain):.3f} against PyTorch "
              f"as started, {statistics.median(same):.3f} with the same process settings "
              f"({args.steps} steps of batch 128, {args.threads} threads, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
