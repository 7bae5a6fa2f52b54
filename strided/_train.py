"""The main job's training: an MLP and a CNN on scikit-learn's 8x8 handwritten digits.

Everything a user of PyTorch would write is here in strided: a ``Sequential`` model, ``Adam``,
``cross_entropy`` with label smoothing, ``backward()``, ``no_grad`` evaluation, ``train()``/
``eval()``, and ``strided.save`` of the trained weights. Run ``python -m strided --help``.

Note [Training small models on one thread]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The digits models are tiny: a batch of 64 images makes tensors of a few thousand elements, far
below the ~32k-element grain at which strided's kernels start splitting work across threads, and
GEMMs of a few MFLOP. A step's time is Python dispatch and autograd bookkeeping (about 5-20 us
per op), not arithmetic. Extra threads then only cost: OpenMP and OpenBLAS workers wake up, spin,
and on a machine where other processes use the cores (a CI runner, a shared server) they wait
for a core, and a step can become ten times slower. So training runs on one thread unless
``--threads`` says otherwise; ``strided.set_num_threads`` is restored afterwards.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import strided
from strided import nn, optim
from strided.nn import functional as F

TARGET_ACCURACY = 0.95

# The ops one training step needs (forward, backward, Adam), each run once on a tiny tensor to
# find which ones a device lacks before training starts: (name, function of a float tensor of
# shape (2, 1, 4, 4) on the device).
_PROBES = [
    ("add", lambda x: x + x),
    ("multiply", lambda x: x * 2.0),
    ("relu", strided.relu),
    ("sqrt", strided.sqrt),
    ("matmul", lambda x: x.reshape(2, 16) @ x.reshape(2, 16).mT),
    ("pad", lambda x: F.pad(x, (1, 1, 1, 1))),
    ("reshape copy (contiguous_copy)", lambda x: x.mT.reshape(-1)),
    ("sum", lambda x: strided.sum(x, axis=0)),
    ("mean", lambda x: strided.mean(x)),
    ("max", lambda x: strided.max(x, axis=(-2, -1))),
    ("log_softmax", lambda x: strided.log_softmax(x.reshape(2, 16), 1)),
    (
        "take_along_axis",
        lambda x: strided.take_along_axis(
            x.reshape(2, 16), strided.zeros((2, 1), dtype="int64", device=x.device), axis=1
        ),
    ),
    (
        "index_add (backward of views)",
        lambda x: strided.index_add(
            strided.zeros(4, dtype=x.dtype, device=x.device),
            0,
            strided.zeros(2, dtype="int64", device=x.device),
            x.reshape(-1)[:2],
        ),
    ),
    ("argmax", lambda x: strided.argmax(x.reshape(2, 16), axis=1)),
    ("where", lambda x: strided.where(x > 0, x, 0.0)),
]


def missing_ops(device):
    """The ops of ``_PROBES`` that fail on ``device``: a list of (name, error message)."""
    x = strided.random.rand(2, 1, 4, 4, dtype="float32").to(device)
    missing = []
    for name, fn in _PROBES:
        try:
            fn(x)
        except (NotImplementedError, TypeError, RuntimeError, ValueError) as e:
            missing.append((name, f"{type(e).__name__}: {e}"))
    return missing


def load_digits_data(seed=0, limit=None):
    """(x_train, y_train, x_test, y_test) as NumPy arrays: 80/20 stratified split, pixels
    standardised with the training set's mean and standard deviation."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        raise SystemExit(
            "python -m strided needs scikit-learn for its dataset (the 8x8 digits ship inside "
            'the package, nothing is downloaded):\n    pip install -e ".[examples]"\n'
            "(python -m strided --facts runs without it)"
        ) from None
    digits = load_digits()
    x = digits.data.astype(np.float32)
    y = digits.target.astype(np.int64)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.2, random_state=seed, stratify=y)
    if limit is not None:
        x_tr, y_tr = x_tr[:limit], y_tr[:limit]
    mean, std = x_tr.mean(), x_tr.std()
    return (x_tr - mean) / std, y_tr, (x_te - mean) / std, y_te


def make_mlp():
    """64 pixels -> 128 -> 64 -> 10 classes."""
    return nn.Sequential(
        nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10)
    )


def make_cnn(width=16):
    """Two 3x3 convolutions with max pooling (8x8 -> 4x4 -> 2x2), then a linear classifier."""
    return nn.Sequential(
        nn.Conv2d(1, width, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(2 * width * 2 * 2, 10),
    )


def accuracy(model, x, y, batch_size=512):
    """The fraction of ``x`` that ``model`` classifies as ``y`` (eval mode, no graph)."""
    model.eval()
    hits = 0
    with strided.no_grad():
        for i in range(0, x.shape[0], batch_size):
            pred = strided.argmax(model(x[i : i + batch_size]), axis=1)
            hits += int(strided.sum(pred == y[i : i + batch_size]))
    return hits / x.shape[0]


def train(model, data, *, epochs, lr, batch_size, device, seed, progress, name):
    """Train ``model`` with Adam and label-smoothed cross-entropy; returns a result dict."""
    x_tr, y_tr, x_te, y_te = data
    xs_tr, ys_tr = strided.asarray(x_tr).to(device), strided.asarray(y_tr).to(device)
    xs_te, ys_te = strided.asarray(x_te).to(device), strided.asarray(y_te).to(device)
    model.to(device=device, dtype=strided.float32)
    opt = optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    n = x_tr.shape[0]
    steps = math.ceil(n / batch_size)
    bar = progress(total=epochs * steps, desc=f"{name:>4}", unit="step")
    acc, loss_value = float("nan"), float("nan")
    t0 = time.perf_counter()
    for _epoch in range(epochs):
        model.train()
        order = strided.asarray(rng.permutation(n)).to(device)
        total = 0.0
        for i in range(steps):
            idx = order[i * batch_size : (i + 1) * batch_size]
            xb, yb = xs_tr[idx], ys_tr[idx]
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss)
            bar.update(1)
            bar.set_postfix(loss=f"{total / (i + 1):.3f}", acc=f"{acc:.3f}", refresh=False)
        loss_value = total / steps
        acc = accuracy(model, xs_te, ys_te)
        bar.set_postfix(loss=f"{loss_value:.3f}", acc=f"{acc:.3f}")
    bar.close()
    seconds = time.perf_counter() - t0
    return {
        "model": name,
        "parameters": sum(p.numel() for p in model.parameters()),
        "epochs": epochs,
        "steps": epochs * steps,
        "seconds": seconds,
        "loss": loss_value,
        "accuracy": acc,
    }


class _PlainProgress:
    """A stand-in for tqdm when it is not installed: one line per epoch."""

    def __init__(self, total, desc, unit):
        self.desc, self.postfix = desc, {}

    def update(self, n):
        pass

    def set_postfix(self, refresh=True, **kw):
        self.postfix = kw
        if refresh:
            print(f"{self.desc}: " + ", ".join(f"{k} {v}" for k, v in kw.items()), flush=True)

    def close(self):
        pass


def _progress_factory(enabled):
    if not enabled:
        return lambda **kw: _Silent()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        print('(tqdm is not installed: plain progress lines; pip install -e ".[examples]")')
        return _PlainProgress
    return lambda **kw: tqdm(**kw, dynamic_ncols=True, leave=True)


class _Silent(_PlainProgress):
    def __init__(self, **kw):
        super().__init__(0, "", "")

    def set_postfix(self, refresh=True, **kw):
        pass


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m strided",
        description="Train an MLP and a CNN on scikit-learn's 8x8 digits with strided.nn.",
    )
    p.add_argument(
        "--facts",
        action="store_true",
        help="print the build facts and a tour of views, and exit (no training)",
    )
    p.add_argument("--model", choices=("mlp", "cnn", "both"), default="both")
    p.add_argument(
        "--epochs", type=int, default=None, help="epochs per model (default 12, or 2 with --quick)"
    )
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3, help="Adam's learning rate")
    p.add_argument(
        "--device",
        default="cpu",
        help="cpu (default), cuda, cuda:N or cuda-emulated (the CPU emulator)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a reduced budget for CI: 2 epochs, a narrower CNN (and 128 training "
        "images on cuda-emulated)",
    )
    p.add_argument(
        "--limit", type=int, default=None, help="train on the first N training images only"
    )
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="strided.set_num_threads for training (default 1: see Note [Training "
        "small models on one thread] in strided/_train.py)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="strided.save the trained models' state dicts to PATH",
    )
    return p.parse_args(argv)


def main(args):
    device = strided.device(args.device)
    if device.type != "cpu":
        problem = None
        if device.type == "cuda" and not strided.cuda.is_available():
            problem = "no usable GPU (strided.cuda.is_available() is False)"
        else:
            missing = missing_ops(device)
            if missing:
                names = ", ".join(name for name, _ in missing)
                problem = (
                    f"these ops that training needs have no kernel on {device} yet: {names}.\n"
                    f"  (first error: {missing[0][1]})"
                )
        if problem:
            print(
                f"strided: cannot train on {device}: {problem}\n"
                "Train on the CPU instead (the default: --device cpu)."
            )
            return 2
    epochs = args.epochs if args.epochs is not None else (2 if args.quick else 12)
    limit = args.limit
    if limit is None and args.quick and device.type == "cuda-emulated":
        limit = 128
    threads = strided.get_num_threads()
    strided.set_num_threads(args.threads)
    strided.manual_seed(args.seed)
    progress = _progress_factory(not args.no_progress)
    try:
        data = load_digits_data(args.seed, limit)
        print(
            f"data: {data[0].shape[0]} training and {data[2].shape[0]} test images of 8x8 "
            f"pixels, 10 classes; device {device}, {args.threads} thread(s), seed {args.seed}"
        )
        models = []
        if args.model in ("mlp", "both"):
            models.append(("mlp", make_mlp(), (-1, 64)))
        if args.model in ("cnn", "both"):
            models.append(("cnn", make_cnn(8 if args.quick else 16), (-1, 1, 8, 8)))
        results, states = [], {}
        t0 = time.perf_counter()
        for name, model, shape in models:
            x_tr, y_tr, x_te, y_te = data
            shaped = (x_tr.reshape(shape), y_tr, x_te.reshape(shape), y_te)
            results.append(
                train(
                    model,
                    shaped,
                    epochs=epochs,
                    lr=args.lr,
                    batch_size=args.batch_size,
                    device=device,
                    seed=args.seed,
                    progress=progress,
                    name=name,
                )
            )
            states[name] = model.state_dict()
        wall = time.perf_counter() - t0
    finally:
        strided.set_num_threads(threads)
    print()
    print(summary(results, wall))
    if args.save:
        strided.save(states, args.save)
        print(
            f"saved the state dicts of {', '.join(states)} to {args.save} (strided.load reads "
            "them back)"
        )
    return 0


def summary(results, wall):
    """The table printed at the end of the main job."""
    lines = [
        "| model | parameters | epochs | steps | time | steps/s | final loss | test accuracy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['model']} | {r['parameters']:,} | {r['epochs']} | {r['steps']} | "
            f"{r['seconds']:.1f} s | {r['steps'] / r['seconds']:.0f} | {r['loss']:.3f} | "
            f"{100 * r['accuracy']:.1f}% |"
        )
    best = min(r["accuracy"] for r in results) if results else 0.0
    verdict = "met" if best >= TARGET_ACCURACY else "not met"
    lines.append("")
    lines.append(
        f"trained in {wall:.1f} s; target >= {100 * TARGET_ACCURACY:.0f}% test accuracy for "
        f"every model: {verdict}"
    )
    return "\n".join(lines)
