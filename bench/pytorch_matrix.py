#!/usr/bin/python3
"""PyTorch's columns of bench/gpu-matrix.sh: a Towerbench project's training job written as a
PyTorch user writes it, timed on one device in up to three ways.

    python3 bench/pytorch_matrix.py PROJECT [--device cuda:0|cpu] [--steps 200] [--warmup 10]
        [--modes dataloader,preloaded,compile] [--workers W] [--preload-batches 50]
        [--threads N] [--set key=json]...

  dataloader  the user's script: a Dataset (a TensorDataset for arrays in memory, decoding per
              item for Fashion-MNIST's IDX files and for image folders, as torchvision's
              datasets do) and a DataLoader(batch, shuffle, num_workers=W, drop_last,
              persistent_workers, pin_memory on CUDA); each batch is moved with
              .to(device, non_blocking=True).
  preloaded   the training samples (the first --preload-batches batches' worth, decoded and
              normalised once) resident on the device as float tensors; each step gathers a
              shuffled batch there: no data work, PyTorch's own limit.
  compile     preloaded, with torch.compile(model) (PyTorch 2.x). Where torch.compile is
              missing (PyTorch 1.13) or fails, its line says "-" and why.

From the project file (with the same --set overrides as towerbench-cli) come the model (mlp,
convnet; a TorchScript file made by bench/make_resnet_bench.py is rebuilt eagerly from its
OUT.json with the file's initial weights, any other is run as the scripted module), the
optimizer (sgd, adam, adamw, rmsprop with their settings), the batch size, the shuffle flag and
the training data (synthetic, fashion-mnist, numpy, image_folder with its crop, flip and
normalisation). 32-bit only, PyTorch's default settings (cuDNN autotuning off; TF32 as PyTorch
defaults it). Each mode runs --warmup steps, then --steps timed steps between two device
synchronisations. The loop has no per-step .item(): the loss is summed on the device and read
once at the end, which is the stronger baseline (a tutorial's running_loss += loss.item() waits
for the device every step).

Prints one line per mode: "RESULT <mode> <steps/s> <samples/s> <final mean loss>" or
"RESULT <mode> - <why>", after a line "INFO torch <version> device <name>". Runs with
PyTorch 1.13 (Debian's python3-torch) and 2.x.
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION_DIR = "/usr/share/datasets/fashion-mnist"  # engine/data/datasets/FashionMnist.h, kDefaultDir
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg")


# ---- the project file

def apply_override(doc, assignment):
    """towerbench-cli's --set a.b.c=value (dotted object keys; value as JSON, else a string)."""
    path, _, text = assignment.partition("=")
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    keys = path[2:].split(".") if path.startswith("$.") else path.split(".")
    node = doc
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value


def resolve(base, path):
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))


# ---- data, as users write it (per-item Datasets) and preloaded

def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def idx_file(directory, name):
    for candidate in (name + ".gz", name):
        if os.path.exists(os.path.join(directory, candidate)):
            return os.path.join(directory, candidate)
    raise FileNotFoundError(f"{directory}: no {name}[.gz]")


class FashionItems(Dataset):
    """torchvision's FashionMNIST with ToTensor: uint8 images in memory, converted per item."""

    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = torch.from_numpy(self.images[i].astype(np.float32) / 255.0).unsqueeze(0)
        return image, int(self.labels[i])


class ImageFolderItems(Dataset):
    """torchvision's ImageFolder with the project's transforms: decode (PIL), resize and centre
    crop to `size` when the images differ, RandomCrop(size, padding), RandomHorizontalFlip,
    ToTensor, Normalize(mean, std)."""

    def __init__(self, root, spec, augment):
        classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.samples = []
        for label, name in enumerate(classes):
            folder = os.path.join(root, name)
            for file in sorted(os.listdir(folder)):
                if file.lower().endswith(IMAGE_EXTENSIONS):
                    self.samples.append((os.path.join(folder, file), label))
        self.mode = "L" if spec.get("channels", 3) == 1 else "RGB"
        self.size = spec.get("size", 0)
        self.padding = spec.get("random_crop_padding", 0) if augment else 0
        self.flip = spec.get("horizontal_flip", False) and augment
        channels = 1 if self.mode == "L" else 3
        mean, std = spec.get("mean", []), spec.get("std", [])
        self.mean = torch.tensor((mean * channels)[:channels] if mean else [0.0] * channels)
        self.std = torch.tensor((std * channels)[:channels] if std else [1.0] * channels)

    def __len__(self):
        return len(self.samples)

    def decode(self, i):
        from PIL import Image
        path, label = self.samples[i]
        with open(path, "rb") as f:
            image = Image.open(f).convert(self.mode)
        if self.size and image.size != (self.size, self.size):
            scale = self.size / min(image.size)
            image = image.resize((max(self.size, round(image.size[0] * scale)),
                                  max(self.size, round(image.size[1] * scale))))
            left, top = (image.size[0] - self.size) // 2, (image.size[1] - self.size) // 2
            image = image.crop((left, top, left + self.size, top + self.size))
        x = torch.from_numpy(np.array(image, dtype=np.uint8)).float().div_(255)
        x = x.unsqueeze(0) if x.dim() == 2 else x.permute(2, 0, 1).contiguous()
        return x, label

    def __getitem__(self, i):
        x, label = self.decode(i)
        if self.padding:
            p, h, w = self.padding, x.shape[1], x.shape[2]
            x = torch.nn.functional.pad(x, (p, p, p, p))
            top = int(torch.randint(0, 2 * p + 1, (1,)))
            left = int(torch.randint(0, 2 * p + 1, (1,)))
            x = x[:, top:top + h, left:left + w]
        if self.flip and float(torch.rand(1)) < 0.5:
            x = x.flip(-1)
        return (x - self.mean[:, None, None]) / self.std[:, None, None], label


def synthetic_arrays(spec):
    """Towerbench's "synthetic" source in shape: class patterns plus noise, [N, 1, S, S]."""
    n, size = spec.get("num_samples", 2048), spec.get("image_size", 8)
    classes, noise = spec.get("num_classes", 4), spec.get("noise", 0.5)
    g = torch.Generator().manual_seed(spec.get("seed", 1))
    patterns = torch.randn(classes, 1, size, size, generator=g)
    labels = torch.randint(0, classes, (n,), generator=g)
    images = patterns[labels] + noise * torch.randn(n, 1, size, size, generator=g)
    return images, labels


def training_data(project, base):
    """(the Dataset a user writes, a function giving the first `count` samples as float
    tensors (images, labels) for preloading, the image shape [C, H, W], classes)."""
    spec = project["data"]["train"]
    kind = spec.get("type", "fashion-mnist")
    limit = spec.get("limit", 0)

    def head(images, labels):
        return (images[:limit], labels[:limit]) if limit else (images, labels)

    if kind == "synthetic":
        images, labels = head(*synthetic_arrays(spec))
        dataset = TensorDataset(images, labels)
        return dataset, lambda count: (images[:count], labels[:count]), \
            list(images.shape[1:]), spec.get("num_classes", 4)
    if kind == "fashion-mnist":
        directory = resolve(base, spec.get("dir") or FASHION_DIR)
        prefix = "train" if spec.get("split", "train") == "train" else "t10k"
        images = read_idx(idx_file(directory, f"{prefix}-images-idx3-ubyte"))
        labels = read_idx(idx_file(directory, f"{prefix}-labels-idx1-ubyte"))
        images, labels = head(images, labels)

        def first(count):
            x = torch.from_numpy(images[:count].astype(np.float32) / 255.0).unsqueeze(1)
            return x, torch.from_numpy(labels[:count].astype(np.int64))
        return FashionItems(images, labels), first, [1, 28, 28], 10
    if kind == "numpy":
        def load(text):
            path, _, name = text.partition(".npz:")
            if name:
                return np.load(resolve(base, path + ".npz"))[name]
            return np.load(resolve(base, text))
        features, labels = head(load(spec["features"]), load(spec["labels"]))
        x = torch.from_numpy(features)
        x = x.float().div_(255) if x.dtype == torch.uint8 else x.float()
        if x.dim() == 3:
            x = x.unsqueeze(1)
        y = torch.from_numpy(labels.astype(np.int64))
        classes = int(y.max()) + 1
        return TensorDataset(x, y), lambda count: (x[:count], y[:count]), list(x.shape[1:]), \
            classes
    if kind == "image_folder":
        dataset = ImageFolderItems(resolve(base, spec["dir"]), spec, augment=True)
        if limit:
            dataset.samples = dataset.samples[:limit]
        plain = ImageFolderItems(resolve(base, spec["dir"]), spec, augment=False)
        order = torch.randperm(len(dataset.samples))

        def first(count):
            # A user preloading an image folder decodes it once (no augmentation).
            picked = [plain.decode(int(i)) for i in order[:count]]
            x = torch.stack([(p[0] - plain.mean[:, None, None]) / plain.std[:, None, None]
                             for p in picked])
            return x, torch.tensor([p[1] for p in picked], dtype=torch.int64)
        x0, _ = plain.decode(0)
        classes = len({label for _, label in dataset.samples})
        return dataset, first, list(x0.shape), classes
    raise ValueError(f"data type {kind!r} is not mirrored here")


# ---- the model and optimizer

def mlp(shape, classes, spec):
    layers, width = [nn.Flatten()], int(np.prod(shape))
    for h in spec.get("hidden", [256, 128]):
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    if spec.get("dropout", 0) > 0:
        layers.append(nn.Dropout(spec["dropout"]))
    layers.append(nn.Linear(width, classes))
    return nn.Sequential(*layers)


def convnet(shape, classes, spec):
    """Towerbench's ConvNet (engine/models/ConvNet.cpp)."""
    c1, c2 = spec.get("conv1_channels", 32), spec.get("conv2_channels", 64)
    k, bn = spec.get("kernel_size", 5), spec.get("batch_norm", False)

    def block(cin, cout):
        layers = [nn.Conv2d(cin, cout, k, padding=k // 2, bias=not bn)]
        if bn:
            layers.append(nn.BatchNorm2d(cout))
        return layers + [nn.ReLU(), nn.MaxPool2d(2)]
    fc = spec.get("fc_width", 1024)
    return nn.Sequential(*block(shape[0], c1), *block(c1, c2), nn.Flatten(),
                         nn.Linear(c2 * (shape[1] // 4) * (shape[2] // 4), fc), nn.ReLU(),
                         nn.Dropout(spec.get("dropout", 0.0)), nn.Linear(fc, classes))


def torchscript(spec, base):
    """The eager network of a file made by make_resnet_bench.py, with the file's weights; any
    other TorchScript file as the scripted module (what torch.jit.load gives)."""
    path = resolve(base, spec["path"])
    scripted = torch.jit.load(path, map_location="cpu")
    sidecar = path + ".json"
    if os.path.exists(sidecar):
        with open(sidecar) as f:
            made = json.load(f)
        if made.get("builder") == "bench/make_resnet_bench.py":
            sys.path.insert(0, HERE)
            from make_resnet_bench import build
            model = build(made)
            model.load_state_dict(scripted.state_dict())
            return model, "eager ResNet"
    return scripted, "scripted module (no eager source)"


def build_model(project, base, shape, classes):
    spec = project.get("model", {})
    kind = spec.get("type", "convnet")
    if kind == "mlp":
        return mlp(shape, classes, spec), "mlp"
    if kind == "convnet":
        return convnet(shape, classes, spec), "convnet"
    if kind == "torchscript":
        if spec.get("cost", "cross_entropy") != "cross_entropy":
            raise ValueError("only cost cross_entropy is mirrored")
        return torchscript(spec, base)
    raise ValueError(f"model type {kind!r} is not mirrored here")


def build_optimizer(project, params):
    spec = project.get("optimizer", {})
    kind = spec.get("type", "adam")
    lr, wd = spec.get("learning_rate", 1e-3), spec.get("weight_decay", 0.0)
    if kind == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=spec.get("momentum", 0.0),
                               nesterov=spec.get("nesterov", False), weight_decay=wd)
    betas = (spec.get("beta1", 0.9), spec.get("beta2", 0.999))
    if kind == "adam":
        return torch.optim.Adam(params, lr=lr, betas=betas, eps=spec.get("eps", 1e-8),
                                weight_decay=wd)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=lr, betas=betas, eps=spec.get("eps", 1e-8),
                                 weight_decay=wd)
    if kind == "rmsprop":
        keys = {k: spec[k] for k in ("alpha", "eps", "momentum", "centered") if k in spec}
        return torch.optim.RMSprop(params, lr=lr, weight_decay=wd, **keys)
    raise ValueError(f"optimizer type {kind!r} is not mirrored here")


# ---- the timed loops

def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed_loop(model, optimizer, batches, device, warmup, steps):
    """Steps per second of `steps` steps after `warmup`, and the mean loss of the timed steps.
    `batches` yields (x, y) on the device forever."""
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    total = torch.zeros((), device=device)
    start = None
    for step in range(warmup + steps):
        if step == warmup:
            synchronize(device)
            total.zero_()
            start = time.perf_counter()
        x, y = next(batches)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    synchronize(device)
    elapsed = time.perf_counter() - start
    return steps / elapsed, float(total) / steps


def loader_batches(loader, device):
    cuda = device.type == "cuda"
    while True:
        for x, y in loader:
            yield x.to(device, non_blocking=cuda), y.to(device, non_blocking=cuda)


def resident_batches(x, y, batch, shuffle):
    n = x.shape[0] - x.shape[0] % batch
    while True:
        order = torch.randperm(x.shape[0], device=x.device) if shuffle else \
            torch.arange(x.shape[0], device=x.device)
        for i in range(0, n, batch):
            index = order[i:i + batch]
            yield x.index_select(0, index), y.index_select(0, index)


def setup(args):
    """The project, the device, the data and the initial model of the run."""
    with open(args.project) as f:
        project = json.load(f)
    for assignment in args.sets:
        apply_override(project, assignment)
    base = os.path.dirname(os.path.abspath(args.project))
    device = torch.device(args.device)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
    else:
        name = "cpu"
    print(f"INFO torch {torch.__version__} device {name} threads {torch.get_num_threads()} "
          f"workers {args.workers}", flush=True)
    torch.manual_seed(project.get("seed", 42))
    batch = project.get("data", {}).get("batch_size", 128)
    shuffle = project.get("data", {}).get("shuffle", True)
    dataset, first, shape, classes = training_data(project, base)
    prototype, what = build_model(project, base, shape, classes)
    print(f"INFO model {what}, batch {batch}, {len(dataset)} training samples of {shape}",
          flush=True)
    return project, device, dataset, first, prototype, batch, shuffle


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--modes", default="dataloader,preloaded,compile")
    parser.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--preload-batches", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra-op threads; 0: PyTorch's default")
    parser.add_argument("--set", action="append", default=[], dest="sets")
    args = parser.parse_args()

    modes = [m for m in args.modes.split(",") if m]
    try:
        project, device, dataset, first, prototype, batch, shuffle = setup(args)
    except Exception as e:  # every mode says why
        why = " ".join(f"{type(e).__name__}: {e}".split())[:300]
        for mode in modes:
            print(f"RESULT {mode} - {why}", flush=True)
        sys.exit(1)
    initial = {k: v.clone() for k, v in prototype.state_dict().items()}

    def fresh_model():
        prototype.load_state_dict(initial)
        model = prototype.to(device)
        return model, build_optimizer(project, model.parameters())

    resident = None
    for mode in modes:
        loader = batches = None
        try:
            model, optimizer = fresh_model()
            if mode == "dataloader":
                cuda = device.type == "cuda"
                loader = DataLoader(dataset, batch_size=batch, shuffle=shuffle,
                                    num_workers=args.workers, drop_last=True,
                                    pin_memory=cuda, persistent_workers=args.workers > 0)
                batches = loader_batches(loader, device)
            elif mode in ("preloaded", "compile"):
                if resident is None:
                    x, y = first(args.preload_batches * batch)
                    resident = (x.to(device).contiguous(), y.to(device))
                batches = resident_batches(resident[0], resident[1], batch, shuffle)
                if mode == "compile":
                    if not hasattr(torch, "compile"):
                        print(f"RESULT compile - torch {torch.__version__} has no torch.compile",
                              flush=True)
                        continue
                    model = torch.compile(model)
            else:
                print(f"RESULT {mode} - unknown mode", flush=True)
                continue
            rate, loss = timed_loop(model, optimizer, batches, device, args.warmup, args.steps)
            print(f"RESULT {mode} {rate:.3f} {rate * batch:.1f} {loss:.4f}", flush=True)
        except Exception as e:  # a mode that fails leaves the others
            why = " ".join(f"{type(e).__name__}: {e}".split())[:300]
            print(f"RESULT {mode} - {why}", flush=True)
        finally:
            loader = batches = None  # a persistent DataLoader's workers end with it
            if device.type == "cuda":
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
