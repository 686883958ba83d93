#!/usr/bin/env python3
"""make-project.py SOURCE OUT [EDIT]...: a copy of the project SOURCE for a benchmark or check
row, written to OUT (which may live elsewhere), that every program of the row then reads.

- Relative file and folder paths of SOURCE (model.path, init.checkpoint, the data sources'
  dir, path, features, labels, images) are made absolute.
- A throughput callback is added when it has none: every row reads steps/s.
- Each EDIT is KEY=JSON (a dotted path: trainer.devices=["cuda:0"]; a data key of a source the
  project does not have, such as data.validation.* of a project without validation, is
  skipped), "+gpu_tracker" (adds that callback) or "+fmnist=DIR" (the data sources' dir).

Used by scripts/gpu-check.sh and bench/gpu-matrix.sh.
"""
import json
import os
import sys


def main(src, out, *edits):
    p = json.load(open(src))
    base = os.path.dirname(os.path.abspath(src))

    def absolute(node, keys):
        for k in keys:
            v = node.get(k)
            if isinstance(v, str) and v and not os.path.isabs(v):
                node[k] = os.path.normpath(os.path.join(base, v))

    data = p.get("data", {})
    absolute(p.get("model", {}), ["path"])
    absolute(p.get("init", {}), ["checkpoint"])
    for part in ("train", "validation"):
        if part in data:
            absolute(data[part], ["dir", "path", "features", "labels", "images"])
    callbacks = p.setdefault("callbacks", [])
    if not any(c.get("type") == "throughput" for c in callbacks):
        callbacks.append({"type": "throughput"})
    for e in edits:
        if e == "+gpu_tracker":
            callbacks.append({"type": "gpu_tracker"})
            continue
        if e.startswith("+fmnist="):
            for part in ("train", "validation"):
                if part in data:
                    data[part]["dir"] = e.split("=", 1)[1]
            continue
        key, value = e.split("=", 1)
        node, parts = p, key.split(".")
        if parts[0] == "data" and len(parts) > 2 and parts[1] not in data:
            continue  # a key of a source the project does not have
        for k in parts[:-1]:
            node = node.setdefault(k, {})
        node[parts[-1]] = json.loads(value)
    json.dump(p, open(out, "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
