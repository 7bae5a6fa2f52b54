"""GPU benchmarks of the CUDA backend, against CuPy and PyTorch CUDA in the same process.

Run on a machine with a GPU: ``python benchmarks/bench_cuda.py``. Times are from CUDA events
around batches of calls (each batch synchronised), medians of 7 batches; every case first
checks that strided, CuPy and PyTorch agree on the answer. Bandwidth counts bytes read plus
bytes written, and is compared with a device-to-device copy (CuPy's ``copy()``), the practical
peak of the memory system.

Targets (issue 6): elementwise add/exp on 1e8 float32 at >= 85% of copy bandwidth; a 1-element
op's launch overhead reported next to CuPy's and PyTorch's.
"""

from __future__ import annotations

import os
import statistics
import sys

import numpy as np
from bench_cuda_host import (  # the training steps, written once (benchmarks/ on the path)
    compiled_mlp_step,
    mlp_step,
)

import strided


def _timer(cp):
    def timeit(fn, reps=None):
        fn()
        cp.cuda.runtime.deviceSynchronize()
        if reps is None:  # batches of ~20 ms
            reps = 1
            while True:
                s, e = cp.cuda.Event(), cp.cuda.Event()
                s.record()
                for _ in range(reps):
                    fn()
                e.record()
                e.synchronize()
                if cp.cuda.get_elapsed_time(s, e) > 20 or reps >= 1 << 14:
                    break
                reps *= 2
        samples = []
        for _ in range(7):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            for _ in range(reps):
                fn()
            e.record()
            e.synchronize()
            samples.append(cp.cuda.get_elapsed_time(s, e) / 1e3 / reps)
        return statistics.median(samples)

    return timeit


def _mlp_step(cp, torch, timeit, rows, dev):
    """One training step of a 784-256-10 MLP, batch 64, float32 (forward, backward through
    strided.autograd, SGD under no_grad), against the same step in PyTorch CUDA."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 784), dtype=np.float32)
    y = rng.integers(0, 10, 64)
    w1 = (rng.standard_normal((784, 256)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((256, 10)) * 0.05).astype(np.float32)
    sx, sy = strided.asarray(x, device=dev), strided.asarray(y, device=dev)
    sw1 = strided.asarray(w1, device=dev).requires_grad_()
    sw2 = strided.asarray(w2, device=dev).requires_grad_()

    def s_step():
        mlp_step(sx, sy, sw1, sw2)

    t_step = None
    if torch is not None:
        tx, ty = torch.as_tensor(x, device="cuda"), torch.as_tensor(y, device="cuda")
        tw1 = torch.as_tensor(w1, device="cuda").requires_grad_()
        tw2 = torch.as_tensor(w2, device="cuda").requires_grad_()

        def t_step():
            loss = torch.nn.functional.cross_entropy(torch.relu(tx @ tw1) @ tw2, ty)
            loss.backward()
            with torch.no_grad():
                tw1.sub_(0.01 * tw1.grad)
                tw2.sub_(0.01 * tw2.grad)
            tw1.grad = None
            tw2.grad = None

    ts = timeit(s_step)
    tt = timeit(t_step) if t_step is not None else None
    rows.append(("MLP 784-256-10 step, batch 64", ts, float("nan"), tt, None))
    _compiled_mlp_step(torch, timeit, rows, dev)


def _compiled_mlp_step(torch, timeit, rows, dev):
    """bench_compile.py's MLP step compiled (compiled_mlp_step in bench_cuda_host.py) against
    the same step in PyTorch CUDA, eager and under torch.compile (when it runs here and
    BENCH_TORCH_COMPILE is not 0); the CuPy column is empty. Its losses are checked against
    eager strided's first."""
    from bench_autograd import BATCH, LR, _init

    s_step = compiled_mlp_step(dev)
    want = compiled_mlp_step("cpu")  # the CPU plan: the same step's losses
    for _ in range(2):
        np.testing.assert_allclose(float(s_step()), float(want()), rtol=1e-4)
    ts = timeit(s_step)
    times = {}
    if torch is not None:
        x_np, onehot_np, params_np = _init(0)
        ps = [torch.nn.Parameter(torch.as_tensor(p, device="cuda")) for p in params_np]
        x, onehot = (torch.as_tensor(a, device="cuda") for a in (x_np, onehot_np))

        def loss_fn(x, onehot):
            w1, b1, w2, b2 = ps
            logp = torch.log_softmax(torch.relu(x @ w1 + b1) @ w2 + b2, dim=1)
            return -(logp * onehot).sum() / BATCH

        opt = torch.optim.SGD(ps, lr=LR, fused=True)
        pairs = [("eager", loss_fn)]
        if os.environ.get("BENCH_TORCH_COMPILE", "1") != "0":  # its compile takes ~20 s
            pairs.append(("torch.compile", torch.compile(loss_fn)))
        for label, fn in pairs:

            def t_step(fn=fn):
                fn(x, onehot).backward()
                opt.step()
                opt.zero_grad()

            try:
                times[label] = timeit(t_step)
            except Exception as e:  # noqa: BLE001 - torch.compile may lack its compiler here
                print(f"MLP step, torch {label}: not run ({type(e).__name__}: {e})"[:200])
    for label in ("eager", "torch.compile"):
        name = f"MLP 784-256-10 step compiled (fused SGD) vs torch {label}"
        rows.append((name, ts, float("nan"), times.get(label), None))


def _later_rows(cp, torch, timeit, rows, dev):
    """The rows added after the first GPU runs (issue 23): half precision (cuBLAS GemmEx and the
    half elementwise and reduction kernels), linalg through cuSOLVER, fft through cuFFT, and the
    compiler's fused softmax. Each checks its answer loosely against PyTorch (or CuPy) first; a
    case that fails prints why and the others go on."""
    rng = np.random.default_rng(5)

    def case(name, s_fn, c_fn, t_fn, ref=None, tol=1e-2, nbytes=None):
        try:
            if ref is not None:
                got = np.asarray(s_fn().cpu(), dtype=np.complex128)
                want = np.asarray(ref(), dtype=np.complex128)
                scale = max(float(np.abs(want).max()), 1.0)
                assert np.abs(got - want).max() <= tol * scale, (
                    f"{name}: differs from the reference"
                )
            ts = timeit(s_fn)
            tc = timeit(c_fn) if c_fn is not None else float("nan")
            tt = timeit(t_fn) if t_fn is not None else None
            rows.append((name, ts, tc, tt, nbytes / ts if nbytes else None))
        except Exception as e:  # noqa: BLE001 - a benchmark row, not a test: report and go on
            print(f"{name}: FAILED {type(e).__name__}: {e}")

    n = 10**8
    h = rng.standard_normal(n, dtype=np.float32)
    for dt, cdt in (("float16", "float16"), ("bfloat16", None)):
        sh = strided.asarray(h, device=dev).astype(dt)
        ch = cp.asarray(h).astype(cdt) if cdt else None
        th = torch.as_tensor(h, device="cuda").to(getattr(torch, dt)) if torch else None
        tf = (lambda th=th: th.float()) if torch else None
        case(
            f"add 1e8 {dt}",
            lambda sh=sh: sh + sh,
            (lambda ch=ch: ch + ch) if ch is not None else None,
            (lambda th=th: th + th) if torch else None,
            ref=(lambda th=th: (th + th).float().cpu().numpy()) if torch else None,
            nbytes=6 * n,
        )
        case(
            f"sum 1e8 {dt}",
            lambda sh=sh: strided.sum(sh).astype("float32"),
            (lambda ch=ch: ch.sum()) if ch is not None else None,
            (lambda th=th: th.sum()) if torch else None,
            ref=(lambda tf=tf: tf().sum().cpu().numpy()) if torch else None,
            tol=2e-2,
            nbytes=2 * n,
        )
        k = 4096
        sk = sh[: k * k].reshape(k, k)
        ck = ch[: k * k].reshape(k, k) if ch is not None else None
        tk = th[: k * k].reshape(k, k) if torch else None
        case(
            f"matmul 4096 {dt}",  # cuBLAS's GemmStridedBatchedEx, float32 sums
            lambda sk=sk: sk @ sk,
            (lambda ck=ck: ck @ ck) if ck is not None else None,
            (lambda tk=tk: tk @ tk) if torch else None,
            ref=(lambda tk=tk: (tk @ tk).float().cpu().numpy()) if torch else None,
            tol=2e-2,
        )
    # linalg: a batch of small matrices in one call of cuBLAS's batched LU, as CuPy's solve;
    # one cuSOLVER call per matrix otherwise (Note [cuSOLVER for a batch of LAPACK calls])
    a = rng.standard_normal((64, 128, 128)).astype(np.float32) + 128 * np.eye(128, dtype=np.float32)
    b = rng.standard_normal((64, 128, 4)).astype(np.float32)
    sa_, sb_ = strided.asarray(a, device=dev), strided.asarray(b, device=dev)
    ca_, cb_ = cp.asarray(a), cp.asarray(b)
    ta_ = torch.as_tensor(a, device="cuda") if torch else None
    tb_ = torch.as_tensor(b, device="cuda") if torch else None
    case(
        "solve 64 systems of 128x128 f32",
        lambda: strided.linalg.solve(sa_, sb_),
        lambda: cp.linalg.solve(ca_, cb_),
        (lambda: torch.linalg.solve(ta_, tb_)) if torch else None,
        ref=lambda: np.linalg.solve(a, b),
        tol=1e-4,
    )
    spd = rng.standard_normal((2048, 2048)).astype(np.float32)
    spd = spd @ spd.T + 2048 * np.eye(2048, dtype=np.float32)
    s_spd, c_spd = strided.asarray(spd, device=dev), cp.asarray(spd)
    t_spd = torch.as_tensor(spd, device="cuda") if torch else None
    case(
        "cholesky 2048 f32",
        lambda: strided.linalg.cholesky(s_spd),
        lambda: cp.linalg.cholesky(c_spd),
        (lambda: torch.linalg.cholesky(t_spd)) if torch else None,
        ref=lambda: np.linalg.cholesky(spd.astype(np.float64)),
        tol=1e-4,
    )
    case(
        "eigh 512 f32",
        lambda: strided.linalg.eigvalsh(s_spd[:512, :512]),
        lambda: cp.linalg.eigvalsh(c_spd[:512, :512]),
        (lambda: torch.linalg.eigvalsh(t_spd[:512, :512])) if torch else None,
        ref=lambda: np.linalg.eigvalsh(spd[:512, :512].astype(np.float64)),
        tol=1e-4,
    )
    z = (rng.standard_normal(2**24) + 1j * rng.standard_normal(2**24)).astype(np.complex64)
    sz, cz = strided.asarray(z, device=dev), cp.asarray(z)
    tz = torch.as_tensor(z, device="cuda") if torch else None
    case(
        "fft 2^24 complex64 (cuFFT)",
        lambda: strided.fft.fft(sz),
        lambda: cp.fft.fft(cz),
        (lambda: torch.fft.fft(tz)) if torch else None,
        ref=lambda: cp.asnumpy(cp.fft.fft(cz)),
        tol=1e-5,
        nbytes=16 * 2**24,
    )
    x = rng.standard_normal((8192, 8192), dtype=np.float32)
    sx = strided.asarray(x, device=dev)
    tx = torch.as_tensor(x, device="cuda") if torch else None
    fused = strided.compile(lambda v: strided.softmax(v * 2, dim=1))
    case(
        "softmax(2x) rows 8192x8192, eager",
        lambda: strided.softmax(sx * 2, dim=1),
        None,
        (lambda: torch.softmax(tx * 2, dim=1)) if torch else None,
        ref=(lambda: torch.softmax(tx * 2, dim=1).cpu().numpy()) if torch else None,
        tol=1e-5,
        nbytes=8 * 8192 * 8192,
    )
    case(
        "softmax(2x) rows 8192x8192, strided.compile",
        lambda: fused(sx),
        None,
        (lambda: torch.softmax(tx * 2, dim=1)) if torch else None,
        ref=(lambda: torch.softmax(tx * 2, dim=1).cpu().numpy()) if torch else None,
        tol=1e-5,
        nbytes=8 * 8192 * 8192,
    )


class _Rows(list):
    """The table's rows, each also printed as it is measured: a run that its time limit stops
    still shows the rows it reached (the table is printed at the end)."""

    def append(self, row):
        super().append(row)
        name, ts, tc, tt = row[:4]
        us = [f"{t * 1e6:.1f}" if t is not None and t == t else "-" for t in (ts, tc, tt)]
        print(f"  {name}: strided {us[0]} us, CuPy {us[1]}, PyTorch {us[2]}", flush=True)


def main():
    import cupy as cp

    try:
        import torch
    except ImportError:
        torch = None
    timeit = _timer(cp)
    dev = "cuda"
    print(
        f"GPU: {strided.cuda.get_device_name()}; strided {strided.__version__}, cupy "
        f"{cp.__version__}, torch {torch.__version__ if torch else '-'}"
    )
    n = 10**8
    a_np = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
    b_np = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    ca, cb = cp.asarray(a_np), cp.asarray(b_np)
    sa, sb = strided.asarray(a_np, device=dev), strided.asarray(b_np, device=dev)
    ta = tb = None
    if torch is not None:
        ta, tb = torch.as_tensor(a_np, device="cuda"), torch.as_tensor(b_np, device="cuda")
    dst = cp.empty_like(ca)
    copy_t = timeit(
        lambda: cp.cuda.runtime.memcpyAsync(
            dst.data.ptr,
            ca.data.ptr,
            4 * n,
            cp.cuda.runtime.memcpyDeviceToDevice,
            cp.cuda.get_current_stream().ptr,
        )
    )
    copy_bw = 2 * 4 * n / copy_t
    print(
        f"device copy of 1e8 float32: {copy_t * 1e3:.3f} ms = {copy_bw / 1e9:.0f} GB/s "
        "(read + write)\n"
    )
    rows = _Rows()

    def case(name, nbytes, s_fn, c_fn, t_fn, check=True):
        if check:
            got = np.asarray(s_fn().cpu()) if nbytes > 0 else None
            if got is not None:
                np.testing.assert_allclose(
                    got, cp.asnumpy(c_fn()), rtol=2e-6, atol=1e-6, err_msg=name
                )
        ts = timeit(s_fn)
        tc = timeit(c_fn)
        tt = timeit(t_fn) if t_fn is not None else None
        bw = nbytes / ts if nbytes else None
        rows.append((name, ts, tc, tt, bw))

    out_s = strided.empty(n, dtype="float32", device=dev)
    out_c = cp.empty(n, dtype=cp.float32)
    out_t = torch.empty(n, device="cuda") if torch is not None else None
    case(
        "add 1e8 f32 (out=)",
        12 * n,
        lambda: strided.add(sa, sb, out=out_s),
        lambda: cp.add(ca, cb, out=out_c),
        (lambda: torch.add(ta, tb, out=out_t)) if torch is not None else None,
    )
    case(
        "add 1e8 f32 (new)",
        12 * n,
        lambda: sa + sb,
        lambda: ca + cb,
        (lambda: ta + tb) if torch is not None else None,
    )
    case(
        "exp 1e8 f32 (out=)",
        8 * n,
        lambda: strided.exp(sa, out=out_s),
        lambda: cp.exp(ca, out=out_c),
        (lambda: torch.exp(ta, out=out_t)) if torch is not None else None,
    )
    m = 10**4
    sm, cm = sa.reshape(m, m), ca.reshape(m, m)
    tm = ta.reshape(m, m) if torch is not None else None
    row_s, row_c = sm[0], cm[0]
    row_t = tm[0] if torch is not None else None
    case(
        "add broadcast row 1e4x1e4",
        8 * n,
        lambda: sm + row_s,
        lambda: cm + row_c,
        (lambda: tm + row_t) if torch is not None else None,
    )
    case(
        "add transposed 1e4x1e4",
        12 * n,
        lambda: sm.T + sm,
        lambda: cm.T + cm,
        (lambda: tm.T + tm) if torch is not None else None,
    )
    case(
        "T.contiguous() 1e4x1e4",
        8 * n,
        lambda: sm.T.contiguous(),
        lambda: cp.ascontiguousarray(cm.T),
        (lambda: tm.T.contiguous()) if torch is not None else None,
    )
    one_s = strided.ones(1, device=dev)
    one_c = cp.ones(1, dtype=cp.float32)
    one_t = torch.ones(1, device="cuda") if torch is not None else None
    case(
        "add of 1 element (launch overhead)",
        0,
        lambda: one_s + one_s,
        lambda: one_c + one_c,
        (lambda: one_t + one_t) if torch is not None else None,
    )

    # reductions (Note [CUDA reductions]): bandwidth counts the bytes read
    case(
        "sum 1e8 f32",
        4 * n,
        lambda: strided.sum(sa),
        lambda: cp.sum(ca),
        (lambda: torch.sum(ta)) if torch is not None else None,
        check=False,
    )
    k = 8192
    sq = sa[: k * k].reshape(k, k)
    cq = ca[: k * k].reshape(k, k)
    tq = ta[: k * k].reshape(k, k) if torch is not None else None
    for axis in (0, 1):
        case(
            f"sum over dim {axis} of 8192x8192",
            4 * k * k,
            lambda axis=axis: strided.sum(sq, axis=axis),
            lambda axis=axis: cp.sum(cq, axis=axis),
            (lambda axis=axis: torch.sum(tq, dim=axis)) if torch is not None else None,
            check=False,
        )
    case(
        "argmax over dim 1 of 8192x8192",
        4 * k * k,
        lambda: strided.argmax(sq, axis=1),
        lambda: cp.argmax(cq, axis=1),
        (lambda: torch.argmax(tq, dim=1)) if torch is not None else None,
        check=False,
    )
    # matmul through cuBLAS (Note [CUDA matmul])
    m4 = 4096
    sm4 = sa[: m4 * m4].reshape(m4, m4)
    cm4 = ca[: m4 * m4].reshape(m4, m4)
    tm4 = ta[: m4 * m4].reshape(m4, m4) if torch is not None else None
    case(
        "matmul 4096 f32",
        0,
        lambda: sm4 @ sm4,
        lambda: cm4 @ cm4,
        (lambda: tm4 @ tm4) if torch is not None else None,
        check=False,
    )
    flops = 2 * m4**3
    mm = rows[-1]
    print(
        f"matmul 4096 f32: strided {flops / mm[1] / 1e12:.1f} TFLOP/s, CuPy "
        f"{flops / mm[2] / 1e12:.1f}" + (f", torch {flops / mm[3] / 1e12:.1f}" if mm[3] else "")
    )
    # issue 7's remaining cases: a gather of 1e6 rows, a sort of 1e7 float32, an MLP step
    table = sa[: 2**20 * 64].reshape(2**20, 64)
    ctable = ca[: 2**20 * 64].reshape(2**20, 64)
    ttable = ta[: 2**20 * 64].reshape(2**20, 64) if torch is not None else None
    idx_np = np.random.default_rng(2).integers(0, 2**20, 10**6)
    sidx, cidx = strided.asarray(idx_np, device=dev), cp.asarray(idx_np)
    tidx = torch.as_tensor(idx_np, device="cuda") if torch is not None else None
    case(
        "gather 1e6 rows of 64 f32",
        2 * 4 * 64 * 10**6,
        lambda: table[sidx],
        lambda: ctable[cidx],
        (lambda: ttable[tidx]) if torch is not None else None,
        check=False,
    )
    s7, c7 = sa[: 10**7], ca[: 10**7]
    t7 = ta[: 10**7] if torch is not None else None
    case(
        "sort 1e7 f32",
        0,
        lambda: strided.sort(s7),
        lambda: cp.sort(c7),
        (lambda: torch.sort(t7)) if torch is not None else None,
        check=False,
    )
    np.testing.assert_array_equal(np.asarray(strided.sort(s7).cpu()), cp.asnumpy(cp.sort(c7)))
    _mlp_step(cp, torch, timeit, rows, dev)
    _later_rows(cp, torch, timeit, rows, dev)

    for axis in (0, 1):
        got = np.asarray(strided.sum(sq, axis=axis).cpu())
        np.testing.assert_allclose(got, cp.asnumpy(cp.sum(cq, axis=axis)), rtol=1e-3, atol=1e-2)
    np.testing.assert_array_equal(
        np.asarray(strided.argmax(sq, axis=1).cpu()), cp.asnumpy(cp.argmax(cq, axis=1))
    )
    np.testing.assert_allclose(strided.sum(sa).item(), float(cp.sum(ca)), rtol=1e-3, atol=1)

    print(
        "| case | strided | CuPy | PyTorch | strided GB/s (% of copy) | CuPy/strided | "
        "torch/strided |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, ts, tc, tt, bw in rows:
        bwtxt = f"{bw / 1e9:.0f} ({100 * bw / copy_bw:.0f}%)" if bw else "-"
        ctxt = f"{tc * 1e6:.1f} us" if tc == tc else "-"
        ttxt = f"{tt * 1e6:.1f} us" if tt else "-"
        rt = f"{tt / ts:.2f}" if tt else "-"
        print(f"| {name} | {ts * 1e6:.1f} us | {ctxt} | {ttxt} | {bwtxt} | {tc / ts:.2f} | {rt} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
