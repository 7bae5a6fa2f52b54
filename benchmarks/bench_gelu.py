"""F.gelu on the CPU, both forms, float32 and float64: the forward alone (no graph) and the
training step's forward + backward, against PyTorch and against strided's ops (the five or
seven recorded ops every gelu ran before its one loop and op: Note [gelu as one op] in
strided/_cpu/unary.pyx.tp).

Run: ``python benchmarks/bench_gelu.py [--threads N] [--rounds R]``. 1e6 elements from
N(0, 3^2); a forward row is ``F.gelu(x)`` on a tensor that does not require grad, a step row
``y = F.gelu(x); y.backward(g)`` (``g`` a fixed tensor) on one that does. Timed in turn for R
rounds (each first in turn); medians, their spread (max - min) / median, and ratios other /
strided (above 1: strided is faster). 1 thread by default: the machine is shared.
"""

from __future__ import annotations

import numpy as np
from _harness import agree, alternated_main, switched_off, torch

import strided
from strided.nn.functional import activation as _act

N = 1_000_000


def gelu_rows():
    """(name, strided, strided's ops, PyTorch or None) per row."""
    from strided.nn import functional as F

    rng = np.random.default_rng(0)
    out = []
    for dtype in ("float32", "float64"):
        x_np = (rng.standard_normal(N) * 3).astype(dtype)
        g_np = rng.standard_normal(N).astype(dtype)
        for form in ("none", "tanh"):
            x, g = strided.asarray(x_np), strided.asarray(g_np)
            xg = strided.asarray(x_np).requires_grad_()

            def fwd(x=x, form=form):
                return (F.gelu(x, approximate=form),)

            def step(x=xg, g=g, form=form):
                F.gelu(x, approximate=form).backward(g)
                grad, x.grad = x.grad, None
                return (grad,)

            t_fwd = t_step = None
            if torch is not None:
                tx, tg = torch.from_numpy(x_np), torch.from_numpy(g_np)
                txg = torch.from_numpy(x_np.copy()).requires_grad_()

                def t_fwd(x=tx, form=form):
                    return (torch.nn.functional.gelu(x, approximate=form),)

                def t_step(x=txg, g=tg, form=form):
                    torch.nn.functional.gelu(x, approximate=form).backward(g)
                    grad, x.grad = x.grad, None
                    return (grad,)

            what = f"gelu {form} {dtype} 1e6"
            for kind, fn, t_fn in (("forward", fwd, t_fwd), ("forward + backward", step, t_step)):
                out.append((f"{what}, {kind}", fn, switched_off(_act, "_one_op_case", fn), t_fn))
    return out


def main():
    alternated_main(__doc__, gelu_rows, agree(1e-5, 1e-5), "gelu, 1 thread", ("ops", "torch"))


if __name__ == "__main__":
    main()
