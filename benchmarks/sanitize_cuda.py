"""Every CUDA kernel family, launched a few times on small inputs: a short program for
``compute-sanitizer`` to watch.

Under compute-sanitizer a program runs 10-100 times slower, and the CUDA test suite's thousands
of cases then need far more than a GPU session's minutes: on an H200 the memcheck subset of the
tests covered a fifth of itself in two minutes, and pytest-xdist's workers under the sanitizer
did not even start in 85 seconds. This program is what the sanitizers run instead: one process,
each kernel file of strided/cuda/kernels/ (elementwise, copy, reduce, scan, sort, index, random,
softmax, matmul through cuBLAS, the half-precision kernels, the compiler's fused kernels, the
optimizers' fused steps, cuSOLVER's and cuFFT's calls) launched on every layout (contiguous,
transposed, stepped, negative-stride, expanded, 0-d, empty) with float32 and the dtypes whose
kernels differ (int64, bool, complex128), each result compared with the CPU's, so that a kernel
that reads or writes out of bounds, or races in shared memory, is caught by the sanitizer and
a wrong answer by the comparison.

Run: ``compute-sanitizer --tool memcheck python benchmarks/sanitize_cuda.py`` (or ``--device
cuda-emulated`` without a GPU, where the emulator's own guards watch the memory). It prints one
line per family and ``N passed, N failed`` at the end; the exit status is 1 if any failed.
"""

from __future__ import annotations

import argparse
import sys
import traceback

import numpy as np

import strided


def _layouts(base):
    """(name, CPU tensor) for each layout of the 2-D array ``base`` (at least 4x6)."""
    t = strided.asarray(base)
    yield "contiguous", t
    yield "transposed", strided.asarray(np.ascontiguousarray(base.T)).T
    yield "stepped", t[::2, ::3]
    yield "negative-stride", t[::-1, ::-1]
    yield "expanded", strided.broadcast_to(t[:1], t.shape)
    yield "0-d", strided.asarray(base[0, 0])
    yield "empty", t[:0]


def _on(device, t):
    """``t`` on ``device`` keeping its strides: the same view of a copy of its storage."""
    from strided import _core
    from strided.cuda import _backend

    storage = _core.Storage._new(t.untyped_storage().nbytes, device)
    _backend.backend_for(storage.device).copy_from_host(
        storage.data_ptr(), t.untyped_storage().data_ptr(), storage.nbytes
    )
    return _core._from_parts(storage, t.storage_offset(), t.shape, t.stride(), t.dtype)


def _same(got, want, where, tol=None):
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want, strict=True):
            _same(g, w, where, tol)
        return
    g, w = np.asarray(got.cpu()), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, f"{where}: {g.shape} {g.dtype} {w.shape}"
    if w.dtype.kind in "fc":
        tol = tol or (1e-4 if w.dtype in (np.float32, np.complex64) else 1e-10)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


def _families(rng):
    """name -> (dtypes, fn of one tensor): each fn launches one kernel family."""
    idx = strided.asarray(rng.integers(0, 4, 9))

    def dims(t):
        return range(t.ndim) if t.ndim else (None,)

    def reductions(t):
        out = [strided.sum(t), strided.max(t) if t.numel() else strided.sum(t)]
        for d in dims(t):
            if d is not None:
                out += [strided.sum(t, axis=d), strided.argmax(t, axis=d) if t.shape[d] else t]
        return out

    def long_reductions(t):  # the split path: partials combined by the launch's last block
        v = strided.concatenate([t.reshape(-1)] * 400)  # (kernels/reduce.cu's last_to_finish)
        out = [strided.sum(v), strided.argmax(v) if v.numel() else v]  # a tree of partials
        if v.numel() >= 1024 * 8:
            half = v[: v.numel() // 2 * 2].reshape(2, -1)
            out += [
                strided.sum(half, axis=1),  # block kernel, a chain per output
                strided.max(v[: 1024 * 8].reshape(1024, 8), axis=0),  # thread kernel, a chain
                strided.sum(v.reshape(-1, 4)[:3000], axis=0),  # thread kernel, a second launch
            ]
        return out

    def sorts(t):
        out = [strided.unique(t.reshape(-1))]
        for d in dims(t):
            if d is not None:
                out += [strided.sort(t, axis=d, descending=True), strided.argsort(t, axis=d)]
                if t.dtype.kind != "c":
                    out += list(strided.topk(t, min(3, t.shape[d]), dim=d))
        return out

    def copies(t):
        out = [t.contiguous(), t.astype("float64"), t.T.copy()]
        if t.numel():  # the tiled transpose (Note [The transposing copy through a shared tile]):
            # edge tiles, a batch, a reversed batch, offsets and steps outside the unit dims
            m = strided.concatenate([t.reshape(-1)] * (1 + 3 * 45 * 70 // t.numel()))
            m = m[: 3 * 45 * 70].reshape(3, 45, 70)
            out += [m.mT.contiguous(), m[::-1, 1:40:2, 3:].mT.contiguous(), m[1].T.copy()]
        return out

    def transposed_binaries(t):  # through a shared tile (Note [A binary op with a transposed
        # input through a shared tile]): edge tiles, either input transposed, a scalar partner
        if not t.numel():
            return [t + t]
        m = strided.concatenate([t.reshape(-1)] * (1 + 2 * 40 * 50 // t.numel()))
        a, b = m[: 40 * 50].reshape(40, 50), m[40 * 50 : 2 * 40 * 50].reshape(50, 40)
        out = strided.zeros(a.shape, dtype=a.dtype, device=a.device)
        strided.multiply(b.T, a, out=out)  # the loop in out's layout: the first input tiled
        return [a + b.T, b[::-1].T * a, strided.multiply(b.T, 2, out=out * 0), out]

    def gathers(t):
        if t.ndim < 2 or t.shape[0] == 0:
            return [t + 0]
        i = idx % t.shape[0]
        wide = strided.concatenate([t, t], axis=1)  # rows of 16-byte vectors for float32
        # whole rows (Note [Gathering whole rows]): negative indices, a 2-D index
        rows = [t[-1 - i], wide[i], wide[i[:8].reshape(2, 4)]]
        return [t[i], strided.index_select(t, 0, i), strided.take(t, i), *rows]

    def scatters(t):
        if t.ndim < 2 or t.shape[0] == 0:
            return [t + 0]
        base = strided.zeros(t.shape, dtype=t.dtype, device=t.device)
        i = idx % t.shape[0]
        src = strided.ones((len(i), t.shape[1]), dtype=t.dtype, device=t.device)
        return [strided.index_add(base, 0, i, src), strided.masked_fill(t, t > 0, 0)]

    def softmaxes(t):
        if t.ndim < 2:
            return [t + 0]
        x = t.detach().requires_grad_()
        y = strided.log_softmax(x, dim=1)
        y.sum().backward()
        out = [y.detach(), x.grad, strided.softmax(t, dim=0)]
        if t.numel():  # lines of a block: kept in registers (2400 a line, also along dim 0) or
            # read again (9600 a line), Note [A softmax line read once]
            long = strided.concatenate([t.reshape(-1)] * 200).reshape(8, -1)
            lx = long.detach().requires_grad_()
            strided.log_softmax(lx, dim=1).sum().backward()  # the backward's kept lines
            out += [
                strided.softmax(long, dim=1),
                strided.log_softmax(long.T, dim=0),
                strided.softmax(long.reshape(2, -1), dim=1),
                lx.grad,
            ]
        return out

    def halves(t):  # float16 and bfloat16 kernels, compared as float32 (a half sum may round once
        out = []  # more or less on the GPU than the CPU's widened sum: the family's tolerance)
        for dtype in ("float16", "bfloat16"):
            h = t.astype(dtype)
            r = [h * h + h, strided.exp(h), h.T.copy(), strided.sum(h, axis=-1) if t.ndim else h]
            if t.ndim == 2:
                r += [h @ h.T, strided.amax(h, axis=0) if t.shape[0] else h]
                # cuBLAS's GemmStridedBatchedEx on a batch of transposed views
                r += [strided.matmul(strided.stack([h.T, h.T]), h[None])]
            # the one-pass half reductions (kernels/reduce.cu's red_half): into the half type
            # and into float32, argmax, and a long one through the partials
            long = strided.concatenate([h.reshape(-1)] * 400)
            r += [strided.mean(h), strided.sum(h, dtype="float32"), strided.sum(long)]
            if h.numel():
                r += [strided.argmax(h).astype("float32"), strided.max(long)]
            out += [v.astype("float32") for v in r]
        return out

    fused = strided.compile(lambda x: ((x * 0.5).tanh() * x).sum(axis=-1) + 1)
    fused_rows = strided.compile(lambda x: strided.softmax(x * 2, dim=-1))

    def compiled(t):  # the compiler's generated kernels: a chain and its reduction
        return [fused(t), fused_rows(t)] if t.ndim else [t + 0]

    def optimizers(t):  # the fused steps (kernels/optim.cu): a launch per parameter, two steps
        out = []
        for cls, kw in [
            (strided.optim.SGD, dict(momentum=0.9, nesterov=True, weight_decay=0.01)),
            (strided.optim.Adam, dict(amsgrad=True, weight_decay=0.01)),
            (strided.optim.AdamW, dict(maximize=True)),
        ]:
            p = (t + 0).requires_grad_()  # a contiguous parameter of t's values
            opt = cls([p], lr=0.1, fused=True, **kw)
            for _ in range(2):
                p.grad = (p.detach() * 3).cos()
                opt.step()
            out += [
                p.detach(),
                *(v for v in opt.state[p].values() if isinstance(v, strided.Tensor)),
            ]
        return out

    def linalg(t):  # cuSOLVER (getrf/getrs, potrf, syevd, geqrf/orgqr), cuBLAS's batched LU
        if t.ndim != 2:
            return [t + 0]
        n = t.shape[0]
        a = t @ t.T + n * strided.eye(n, dtype=t.dtype, device=t.device)  # SPD
        q, r = strided.linalg.qr(t)
        batch = strided.stack([a, 2 * a])  # more than one matrix: cuBLAS's batched LU
        return [
            strided.linalg.solve(a, t),
            strided.linalg.cholesky(a.T),
            strided.linalg.eigvalsh(a),
            strided.linalg.det(a),
            q @ r,
            strided.linalg.solve(batch, strided.stack([t, t])),
            strided.linalg.inv(batch),
            strided.linalg.det(batch),
        ]

    def ffts(t):  # cuFFT's plans: complex-to-complex, real-to-complex and back
        if t.ndim != 2 or 0 in t.shape:  # an FFT of no points is an error, as in NumPy
            return [t + 0]
        if t.dtype.kind == "c":
            return [strided.fft.fft(t, axis=-1), strided.fft.ifft2(t)]
        return [strided.fft.rfft(t, axis=-1), strided.fft.irfft(strided.fft.rfft(t), n=t.shape[-1])]

    return {
        "elementwise": (
            "fbc",
            lambda t: [
                t + t,
                strided.exp(t) if t.dtype.kind != "b" else t,
                strided.where(t == t, t, t),
            ],
        ),  # fmt: skip
        "copy and cast": ("fbc", copies),
        "transposed binary ops": ("fbc", transposed_binaries),
        "reductions": ("fi", reductions),
        "long reductions": ("f", long_reductions),
        "long sorts (merge passes)": (
            "c",
            lambda t: [strided.sort(strided.concatenate([t.reshape(-1)] * 400))],
        ),
        "scans": ("fi", lambda t: [strided.cumsum(t, axis=d) for d in dims(t)]),
        "sort and unique": ("fic", sorts),
        "nonzero": ("fb", lambda t: [strided.nonzero(t)] if t.ndim else [t + 0]),
        "gathers": ("fi", gathers),
        "scatters": ("fi", scatters),
        "softmax": ("f", softmaxes),
        "matmul": ("f", lambda t: [t @ t.T] if t.ndim == 2 else [t * 2]),
        "float16 and bfloat16": ("f", halves, 2e-2),
        "compiled (fused kernels)": ("f", compiled),
        "fused optimizer steps": ("f", optimizers),
        "linalg (cuSOLVER)": ("f", linalg, 1e-3),
        "fft (cuFFT)": ("fc", ffts),
    }


def _values(kind, rng):
    if kind == "b":
        return rng.random((8, 12)) < 0.5
    if kind == "i":
        return rng.integers(-50, 50, (8, 12))
    if kind == "c":
        return (rng.standard_normal((8, 12)) + 1j * rng.standard_normal((8, 12))).astype(
            np.complex128
        )
    return rng.standard_normal((8, 12)).astype(np.float32)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    passed = failed = 0
    for family, (kinds, fn, *tol) in _families(rng).items():
        ok = True
        for kind in kinds:
            for layout, t in _layouts(_values(kind, rng)):
                where = f"{family} {t.dtype.name} {layout} on {args.device}"
                try:
                    _same(fn(_on(args.device, t)), fn(t), where, *tol)
                except Exception:
                    ok = False
                    print(f"FAILED {where}\n{traceback.format_exc(limit=3)}")
        passed, failed = passed + ok, failed + (not ok)
        print(f"{family}: {'ok' if ok else 'FAILED'}")
    # random draws: the Philox kernels (the values are checked by the tests, not here)
    strided.random.manual_seed(1)
    strided.random.rand(1000, device=args.device).cpu()
    strided.random.randn(3, 333, dtype="float32", device=args.device).cpu()
    strided.cuda.synchronize() if args.device == "cuda" else None
    print("random: ok")
    passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
