"""Compiler benchmark: fused chains through ``strided.compile`` against eager strided, NumPy and
``torch.compile`` (PyTorch's Inductor, which also generates C++/OpenMP and needs the same C
compiler).

Run: ``python benchmarks/bench_compile.py [--threads N]`` or ``python -m strided.bench --suite
compile``. Each workload has two rows: ``compiled`` (the strided column is
``strided.compile(fn)``, the torch column ``torch.compile(fn)``) and ``eager`` (both libraries
eagerly); the NumPy column is NumPy's eager code in both, so the two rows' ratios against it
compare compiled with eager. Above 1 means strided is faster. The first call (capture + C
compile) is reported separately by the suite runner; the kernel cache on disk (Note [The kernel
cache] in strided/_compile/cc.py) makes it cheap in a second process.

Workloads (float32): ``((x * 2 + 1).exp() * y).sum()`` on 1e7 elements; ``gelu(x @ w + b)``
(the epilogue after a 4096x256 @ 256x1024 matmul, which runs eagerly in both); softmax over the
rows of 4096x1024; layer norm over the rows of 4096x1024; one SGD training step of the MLP of
bench_autograd.py, forward and backward compiled (the joint graph).

``--quick`` (CI) leaves ``torch.compile`` out: its first call costs ~15 s per function.

Measured (issue 24, one thread, medians of 9 alternated rounds in one process, on a 2-core
AMD EPYC Zen 3 (AVX2) shared with other work: spreads of 10-40%, 2-thread runs were too
disturbed to quote), strided compiled / strided eager / torch.compile, before -> after the
plan's run loop, the vectorised erf and the in-place epilogue (Notes [The plan's run loop],
[The CPU loops' functions in fused C], [Writing into a dead buffer] in strided/_compile):
chain 15.8 -> 13.4 / 34.7 / 14.5 ms; gelu(x@w+b) 117.6 -> 37.5 / 48.8 / 50.9 ms (the matmul
alone ~27-40 ms); softmax rows 9.3 -> 9.1 / 12.2 / 9.3 ms; layer norm 6.4 -> 6.7 / 17.7 / 6.6 ms;
MLP step 0.89-0.96x -> 1.04-1.09x eager (1.3-2.2 ms with the load; ~1 ms of it is the five
matmuls, so 1.5x eager needs faster matmuls, not less glue), below torch.compile's 2.6 ms.

Then (same machine, one thread, medians of 9 alternated rounds, load average 1.5-4: spreads of
10-65%; 2-thread runs were disturbed beyond use, strided eager softmax 58 ms):
softmax rows 9.1 -> 6.4 ms (strided eager 8.3, torch.compile 8.1, torch eager 5.4) and layer
norm 6.7 -> 3.0 ms (eager 11.0, torch.compile 4.2, torch eager 6.3) by the row groups (Note
[One pass per row] in strided/_compile/rows.py); the digits CNN Adam step, which ran its
backward eagerly, compiled 4.1-4.2 ms against eager 7.2-7.5, torch.compile 7.7-8.3, torch
eager 5.3-5.8 (1.7-1.8x eager; Note [Layers as ops with rows] in strided/fx/layers.py); MLP
step 2.04-2.15 ms against eager 2.28-2.40 (1.1x) and torch.compile 2.8-3.0: the matmuls are
~0.75 ms of the compiled step's ~1.2 ms forward and backward, the SGD loop another 0.1.
Compile latency (a 12-op chain on (1000, n) float64, one thread, a fresh
``STRIDED_COMPILE_CACHE=$(mktemp -d)``): first call of a new graph 0.5-1.2 s -> 0.24-0.37 s
once the precompiled header exists (Note [A precompiled header] in strided/_compile/cc.py; the
very first kernel of a fresh cache builds it: 2.4 s); a second process's first call 43-65 ms
from the disk cache (0.3-0.45 s at two threads on the loaded machine: OpenMP's idle threads).
Rerun: ``cd benchmarks && STRIDED_NUM_THREADS=1 flock /tmp/strided-build.lock python
bench_compile.py --threads 1``.

Later (same machine, one thread, load average 2-5: spreads of 10-90%): the MLP step, 9
alternated rounds of 100 steps, strided compiled 1.35 ms (1.15-1.99), compiled with the fused
SGD step (Note [A fused optimizer step] in strided/_compile/optim.py) 1.26 (1.14-1.79), eager
1.39 (1.27-2.09); torch.compile 2.54 (1.54-3.55), with PyTorch's fused SGD 2.05 (1.58-2.71),
torch eager 1.38 (1.28-2.22). Eager strided had caught up (issue 20's autograd work), so the
compiled step is 1.03-1.1x eager, not 1.5x. ``--profile-mlp`` says why: the five matmuls alone
take 0.74 ms of the eager step's 1.34 ms, so even a step whose every other part were free
would be 1.8x eager; 1.5x needs the rest of the compiled step (~0.6-0.7 ms: the fused kernels,
the autograd Function around the joint graph, the plan's Python loop) under 0.15 ms. The SGD
update of the four parameters: eager loop 98 us, fused 80 us. Compile latency in real
processes (``--latency``, fresh cache): the very first call 1.9 s (the precompiled header is
built), a new 13-op graph's first call 374-558 ms, a second process's 50-83 ms (targets 1 s
and 100 ms); torch.compile's first call of the same graph 8.1 s. A compiled call's overhead
(x * 2 + 1 on 8 float64): 9.8 us, eager 3.8, NumPy 2.3, torch.compile 28.8. Rerun:
``STRIDED_NUM_THREADS=1 flock /tmp/strided-build.lock python bench_compile.py --threads 1
--only MLP --only latency --only overhead``, ``... --profile-mlp``, ``... --latency``.

Then (same machine, one thread, load average 3-4, the harness's spreads 2-8%): a compiled
call's own cost cut (Note [The cost of a compiled call] in strided/_compile/__init__.py): x * 2
+ 1 on 8 float64 compiled 0.51 us (eager 1.98, NumPy 1.18, torch.compile 8.98); the chain
``(x * 2 + 1).exp()`` on float64, compiled before -> after (eager), medians of 9 alternated
rounds in two processes each: 1 element 4.8-6.3 -> 0.5-0.7 us (2.4-3.5), 100 elements 4.9-5.0
-> 0.6-0.8 us (2.6-3.8), 1e4 10.0-10.3 -> 5.9-6.0 us (8.9-9.8), 1e6 unchanged (0.58-1.4 ms
with the load; eager 1.1). The fused loops' loads hoisted before their selects and the values
only fused groups read written row-major (Notes [Loads before selects] in codegen.py and
[Intermediates in row order] in program.py): the CNN's max-pool backward (two ``where`` over
the window grid) 128 + 198 us -> under 4 + 11 us. The steps now: digits CNN (Adam) compiled 0.85 ms,
with the fused Adam step 0.82, eager 1.52-1.57 (1.8-1.9x eager; the 1.5x target met),
torch.compile 2.17 (fused Adam 2.07), torch eager 1.37; MLP compiled 0.61 ms, fused SGD 0.63,
eager 0.68 (1.1x), torch.compile 0.76, torch eager 0.72, NumPy's hand-written step 0.45. The
MLP's five matmuls alone take 0.47 ms here (strided's and NumPy's the same to 1%), so a step
with all else free would be 0.68 / 0.47 = 1.45x eager: its 1.5x is out of reach without a
faster GEMM. What is left of the compiled step beyond the matmuls (~0.14 ms): the fused SGD
update (~40 us, memory-bound: 0.8 MB of weights read twice and written), the fused kernels
(~10 us), and Python glue (the module's parameters found and guarded on every call, the
autograd Function around the joint graph, the engine; ~90 us).

On a 2-core AMD EPYC with AVX-512 (x86-64-v4 kernels), one thread, load average 2.5-4.5:
softmax rows compiled 1.68 ms (eager 3.32, torch.compile 1.98: 1.98x eager, 1.18x
torch.compile) and layer norm 0.72 ms (eager 4.21, torch.compile 1.17: 5.9x and 1.6x), both the
CPU's one pass per row already (Note [One pass per row]). MLP step compiled 0.55-0.59 ms, eager
0.62-0.66 (1.13x), torch.compile 0.71-0.73. ``--profile-mlp``: the five matmuls 0.45 ms of the
eager step's 0.66 (bound 1.47x: 1.5x cannot be reached by the compiler). None of them can go:
x needs no gradient and its matmul is not in the backward graph; the transposed operands are
views passed to the GEMM (x.T @ dh 214 us, x @ w1 216 us; OpenBLAS ~119 GFLOP/s there,
PyTorch's own GEMM 245-255 us); bias and ReLU are one fused pass written into the product's
buffer (Note [Writing into a dead buffer]), a few us, so a beta=1 GEMM with the bias broadcast
into C would save nothing (C must be filled first, and ReLU stays a pass). Beyond the matmuls:
the fused SGD update ~40-50 us (0.8 MB of w1 read twice and written) and ~75 us of forward and
backward glue (the engine, the backward program's eager views). The NumPy column's BLAS is not
held to one thread by the harness (its hand-written step 0.38 ms, below its own matmuls' 0.45
ms at one thread).

The chain at two threads (same machine; it had been 0.83x torch.compile): its threads were not
the cause (one parallel region, a private accumulator per thread, the exp vectorised), its
float32 sum was: every 16 values widened to double and added, ~5 instructions beside the exp's
~30, at one thread as at two. Summed in float blocks inside double totals (Note [A float32 sum
in blocks] in strided/_compile/codegen.py; same float32 bits on these inputs), medians of
alternated rounds in one process, best of 5 calls per round, spreads in brackets, strided
compiled before -> after / torch.compile / strided eager:

| threads | load | before, ms | after | torch.compile | eager | torch.compile/after |
|---|---|---|---|---|---|---|
| 1 | 0.8-1.8 | 3.30-3.39 (3-12%) | 2.59-2.65 (3-6%) | 2.52-2.57 (3-6%) | 9.9-10.5 | 0.97 |
| 2 | 0.8-1.8 | 1.66-1.74 (3-33%) | 1.31-1.40 (10-50%) | 1.35-1.51 (8-56%) | 5.2-8.7 | 1.02-1.08 |
| 1 | 3.0 | 3.33 (5%) | 2.67 (8%) | 2.57 (6%) | 9.9 | 0.96 |
| 2 | 2.9-3.3 | 3.69-4.03 (12-14%) | 2.96-3.41 (12-23%) | 3.22-3.86 (17-62%) | 14-17 | 1.09-1.13 |

(the first two rows' "after" is the static split, one slot per thread as Inductor does, the
last two's the committed form, whose threads take runs of blocks as they come and give the same
bits at every thread count; at load 3 the other core is busy, so two threads are slower than
one for all three). The two forms side by side: 2.96 (runs) against 3.09 ms (static) at two
threads, 2.67 and 2.67 at one. At one thread the ~3% left is the exp itself (its values must
stay eager's). Rerun (the same kernels, alternated, the harness's timing, so spreads are wider):
``cd benchmarks && flock /tmp/strided-build.lock python bench_compile.py --sum-blocks``
(1 and 2 threads; 15 rounds: 2.74-2.79 ms against single loop 3.42-3.47 and torch.compile
2.64-2.67 at one thread, 1.24x and 0.96-0.97x; at two 3.26 / 3.98 / 3.51 ms, 1.22x and 1.08x,
and once 1.78 / 1.78 / 1.43 with spreads of 27-59%).

The training steps again (same machine, one thread, load 4-4.5, spreads 2-4%; medians of 7
alternated rounds, one process per side, "before" being the compiler's Python files as they
were over the same build, so eager already had its Winograd convolution, ~790 us a step):
digits CNN (Adam) compiled 779 -> 490 us, with the fused Adam 754 -> 449 us, eager 785-793
(1.60x and 1.75x eager; torch.compile 2.1-2.3 ms in ``--only CNN``). The cuts: the stride-1
convolutions kept as eager's op in the compiled graph, differentiated by its own row (Note
[Eager's convolution in a joint graph] in strided/fx/layers.py: the second layer's im2col and
three GEMMs, ~230 us, against Winograd's ~180), the max-pool backward's counts of ties
vectorised (Note [Counting bools in a vector loop] in codegen.py: 51 + 24 -> 14 + 6 us), the
first layer's im2col by runs of taps (Note [The layers' loops in C]: 48 -> 16 us, before the
convolution became the op) and the fused Adam's loops vectorised (Note [Adam's loop without
branches] in strided/_compile/optim.py: 16 -> 2.4 us of C). The MLP step is unchanged, 572 us
compiled and 582 with the fused SGD against eager's 638-645 (1.10-1.12x; torch.compile
774-778): its five GEMMs take 470 us of eager's ~645 (bound 1.37x with all else free), at
the GEMM's peak for the kernels OpenBLAS runs here (111-116 GFLOP/s for the two large ones,
121 for a 1024^3 product), and no layout or operand order handed to OpenBLAS is faster (x @ w1
as (w1.T @ x.T).T, x.T @ dh as (dh.T @ x).T: the same time, other bits). Those are its AVX2
("Haswell") kernels, because this machine's environment sets OPENBLAS_CORETYPE=Haswell; unset,
OpenBLAS picks its AVX-512 ("SkylakeX") kernels here: 64x784 @ 784x256 230 -> 143 us, 784x64
@ 64x256 225 -> 121 us, 1024^3 17.7 -> 9.7 ms (and eager gains as much as compiled). The
SGD update folded into the weight gradient's GEMM (W -= lr X^T dY as one sgemm with alpha =
-lr, beta = 1) would save the update's pass over w1 (the fused SGD's C call is 45 us, bound by
2.4 MB of traffic), not reach 1.5x, and is not done: the compiled function ends at the loss,
so its backward cannot know the optimizer's step without a new API, and the product would be
rounded once into W where eager rounds the gradient, its product with lr and the difference
(up to an ulp of W per step). Rerun: ``cd benchmarks && STRIDED_NUM_THREADS=1 flock
/tmp/strided-build.lock python bench_compile.py --threads 1 --only MLP --only CNN``.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
from _harness import run, torch

import strided
from strided.nn import functional as F

_QUICK = "--quick" in sys.argv  # python -m strided.bench --quick: agreement only, no Inductor


def _chain(x, y):
    return ((x * 2 + 1).exp() * y).sum()


def _erf_gelu_np(h):
    from scipy.special import erf

    return 0.5 * h * (1 + erf(h / math.sqrt(2)))


def cases():
    rng = np.random.default_rng(0)
    out = []

    def case(name, s_fns, n_fn, t_fns, rtol):
        for label, s_fn, t_fn in zip(("compiled", "eager"), s_fns, t_fns, strict=True):

            def check(s_fn=s_fn, t_fn=t_fn):
                got = np.asarray(s_fn())
                np.testing.assert_allclose(got, n_fn(), rtol=rtol, atol=rtol)
                if t_fn is not None:
                    np.testing.assert_allclose(got, t_fn().numpy(), rtol=rtol, atol=rtol)

            out.append((f"{name} ({label})", s_fn, n_fn, t_fn, check))

    def torch_pair(fn, *args):
        """(torch.compile(fn), fn) on the same memory, or Nones without PyTorch."""
        if torch is None:
            return None, None
        targs = [torch.from_numpy(np.asarray(a)) for a in args]
        compiled = None if _QUICK else torch.compile(fn)
        return (None if compiled is None else lambda: compiled(*targs)), lambda: fn(*targs)

    n = 10**7
    x_np = rng.random(n, dtype=np.float32)
    y_np = rng.random(n, dtype=np.float32)
    x, y = strided.asarray(x_np), strided.asarray(y_np)
    chain = _chain
    c_chain = strided.compile(chain)
    tc, te = torch_pair(lambda a, b: ((a * 2 + 1).exp() * b).sum(), x, y)
    case(
        "((x*2+1).exp()*y).sum() 1e7",
        (lambda: c_chain(x, y), lambda: chain(x, y)),
        lambda: (np.exp(x_np * 2 + 1) * y_np).sum(dtype=np.float64),
        (tc, te),
        1e-4,
    )

    a_np = rng.standard_normal((4096, 256), dtype=np.float32)
    w_np = (rng.standard_normal((256, 1024), dtype=np.float32) / 16).astype(np.float32)
    b_np = rng.standard_normal(1024, dtype=np.float32)
    a, w, b = strided.asarray(a_np), strided.asarray(w_np), strided.asarray(b_np)

    def epilogue(a, w, b):
        return F.gelu(a @ w + b)

    c_epi = strided.compile(epilogue)
    tc, te = torch_pair(lambda a, w, b: torch.nn.functional.gelu(a @ w + b), a, w, b)
    case(
        "gelu(x @ w + b) 4096x1024",
        (lambda: c_epi(a, w, b), lambda: epilogue(a, w, b)),
        lambda: _erf_gelu_np(a_np @ w_np + b_np),
        (tc, te),
        1e-4,
    )

    h_np = rng.standard_normal((4096, 1024), dtype=np.float32)
    h = strided.asarray(h_np)

    def softmax(h):
        return F.softmax(h, dim=1)

    def np_softmax(h):
        e = np.exp(h - h.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    c_sm = strided.compile(softmax)
    tc, te = torch_pair(lambda t: torch.softmax(t, dim=1), h)
    case(
        "softmax rows 4096x1024",
        (lambda: c_sm(h), lambda: softmax(h)),
        lambda: np_softmax(h_np),
        (tc, te),
        1e-5,
    )

    def layer_norm(h):
        return F.layer_norm(h, (1024,))

    def np_layer_norm(h):
        mu = h.mean(axis=1, keepdims=True)
        return (h - mu) / np.sqrt(((h - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)

    c_ln = strided.compile(layer_norm)
    tc, te = torch_pair(lambda t: torch.nn.functional.layer_norm(t, (1024,)), h)
    case(
        "layer norm rows 4096x1024",
        (lambda: c_ln(h), lambda: layer_norm(h)),
        lambda: np_layer_norm(h_np),
        (tc, te),
        1e-4,
    )
    small_np = rng.standard_normal(8)
    small = strided.asarray(small_np)

    def affine(x):
        return x * 2 + 1

    c_aff = strided.compile(affine)
    tc, te = torch_pair(lambda t: t * 2 + 1, small)
    case(
        "per-call overhead: x * 2 + 1 on 8 float64",
        (lambda: c_aff(small), lambda: affine(small)),
        lambda: small_np * 2 + 1,
        (tc, te),
        1e-12,
    )
    out += _latency_cases(rng)
    out += _training_cases()
    out += _cnn_cases()
    return out


def _thirteen(x, c, lib=strided):
    """The compile-latency graph: twelve elementwise ops and a sum (issue 24's "10-op graph");
    ``lib=np`` runs it in NumPy."""
    y = lib.exp((x * c + 1.0) * 0.5) - x
    y = lib.tanh(y) * 2.0 + x
    return (lib.maximum(y, 0.0) / (x * x + 1.0)).sum(axis=1)


def _latency_cases(rng):
    """Compile latency (issue 24's targets: a 10-op graph's first call under 1 s, a second
    process's first call under 100 ms from the disk cache). The strided column is the first
    call of a new ``strided.compile(_thirteen)``: with a new constant each time (new C source:
    capture, trace, C generation and gcc), or with the same one (capture and C generation,
    the kernel loaded from the disk cache: what a second process pays, less its imports; a
    real second process is ``--latency``). NumPy's column runs the function eagerly, so the
    ratio says how many eager calls one compile costs. torch.compile's first call (~15 s a
    function) is left out of the table; ``--latency`` times it once."""
    import itertools
    import os

    x_np = rng.standard_normal((1000, 64))
    x = strided.asarray(x_np)
    fresh = itertools.count(1)

    def first_call(c, keep=True):
        f = strided.compile(lambda x: _thirteen(x, c))
        out = f(x)
        if not keep and f.last.path:
            os.remove(f.last.path)  # a new kernel every call: keep the cache directory small
        return out

    def check(c, keep=True):
        got = np.asarray(first_call(c, keep))
        np.testing.assert_allclose(got, _thirteen(x_np, c, np), rtol=1e-10)

    return [
        (
            "compile latency: first call, new 13-op graph (gcc)",
            lambda: first_call(1.0 + next(fresh) * 2.0**-30, keep=False),
            lambda: _thirteen(x_np, 1.0, np),
            None,
            lambda: check(1.0 + next(fresh) * 2.0**-30, keep=False),
        ),
        (
            "compile latency: first call, kernel on disk",
            lambda: first_call(0.5),
            lambda: _thirteen(x_np, 0.5, np),
            None,
            lambda: check(0.5),
        ),
    ]


def _training_cases():
    """One SGD step of bench_autograd.py's MLP (784-256-10, batch 64, float32), its loss
    written in an nn.Module so that strided.compile lifts the weights into the joint graph
    (Note [The joint graph]); torch.compile compiles the same module. The NumPy column is
    bench_autograd's hand-written step (backward by hand)."""
    from bench_autograd import BATCH, LR, _init, numpy_step
    from bench_cuda_host import fused_step  # Note [A fused optimizer step]

    from strided import nn

    class Step(nn.Module):
        def __init__(self, params):
            super().__init__()
            self.w1, self.b1, self.w2, self.b2 = (nn.Parameter(strided.tensor(p)) for p in params)

        def forward(self, x, onehot):
            h = strided.relu(x @ self.w1 + self.b1)
            logp = F.log_softmax(h @ self.w2 + self.b2, dim=1)
            return -(logp * onehot).sum() / BATCH

    def step(model, params, x, onehot):
        loss = model(x, onehot)
        loss.backward()
        with strided.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss

    def make(compiled, seed=0, fused=False):
        from strided import optim

        x_np, onehot_np, params_np = _init(seed)
        module = Step(params_np)
        model = strided.compile(module) if compiled else module
        params = list(module.parameters())
        x, onehot = strided.asarray(x_np), strided.asarray(onehot_np)
        if fused:
            opt = optim.SGD(params, lr=LR, fused=True)
            return lambda: fused_step(model, opt, x, onehot)
        return lambda: step(model, params, x, onehot)

    def torch_make(compiled, fused=False):
        if torch is None or (compiled and _QUICK):
            return None
        x_np, onehot_np, params_np = _init(0)

        class TStep(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.ps = torch.nn.ParameterList(
                    torch.nn.Parameter(torch.tensor(p)) for p in params_np
                )

            def forward(self, x, onehot):
                w1, b1, w2, b2 = self.ps
                h = torch.relu(x @ w1 + b1)
                logp = torch.log_softmax(h @ w2 + b2, dim=1)
                return -(logp * onehot).sum() / BATCH

        module = TStep()
        model = torch.compile(module) if compiled else module
        x, onehot = torch.from_numpy(x_np), torch.from_numpy(onehot_np)

        def t_step():
            loss = model(x, onehot)
            loss.backward()
            with torch.no_grad():
                for p in module.parameters():
                    p -= LR * p.grad
                    p.grad = None
            return loss

        if fused:  # PyTorch's fused CPU SGD, the same update
            opt = torch.optim.SGD(module.parameters(), lr=LR, fused=True)

            def t_step():  # noqa: F811 - the fused variant
                loss = model(x, onehot)
                loss.backward()
                opt.step()
                opt.zero_grad()
                return loss

        return t_step

    def check(compiled, fused=False):
        def run():  # two steps from the same start: NumPy's losses
            xs, oh, ps = _init(1)
            step_fn, ps = make(compiled, seed=1, fused=fused), [p.copy() for p in ps]
            for _ in range(2):
                want = float(numpy_step(xs, oh, ps))
                np.testing.assert_allclose(float(step_fn()), want, rtol=1e-5)

        return run

    x_np, onehot_np, params_np = _init(0)
    n_params = [p.copy() for p in params_np]
    n_fn = lambda: numpy_step(x_np, onehot_np, n_params)  # noqa: E731
    name = "MLP 784-256-10 train step, batch 64"
    return [
        (f"{name} (compiled)", make(True), n_fn, torch_make(True), check(True)),
        (
            f"{name} (compiled, fused SGD)",
            make(True, fused=True),
            n_fn,
            torch_make(True, fused=True),
            check(True, fused=True),
        ),
        (f"{name} (eager)", make(False), n_fn, torch_make(False), check(False)),
    ]


def _cnn_cases():
    """One Adam step of the digits CNN (strided._train.make_cnn, batch 64 of 8x8 images, as
    the nn suite's "digits CNN training step"): the loss module compiled (conv2d, max_pool2d,
    flatten and cross_entropy decompose, Note [Layers as ops with rows] in strided/fx/layers.py)
    or eager, then ``loss.backward()`` and the optimizer's step, eager in both; torch.compile
    compiles the same loss module. NumPy has no CNN: its column is empty."""
    from strided import nn, optim
    from strided._train import make_cnn

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((64, 1, 8, 8), dtype=np.float32)
    y_np = rng.integers(0, 10, 64)

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = make_cnn().to("float32")

        def forward(self, x, y):
            return F.cross_entropy(self.net(x), y)

    def make(compiled, seed=0, fused=False):
        _ = strided.manual_seed(seed)
        module = Loss()
        model = strided.compile(module) if compiled else module
        opt = optim.Adam(module.parameters(), lr=1e-3, fused=fused or None)
        x, y = strided.asarray(x_np), strided.asarray(y_np)

        def step():
            loss = model(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        return step

    def torch_make(compiled, fused=False):
        if torch is None or (compiled and _QUICK):
            return None
        tn = torch.nn
        torch.manual_seed(0)
        net = tn.Sequential(
            tn.Conv2d(1, 16, 3, padding=1), tn.ReLU(), tn.MaxPool2d(2),
            tn.Conv2d(16, 32, 3, padding=1), tn.ReLU(), tn.MaxPool2d(2),
            tn.Flatten(), tn.Linear(128, 10),
        )  # fmt: skip

        def loss_fn(x, y):
            return tn.functional.cross_entropy(net(x), y)

        model = torch.compile(loss_fn) if compiled else loss_fn
        opt = torch.optim.Adam(net.parameters(), lr=1e-3, fused=fused or None)
        x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)

        def t_step():
            loss = model(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        return t_step

    def check(compiled, fused=False):
        def run():  # three steps from the same start: the eager losses
            got, want = make(compiled, seed=1, fused=fused), make(False, seed=1)
            for _ in range(3):
                np.testing.assert_allclose(float(got()), float(want()), rtol=1e-5)

        return run

    name = "digits CNN train step (Adam), batch 64"
    return [
        (f"{name} (compiled)", make(True), None, torch_make(True), check(True)),
        (
            f"{name} (compiled, fused Adam)",
            make(True, fused=True),
            None,
            torch_make(True, fused=True),
            check(True, fused=True),
        ),
        (f"{name} (eager)", make(False), None, torch_make(False), check(False)),
    ]


def profile_mlp(threads, rounds=9):
    """Where the compiled MLP step's time goes: the whole step (compiled, fused SGD), its five
    matmuls alone (the forward's two, the backward's three, with the backward's transposed
    operands), the optimizer step alone (eager loop and fused), and the eager step; medians and
    spreads of ``rounds`` alternated rounds. What is not GEMM bounds any speed-up: were all of
    it free, the step could be at most eager / GEMM times faster than eager."""
    import statistics

    from _harness import fmt_time, timeit
    from bench_autograd import BATCH, D_HID, D_IN, D_OUT, LR

    from strided import optim

    strided.set_num_threads(threads)
    cases = {c[0]: c[1] for c in _training_cases()}
    compiled = next(f for n, f in cases.items() if "fused SGD" in n)
    eager = next(f for n, f in cases.items() if n.endswith("(eager)"))
    rng = np.random.default_rng(0)

    def t(*shape):
        return strided.asarray(rng.standard_normal(shape).astype(np.float32))

    x, w1, w2, h, g2, dh = (
        t(BATCH, D_IN),
        t(D_IN, D_HID),
        t(D_HID, D_OUT),
        t(BATCH, D_HID),
        t(BATCH, D_OUT),
        t(BATCH, D_HID),
    )

    def gemms():
        x @ w1  # forward
        h @ w2
        h.T @ g2  # backward: dW2, dh, dW1
        g2 @ w2.T
        x.T @ dh

    params = [p.requires_grad_() for p in (t(D_IN, D_HID), t(D_HID), t(D_HID, D_OUT), t(D_OUT))]
    grads = [strided.zeros_like(p) for p in params]
    fused_opt = optim.SGD(params, lr=LR, fused=True)

    def sgd_loop():
        with strided.no_grad():
            for p, g in zip(params, grads, strict=True):
                p -= LR * g

    def sgd_fused():
        for p, g in zip(params, grads, strict=True):
            p.grad = g
        fused_opt.step()

    parts = {
        "eager step": eager,
        "compiled step (fused SGD)": compiled,
        "its 5 matmuls alone": gemms,
        "SGD update, eager loop": sgd_loop,
        "SGD update, fused": sgd_fused,
    }
    samples = {k: [] for k in parts}
    for _ in range(rounds):
        for k, fn in parts.items():
            samples[k].append(timeit(fn, repeats=3)[0])
    med = {k: statistics.median(v) for k, v in samples.items()}
    print(f"## the MLP step's profile ({threads} thread(s), {rounds} alternated rounds)\n")
    print("| part | median | spread |")
    print("|---|---|---|")
    for k, v in samples.items():
        print(f"| {k} | {fmt_time(med[k])} | ±{(max(v) - min(v)) / med[k]:.0%} |")
    rest = med["compiled step (fused SGD)"] - med["its 5 matmuls alone"]
    print(f"\ncompiled step - matmuls = {fmt_time(rest)} (glue, fused kernels, the update)")
    e_med, gemm = med["eager step"], med["its 5 matmuls alone"]
    print(
        f"compiled/eager speed-up {e_med / med['compiled step (fused SGD)']:.2f}x; "
        f"bound with everything but GEMM free: {e_med / gemm:.2f}x"
    )


_FIRST_CALL = (
    "import sys, time; sys.path.insert(0, {here!r}); import numpy as np, strided; "
    "from bench_compile import _thirteen; "
    "x = strided.asarray(np.random.default_rng(0).standard_normal((1000, 64))); "
    "f = strided.compile(lambda x: _thirteen(x, {c!r})); "
    "t0 = time.perf_counter(); f(x); print(time.perf_counter() - t0)"
)


def latency(threads, rounds=5):
    """Compile latency in real processes, in a fresh cache directory: the very first call
    (the precompiled header and the kernel built), then per round a new graph's first call
    (gcc on the kernel only) and a second process's first call of the same graph (the kernel
    from the disk cache); then torch.compile's first call of the same graph, once."""
    import os
    import statistics
    import subprocess
    import tempfile
    import time
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)

    def first_call(c, env):
        code = _FIRST_CALL.format(here=here, c=c)
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True)  # fmt: skip
        return float(done.stdout.split()[-1])

    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, STRIDED_COMPILE_CACHE=d, STRIDED_NUM_THREADS=str(threads))
        very_first = first_call(0.25, env)
        new, disk = [], []
        for k in range(rounds):
            c = 0.5 + k / 64
            new.append(first_call(c, env))
            disk.append(first_call(c, env))
    print(f"## compile latency, real processes ({threads} thread(s), {rounds} rounds)\n")
    print(f"- very first call, fresh cache (header + kernel): {very_first * 1e3:.0f} ms")
    for label, v in (("a new graph's first call (gcc)", new), ("a second process, disk", disk)):
        med = statistics.median(v)
        print(f"- {label}: median {med * 1e3:.0f} ms, {min(v) * 1e3:.0f}-{max(v) * 1e3:.0f} ms")
    if torch is not None:
        torch.set_num_threads(threads)

        def t_thirteen(x):
            y = torch.exp((x * 0.25 + 1.0) * 0.5) - x
            y = torch.tanh(y) * 2.0 + x
            return (y.clamp(min=0.0) / (x * x + 1.0)).sum(axis=1)

        tx = torch.from_numpy(np.random.default_rng(0).standard_normal((1000, 64)))
        f = torch.compile(t_thirteen)
        t0 = time.perf_counter()
        f(tx)
        print(f"- torch.compile's first call, same graph: {(time.perf_counter() - t0):.1f} s")


def sum_blocks(threads=(1, 2), rounds=15):
    """The fused chain with its float32 sum in blocks (Note [A float32 sum in blocks] in
    strided/_compile/codegen.py) against the single loop it replaced (the same generator with
    the blocks turned off) and torch.compile, alternated in one process at each thread count."""
    from _harness import alternated

    from strided._compile import codegen

    rng = np.random.default_rng(0)
    n = 10**7
    x_np, y_np = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    x, y = strided.asarray(x_np), strided.asarray(y_np)
    blocked = strided.compile(_chain)
    blocked(x, y)
    block, codegen.SUM_BLOCK = codegen.SUM_BLOCK, n  # no two blocks fit: the single loop
    try:
        single = strided.compile(_chain)
        single(x, y)
    finally:
        codegen.SUM_BLOCK = block
    tc = None
    if torch is not None:
        tx, ty = torch.from_numpy(x_np), torch.from_numpy(y_np)
        compiled = torch.compile(lambda a, b: ((a * 2 + 1).exp() * b).sum())
        tc = lambda: compiled(tx, ty)  # noqa: E731

    def check():
        want = (np.exp(x_np.astype(np.float64) * 2 + 1) * y_np).sum()
        for f in (blocked, single):
            np.testing.assert_allclose(float(np.asarray(f(x, y))), want, rtol=1e-6)

    case = ("chain 1e7, sum in blocks", lambda: blocked(x, y), lambda: single(x, y), tc, check)
    for t in threads:
        alternated([case], rounds, t, "float32 sum in blocks", ("single loop", "torch.compile"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--profile-mlp", action="store_true", help="the MLP step's time by part")
    p.add_argument("--latency", action="store_true", help="compile latency in real processes")
    p.add_argument("--only", action="append", help="only the rows whose name holds this")
    p.add_argument("--sum-blocks", action="store_true", help="the chain's sum, blocks or not")
    args = p.parse_args()
    if args.sum_blocks:
        sum_blocks()
        return
    if args.profile_mlp:
        profile_mlp(args.threads)
        return
    if args.latency:
        latency(args.threads)
        return
    # the harness's table has a NumPy column; the CNN step has none, so it is timed against the
    # strided eager step in its place (the two rows' "numpy" ratio is then compiled/eager)
    made = cases()
    eager_cnn = next(c[1] for c in made if c[0].startswith("digits CNN") and "eager" in c[0])
    made = [(n, s, eager_cnn if f is None else f, t, c) for n, s, f, t, c in made]
    if args.only:  # --only MLP --only latency: the rows whose names hold one of the words
        made = [c for c in made if any(w in c[0] for w in args.only)]
    run(made, threads=args.threads, title="strided.compile: fused chains")


if __name__ == "__main__":
    main()
