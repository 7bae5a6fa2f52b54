"""F.layer_norm on the CPU with a graph recorded (training): forward + backward against
PyTorch and against strided's composite (the ten recorded ops every recorded layer norm ran
before the one op: Note [Layer norm as one op] in strided/nn/functional/normalization.py).

Run: ``python benchmarks/bench_layer_norm.py [--threads N] [--rounds R]``. float32, with weight
and bias, all three requiring grad; a row is ``(layer_norm(x, w, b) * c).sum().backward()``
(``c`` a fixed tensor, so the incoming gradient is not a constant), timed in turn for R
rounds (each first in turn); medians, their spread (max - min) / median, and ratios
other / strided (above 1: strided is faster). 1 thread by default: the machine is shared.
"""

from __future__ import annotations

import numpy as np
from _harness import agree, alternated_main, switched_off, torch

import strided
from strided.nn.functional import normalization as _norm

SHAPES = [(4096, 1024), (64, 256)]


def _composite(fn):
    """``fn`` run with the one op switched off: the recorded ops."""
    return switched_off(_norm, "_one_op_case", fn)


def layer_norm_rows():
    """(name, strided, strided composite, PyTorch or None) per row."""
    from strided.nn import functional as F

    rng = np.random.default_rng(0)
    out = []
    for rows, n in SHAPES:
        x_np = rng.standard_normal((rows, n), dtype=np.float32)
        c_np = rng.standard_normal((rows, n), dtype=np.float32)
        w_np = rng.standard_normal(n, dtype=np.float32)
        b_np = rng.standard_normal(n, dtype=np.float32)
        c = strided.asarray(c_np)
        x, w, b = (strided.asarray(a).requires_grad_() for a in (x_np, w_np, b_np))

        def step(x=x, w=w, b=b, c=c, n=n):
            (F.layer_norm(x, (n,), w, b) * c).sum().backward()
            grads = (x.grad, w.grad, b.grad)
            x.grad = w.grad = b.grad = None
            return grads

        t_step = None
        if torch is not None:
            tc = torch.from_numpy(c_np)
            tx, tw, tb = (torch.from_numpy(a.copy()).requires_grad_() for a in (x_np, w_np, b_np))

            def t_step(x=tx, w=tw, b=tb, c=tc, n=n):
                (torch.nn.functional.layer_norm(x, (n,), w, b) * c).sum().backward()
                grads = (x.grad, w.grad, b.grad)
                x.grad = w.grad = b.grad = None
                return grads

        name = f"layer_norm {rows}x{n}, weight and bias, forward + backward"
        out.append((name, step, _composite(step), t_step))
    return out


def main():
    alternated_main(
        __doc__, layer_norm_rows, agree(1e-4, 1e-4), "layer_norm, float32", ("before", "torch")
    )


if __name__ == "__main__":
    main()
