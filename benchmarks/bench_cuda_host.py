"""The host side of the CUDA path, measured without a GPU: what Python costs per op.

On a GPU a small op's time is mostly the host's: dispatch, the iterator's plan, the kernel's
lookup, argument packing, allocation, autograd's recording. All of it is the same Python on the
emulated device (Note [Two CUDA backends] in strided/cuda/_backend.py), so this script runs
ops on ``cuda-emulated`` with the device work stubbed out: ``launch`` and the cuBLAS ``gemm``
do nothing, and allocation hands out slices of one buffer, as CuPy's memory pool hands out
cached blocks. What is left is the host path a GPU run pays, minus the few microseconds of
the driver call itself and of CuPy's pool, which only a GPU can measure
(benchmarks/bench_cuda.py). No result is computed, so nothing is checked against NumPy here.

Run: ``python benchmarks/bench_cuda_host.py``. Prints microseconds per call (the best of 5
batches) and the launches it makes; the training steps are bench_cuda.py's eager one and
bench_compile.py's compiled one (``strided.compile`` of the loss module, fused SGD), whose
host time is the plan program's (Note [A compiled matmul's cuBLAS call] in
strided/_compile/program.py).

Measured (2-core AMD EPYC, loaded; the compiled step also as process time, best of 9 batches,
which the load disturbs less): the compiled MLP step 221-245 us before the plan's host path was
cut, then 95-98 us (wall 122 us) after its matmuls were planned cuBLAS calls, the views only
kernels read and the backward's eager reductions went, intermediates got the plan's own
buffers and the launches took pointer bytes (Notes in strided/_compile/program.py); then its
SGD update one kernel per parameter (Note [A fused SGD step on CUDA] in strided/cuda/_optim.py;
25 -> 21 launches, process time 94 -> 87 us, median of 5 alternated batches); the eager step
296-320 us. PyTorch's whole step on an H200 was 426 us. A split sum of 1e5 float32, its partials
combined by the launch's last block instead of a second launch: 4.59 -> 4.35 us, 2 -> 1
launches (1 thread, medians of 11 alternated rounds; on a GPU the launch left out is CuPy's
driver call too). An Adam step of the MLP's four float32 parameters, eager against
``fused=True`` (Note [A fused Adam step on CUDA] in strided/cuda/_optim.py): 110 -> 23 us of
process time, 52 -> 4 launches (AdamW with AMSGrad 125 -> 24 us, 60 -> 4; 1 thread, medians of
11 alternated rounds of 300 steps, spread under 5%).

The eager path's host work, before -> after each round of cuts (process time per call, 1
thread, the median of 5 alternated processes, each the median of 9 batches; 2-core AMD EPYC,
loaded). The first round took the 1-element add from 2.29 to 2.05 us, the matmul from 8.17
to 2.15 us and the step from 333 to 278 us. The second: take_along_axis's graph without its
same-shape expand and gather's backward adding into its fresh zeros in place (no copy of
them), a device's storages made by its backend in one Python frame (Note [A device's
allocator] in strided/_storage.pyx; this stub's ``storage`` is that frame, as on a GPU), the
engine's loop and the rows' formulas doing less per node (Note [The engine's loop, per node]
in strided/autograd/engine.py), and kept plans for the index launches, the softmax lines and
the fills (Notes [Kept plans of the index launches] in strided/cuda/_index.py, [Kept plans of
the softmax lines] in _softmax.py, [Kept plans of the fills] in _copy.py); range over the 5
processes in brackets:

| case | before | after |
|---|---|---|
| 1-element add | 1.86 us (1.82-1.89) | 1.74 us (1.71-2.68) |
| matmul 64x784 @ 784x256 | 2.64 us (2.61-2.70) | 2.47 us (2.41-2.49) |
| log_softmax over dim 1 of 64x10 (one run of main() each) | 8.0 us | 2.7 us |
| MLP 784-256-10 training step (eager) | 268 us (263-269) | 188 us (186-189) |

On a GPU the second round also drops, per allocation, the ``_on_device`` frame (23 a step),
per launch the ``_stream`` frame (19), and per cuBLAS call two reads of ``array.ctypes``
(1.2 us each here; 5 calls), which the stub does not run.

A solve of 64 systems of 16 x 16 (float32, 4 right-hand sides; bench_cuda.py's is 128 x 128),
its host path through strided/cuda/_solver.py with the cuBLAS calls counted: 71-72 us with 10
launches, cuBLAS calls and copies and 1 wait for the device (the check of getrf's infos,
between getrf and getrs) before; 54-56 us with 5 (the two copies, getrf, getrs, and one copy
of the infos into the device's check slots) and no wait after (Note [One wait for a solve] in
strided/_ops/linalg_solve.py; Note [A batched LU's arrays of addresses] in
strided/cuda/_solver.py; no memset of the infos). On a GPU the wait costs more than the
host's time: the host's Python for the rest of the op, and for the next one, no longer
overlaps the device's work (process time, 1 thread, medians of 5 batches of 1000 in 3
alternated processes of each; 2-core AMD EPYC, loaded).

The matmul keeps its cuBLAS calls per (dtypes, shapes, strides) of its operands (Note [Planned
cuBLAS calls in eager mode] in strided/cuda/_linalg.py); an elementwise launch's host steps are
one compiled function (Note [The host path of an elementwise launch] in
strided/cuda/_elementwise.py). What this stub cannot show: on a GPU, allocations and cuBLAS
calls no longer enter ``cupy.cuda.Device`` when their GPU is already current (Note [Switching
to a backend's device] in strided/cuda/_backend.py). The stub's allocator hands out slices of
one arena, so the deferred checks' slots share it: past ~2000 eager steps without a
synchronisation their (unwritten) flags read as errors; the runs here stay below that.
"""

from __future__ import annotations

import functools
import time

import numpy as np

import strided
from strided import _storage
from strided.cuda import _backend

DEVICE = "cuda-emulated"


def _stub_the_device():
    """Stub out the device work of the emulated backend: see the module docstring."""
    backend = _backend.backend_for(strided.device(DEVICE))
    launches = [0]

    def launch(*args, **kwargs):
        launches[0] += 1

    arena = np.zeros(64 << 20, np.uint8)
    base = arena.ctypes.data  # read once: ``arena.ctypes`` builds an object per access
    turn = [0]

    def allocate(nbytes):  # 60 rotating 1 MiB slices: tensors of an op do not share one
        if nbytes > 1 << 20:
            raise ValueError("bench_cuda_host: only small tensors here")
        turn[0] = (turn[0] + 1) % 60
        return base + (turn[0] << 20), arena

    wrap = _storage.Storage._wrap

    def storage(device, nbytes, zero):  # CupyBackend.storage's one frame, on the arena
        if nbytes > 1 << 20:
            raise ValueError("bench_cuda_host: only small tensors here")
        turn[0] = (turn[0] + 1) % 60
        ptr = base + (turn[0] << 20)
        if zero and nbytes:
            backend.memset(ptr, 0, nbytes)
        return wrap(ptr, nbytes, arena, device)

    backend.launch = launch
    backend.gemm = launch
    backend.allocate = allocate
    backend.storage = storage
    # the core calls the maker registered when the backend was made (Note [A device's
    # allocator] in strided/_storage.pyx): register the stub's instead
    _storage.set_device_storage_maker(DEVICE, functools.partial(storage, DEVICE))
    _ARENA[:] = [arena]
    return launches


def _best(fn, n):
    for _ in range(20):
        fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def mlp_step(x, y, w1, w2):
    """The training step of bench_cuda.py (a 784-256-10 MLP, softmax cross-entropy, SGD),
    also profiled by profile_cuda.py."""
    logits = strided.relu(x @ w1) @ w2
    logp = strided.log_softmax(logits, dim=1)
    picked = strided.take_along_axis(logp, strided.expand_dims(y, axis=1), axis=1)
    loss = -strided.mean(picked)
    loss.backward()
    with strided.no_grad():
        strided.subtract(w1, 0.01 * w1.grad, out=w1)
        strided.subtract(w2, 0.01 * w2.grad, out=w2)
    w1.grad = None
    w2.grad = None


def compiled_mlp_step(device, seed=0):
    """bench_compile.py's MLP training step (784-256-10 with biases, batch 64, the loss in an
    nn.Module so that ``strided.compile`` lifts the weights into its joint graph, SGD with
    ``fused=True``) on ``device``: a function running one step and returning the loss."""
    from bench_autograd import BATCH, LR, _init

    from strided import nn, optim
    from strided.nn import functional as F

    x_np, onehot_np, params_np = _init(seed)

    class Step(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1, self.b1, self.w2, self.b2 = (
                nn.Parameter(strided.tensor(p, device=device)) for p in params_np
            )

        def forward(self, x, onehot):
            h = strided.relu(x @ self.w1 + self.b1)
            logp = F.log_softmax(h @ self.w2 + self.b2, dim=1)
            return -(logp * onehot).sum() / BATCH

    module = Step()
    model = strided.compile(module)
    opt = optim.SGD(module.parameters(), lr=LR, fused=True)
    x, onehot = (strided.asarray(a, device=device) for a in (x_np, onehot_np))

    return lambda: fused_step(model, opt, x, onehot)


def fused_step(model, opt, x, onehot):
    """One step of a compiled loss module with a fused optimizer (bench_compile.py's too)."""
    loss = model(x, onehot)
    loss.backward()
    opt.step()  # Note [A fused optimizer step]: one call on the CPU, a kernel a parameter on CUDA
    opt.zero_grad()
    return loss


def adam_step(rng, fused):
    """An Adam step, ``fused`` or not, of the MLP's four float32 parameters (784x256, 256,
    256x10, 10) with gradients set once: the optimizer's host path alone (Note [A fused Adam
    step on CUDA] in strided/cuda/_optim.py)."""
    from strided import optim

    params = []
    for shape in [(784, 256), (256,), (256, 10), (10,)]:
        p = strided.asarray(rng.standard_normal(shape, dtype=np.float32), device=DEVICE)
        p.requires_grad_()
        p.grad = strided.asarray(rng.standard_normal(shape, dtype=np.float32), device=DEVICE)
        params.append(p)
    return optim.Adam(params, lr=1e-3, fused=fused).step


def split_sum_launches(launches, rounds=11, n=5000):
    """A split sum's host time with its partials combined by the launch's last block, and by a
    second launch as before (Note [The last block combines the partials] in kernels/reduce.cu):
    alternated rounds, each after its plans are made again (the choice is made with the plan),
    median and spread in microseconds, and the launches per call."""
    import statistics

    from strided.cuda import _reduce

    rng = np.random.default_rng(4)
    x = strided.asarray(rng.standard_normal(100_000, dtype=np.float32), device=DEVICE)
    m = strided.asarray(rng.standard_normal((1500, 7), dtype=np.float32), device=DEVICE)
    cases = [
        ("sum of 1e5 (49 chunks, a tree)", lambda: strided.sum(x)),
        ("sum over dim 0 of 1500x7 (12 chunks, a chain)", lambda: strided.sum(m, axis=0)),
    ]
    print("\n| split sum | partials combined by | host time per call | spread | launches |")
    print("|---|---|---|---|---|")
    try:
        for name, fn in cases:
            times, count = {True: [], False: []}, {}
            for r in range(rounds):
                for last in (True, False) if r % 2 else (False, True):
                    _reduce.LAST_BLOCK_FINISHES = last
                    _reduce._PLANS.clear()
                    fn()
                    launches[0] = 0
                    fn()
                    count[last] = launches[0]
                    t0 = time.perf_counter()
                    for _ in range(n):
                        fn()
                    times[last].append((time.perf_counter() - t0) / n * 1e6)
            for last, how in ((False, "a second launch"), (True, "the last block")):
                v = times[last]
                print(
                    f"| {name} | {how} | {statistics.median(v):.2f} us | "
                    f"{min(v):.2f}-{max(v):.2f} | {count[last]} |"
                )
    finally:
        _reduce.LAST_BLOCK_FINISHES = True
        _reduce._PLANS.clear()


def batched_solve(launches, on):
    """bench_cuda.py's solve of a batch of small systems, its host path as on a GPU: the
    LAPACK call goes to strided/cuda/_solver.py (cuBLAS's batched LU) against a stand-in CuPy
    and cuBLAS whose kernels (the arrays of addresses, getrfBatched, getrsBatched, a memset)
    only count; the device copies count as launches too, and the arena is zeroed so that the
    stubbed check of the infos finds no singular matrix. 64 systems of 16 x 16 with 4
    right-hand sides: bench_cuda.py's 128 x 128 do not fit the stub's slices, and the host
    path does not depend on n. Returns the case and what it counts: launches, and the host's
    reads of the device (waits). The stub's allocator rotates through its slices, so the
    arrays of addresses kept by _solver (Note [A batched LU's arrays of addresses]) are found
    again only by getrs; CuPy's pool hands a loop of solves the same blocks each time."""
    import contextlib
    import sys
    import types

    from strided._cpu import lapack
    from strided.cuda import _solver

    counted = lambda *args, **kwargs: launches.__setitem__(0, launches[0] + 1)  # noqa: E731
    cublas = types.ModuleType("cupy_backends.cuda.libs.cublas")
    cublas.CUBLAS_OP_N, cublas.CUBLAS_OP_T, cublas.CUBLAS_OP_C = 0, 1, 2
    cublas.CUBLAS_FILL_MODE_LOWER, cublas.CUBLAS_FILL_MODE_UPPER = 0, 1
    cublas.setStream = lambda handle, stream: None
    cublas.sgetrfBatched = cublas.sgetrsBatched = counted
    libs = types.ModuleType("cupy_backends.cuda.libs")
    libs.cublas = cublas
    libs.cusolver = types.ModuleType("cupy_backends.cuda.libs.cusolver")
    for name in ("cupy_backends", "cupy_backends.cuda"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["cupy_backends.cuda.libs"] = libs
    sys.modules["cupy_backends.cuda.libs.cublas"] = cublas
    sys.modules["cupy_backends.cuda.libs.cusolver"] = libs.cusolver
    address_array = types.SimpleNamespace(data=types.SimpleNamespace(ptr=0))

    def arange(*args, **kwargs):
        counted()
        return address_array

    device = types.SimpleNamespace(get_cublas_handle=lambda: "handle")
    cupy = types.SimpleNamespace(
        arange=arange, uintp=np.uintp,
        cuda=types.SimpleNamespace(Device=lambda i: contextlib.nullcontext(), device=device),
    )  # fmt: skip
    gpu = types.SimpleNamespace(
        cupy=cupy, index=0, _stream=lambda: 0, memset=counted,
        _on_device=contextlib.nullcontext,
    )  # fmt: skip
    lapack.run_batch = lambda routine, *args: _solver.batch(gpu, routine, *args)
    backend = _backend.backend_for(strided.device(DEVICE))
    backend.copy_device = counted
    reads = [0]
    read_back = backend.copy_to_host

    def copy_to_host(*args):
        reads[0] += 1
        read_back(*args)

    backend.copy_to_host = copy_to_host
    rng = np.random.default_rng(5)
    a = on(rng.standard_normal((64, 16, 16), dtype=np.float32))
    b = on(rng.standard_normal((64, 16, 4), dtype=np.float32))
    # the checks the cases before left pending were never written by their stubbed kernels:
    # drop them unread, then zero the arena, so that the solve's own read as "nothing found"
    with contextlib.suppress(Exception):
        backend.checks.flush()
    _ARENA[0][:] = 0
    return (lambda: strided.linalg.solve(a, b)), reads


_ARENA = []


def main():
    launches = _stub_the_device()
    rng = np.random.default_rng(3)
    on = lambda a: strided.asarray(a, device=DEVICE)  # noqa: E731
    a = on(np.ones(1, np.float32))
    h = on(rng.standard_normal((64, 10), dtype=np.float32))
    x = on(rng.standard_normal((64, 784), dtype=np.float32))
    y = on(rng.integers(0, 10, 64))
    w1 = on((rng.standard_normal((784, 256)) * 0.05).astype(np.float32)).requires_grad_()
    w2 = on((rng.standard_normal((256, 10)) * 0.05).astype(np.float32)).requires_grad_()

    def step():
        mlp_step(x, y, w1, w2)

    cases = [
        ("1-element add", lambda: a + a, 20000),
        ("relu of 64x10", lambda: strided.relu(h), 20000),
        ("sum over dim 1 of 64x10", lambda: strided.sum(h, axis=1), 20000),
        ("log_softmax over dim 1 of 64x10", lambda: strided.log_softmax(h, dim=1), 5000),
        ("matmul 64x784 @ 784x256", lambda: x @ w1.detach(), 5000),
        ("MLP 784-256-10 training step", step, 200),
        ("MLP step compiled (bench_compile's, fused SGD)", compiled_mlp_step(DEVICE), 200),
        ("Adam step of the MLP's 4 parameters, eager", adam_step(rng, False), 1000),
        ("Adam step of the MLP's 4 parameters, fused=True", adam_step(rng, True), 1000),
    ]
    print("| case | host time per call | launches per call |")
    print("|---|---|---|")
    for name, fn, n in cases:
        t = _best(fn, n)
        launches[0] = 0
        fn()
        print(f"| {name} | {t * 1e6:.1f} us | {launches[0]} |")
    split_sum_launches(launches)
    solve, reads = batched_solve(launches, on)  # last: it stubs the LAPACK calls for good
    t = _best(solve, 2000)
    launches[0] = reads[0] = 0
    solve()
    print(
        f"\n| solve 64 systems of 16x16 f32, 4 right-hand sides | {t * 1e6:.1f} us | "
        f"{launches[0]} launches and cuBLAS calls, {reads[0]} waits |"
    )


if __name__ == "__main__":
    main()
