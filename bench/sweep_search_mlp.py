#!/usr/bin/env python3
"""random, bayes and tpe on a real sweep of the Fashion-MNIST MLP project, same budget.

Each trial is `towerbench-cli train` of projects/fashion-mnist-mlp.json, shortened to one epoch of
--steps steps (the swept keys: learning rate x hidden sizes x batch size), run by the project's own
sweep queue (`towerbench-cli sweep`, one slot: every proposal sees every result before it). For each
method and seed it records validation_error after each trial, then prints, as bench_sweep_search
does for known functions: the median best-after-N, and the trials bayes and tpe need to reach
random's median best-after-N (median over seeds; N+1 when a seed never reaches it).

    python3 bench/sweep_search_mlp.py --cli build/bin/towerbench-cli --trials 20 --seeds 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def base_project(run_root, steps):
    with open(os.path.join(ROOT, "projects", "fashion-mnist-mlp.json")) as f:
        p = json.load(f)
    p["run_root"] = run_root
    p["max_epoch"] = 1
    p["steps_per_epoch"] = steps
    p["callbacks"] = [{"type": "inference"}]
    p["monitors"] = {"tensorboard": False}
    return p


def sweep_doc(method, seed, trials):
    return {
        "method": method, "project": "base.json", "run_cap": trials, "seed": seed,
        "metric": {"name": "validation_error", "goal": "minimize"},
        "parameters": {
            "optimizer.learning_rate": {"min": 1e-5, "max": 0.3,
                                        "distribution": "log_uniform_values"},
            "model.hidden": {"values": [[32], [128], [512], [128, 64], [512, 256]]},
            "data.batch_size": {"values": [16, 64, 256]},
        },
    }


def run(cli, method, seed, trials, steps, work):
    d = os.path.join(work, f"{method}-{seed}")
    os.makedirs(d)
    with open(os.path.join(d, "base.json"), "w") as f:
        json.dump(base_project(os.path.join(d, "runs"), steps), f)
    with open(os.path.join(d, "sweep.json"), "w") as f:
        json.dump(sweep_doc(method, seed, trials), f)
    subprocess.run([cli, "sweep", os.path.join(d, "sweep.json"), "--slots", "1",
                    "--sweep-dir", os.path.join(d, "state")], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "state", "sweep-state.json")) as f:
        state = json.load(f)
    values = []
    for t in sorted(state["trials"], key=lambda t: t["index"]):
        m = t["metric"]
        values.append(m[-1] if m else float("inf"))
    return values


def best_after(values, n):
    return min(values[:n])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "towerbench-cli"))
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--methods", default="random,bayes,tpe")
    ap.add_argument("--random-target", type=float, default=None,
                    help="random's median best-after-N from an earlier run (skips random)")
    args = ap.parse_args()
    methods = args.methods.split(",")
    if args.random_target is None and "random" not in methods:
        methods.insert(0, "random")
    n = args.trials
    results = {}
    start = time.time()
    with tempfile.TemporaryDirectory() as work:
        for method in methods:
            results[method] = [run(args.cli, method, s, n, args.steps, work)
                               for s in range(1, args.seeds + 1)]
            print(f"{method}: done ({time.time() - start:.0f} s)", file=sys.stderr)
    target = (args.random_target if args.random_target is not None else
              statistics.median(best_after(v, n) for v in results["random"]))
    print(f"fashion-mnist MLP, {n} trials of {args.steps} steps, {args.seeds} seeds, one slot")
    print(f"{'method':8} {'median best@N':>14} {'trials to random':>17} {'ratio':>6}")
    if "random" not in results:
        print(f"{'random':8} {target:14.4f} {'(target, given)':>17} {'-':>6}")
    for method, runs in results.items():
        best = statistics.median(best_after(v, n) for v in runs)
        if method == "random":
            print(f"{method:8} {best:14.4f} {'(target)':>17} {'-':>6}")
            continue
        reach = []
        for v in runs:
            k = next((i + 1 for i in range(n) if best_after(v, i + 1) <= target), n + 1)
            reach.append(k)
        k = statistics.median_high(reach)
        print(f"{method:8} {best:14.4f} {k:17d} {k / n:6.2f}   (per seed: {reach})")


if __name__ == "__main__":
    main()
