"""strided/cuda/_solver.py's cuSOLVER calls, run without a GPU against a stand-in cuSOLVER.

The stand-in has cuSOLVER's functions with CuPy's signatures (the argument lists CuPy's own
cupy/linalg passes them), and computes each with SciPy's LAPACK on the memory the pointers
name. The tensors are CPU tensors, so the pointers are host memory. This checks what a GPU run
could not show more cheaply: the function names, the argument order, the leading dimensions
and the byte steps from one matrix of a batch to the next, for pivots and infos too; the
results must equal ``strided._cpu.lapack.run_batch``'s on the same inputs. The real cuSOLVER
runs in ``test_linalg_lapack.py``'s GPU tests, on a machine with a GPU.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import types

import numpy as np
import pytest
import scipy.linalg.lapack as sl

import strided
from strided._cpu import lapack
from strided.cuda import _solver


def _matrix(ptr, rows, cols, ld, dtype):
    """The column-major rows x cols matrix with leading dimension ld at address ptr."""
    dt = np.dtype(dtype)
    n = ld * cols * dt.itemsize
    raw = np.ctypeslib.as_array((ctypes.c_char * n).from_address(ptr))
    return raw.view(dt).reshape(cols, ld).T[:rows]


def _ints(ptr, n):
    return np.ctypeslib.as_array((ctypes.c_int32 * n).from_address(ptr))


class _FakeCusolver(types.ModuleType):
    """cuSOLVER's dense functions for the d and z prefixes, computed by SciPy's LAPACK."""

    CUSOLVER_EIG_MODE_NOVECTOR = 0
    CUSOLVER_EIG_MODE_VECTOR = 1

    def __init__(self):
        super().__init__("cupy_backends.cuda.libs.cusolver")
        self.calls = []
        for t, dtype in (("d", "float64"), ("z", "complex128")):
            self._define(t, dtype)

    def setStream(self, handle, stream):
        assert handle == "handle" and stream == 1234

    def createParams(self):
        self.calls.append(("createParams", 0))
        return "params"

    def destroyParams(self, params):
        self.calls.append(("destroyParams", 0))
        assert params == "params"

    def _define(self, t, dtype):
        calls = self.calls

        def record(name, f):
            def g(*args):
                calls.append((t + name, len(args)))
                return f(*args)

            setattr(self, t + name, g)

        def getrf(h, m, n, A, lda, work, ipiv, info):
            a = _matrix(A, m, n, lda, dtype)
            lu, piv, inf = getattr(sl, t + "getrf")(a.copy())
            a[...] = lu
            _ints(ipiv, min(m, n))[:] = piv + 1  # LAPACK's 1-based pivots, as cuSOLVER's
            _ints(info, 1)[0] = inf

        def getrs(h, op, n, nrhs, A, lda, ipiv, B, ldb, info):
            lu = _matrix(A, n, n, lda, dtype)
            b = _matrix(B, n, nrhs, ldb, dtype)
            x, inf = getattr(sl, t + "getrs")(lu.copy(), _ints(ipiv, n) - 1, b.copy(), trans=op)
            b[...] = x
            _ints(info, 1)[0] = inf

        def potrf(h, uplo, n, A, lda, work, lwork, info):
            a = _matrix(A, n, n, lda, dtype)
            c, inf = getattr(sl, t + "potrf")(a.copy(), lower=uplo == 0, clean=0)
            a[...] = c
            _ints(info, 1)[0] = inf

        def evd(h, jobz, uplo, n, A, lda, W, work, lwork, info):
            a = _matrix(A, n, n, lda, dtype)
            fn = getattr(sl, t + ("syevd" if t == "d" else "heevd"))
            w, v, inf = fn(a.copy(), compute_v=jobz, lower=uplo == 0)
            _matrix(W, n, 1, n, np.float64)[:, 0] = w
            if jobz:
                a[...] = v
            _ints(info, 1)[0] = inf

        def geqrf(h, m, n, A, lda, tau, work, lwork, info):
            a = _matrix(A, m, n, lda, dtype)
            qr, tu, _, inf = getattr(sl, t + "geqrf")(a.copy())
            a[...] = qr
            _matrix(tau, min(m, n), 1, min(m, n), dtype)[:, 0] = tu
            _ints(info, 1)[0] = inf

        def orgqr(h, m, n, k, A, lda, tau, work, lwork, info):
            a = _matrix(A, m, n, lda, dtype)
            fn = getattr(sl, t + ("orgqr" if t == "d" else "ungqr"))
            q, _, inf = fn(a.copy(), _matrix(tau, k, 1, k, dtype)[:, 0].copy())
            a[...] = q
            _ints(info, 1)[0] = inf

        evd_name = "syevd" if t == "d" else "heevd"
        qr_name = "orgqr" if t == "d" else "ungqr"
        for name, f in (("getrf", getrf), ("getrs", getrs), ("potrf", potrf),
                        (evd_name, evd), ("geqrf", geqrf), (qr_name, orgqr)):  # fmt: skip
            record(name, f)
        # the workspace queries: how many elements, here a few (the stand-in needs none)
        record("getrf_bufferSize", lambda h, m, n, A, lda: 3)
        record("potrf_bufferSize", lambda h, uplo, n, A, lda: 3)
        record(evd_name + "_bufferSize", lambda h, jobz, uplo, n, A, lda, W: 3)
        record("geqrf_bufferSize", lambda h, m, n, A, lda: 3)
        record(qr_name + "_bufferSize", lambda h, m, n, k, A, lda, tau: 3)


def _fake_x_api(calls):
    """cusolverDnXpotrf and its workspace query (the C signatures _solver declares through
    ctypes), computed by SciPy's LAPACK; ``calls`` records (name, (cudaDataType, n, lda))."""
    types_ = {1: ("d", "float64"), 5: ("z", "complex128")}

    def buffer_size(h, params, uplo, n, dtype, A, lda, compute, dev_bytes, host_bytes):
        assert (h, params) == ("handle", "params") and dtype == compute
        calls.append(("Xpotrf_bufferSize", (dtype, n, lda)))
        dev_bytes._obj.value, host_bytes._obj.value = 24, 8  # through ctypes.byref
        return 0

    def xpotrf(h, params, uplo, n, dtype, A, lda, compute, work, wbytes, host, hbytes, info):
        assert (h, params, wbytes, hbytes) == ("handle", "params", 24, 8) and work and host
        calls.append(("Xpotrf", (dtype, n, lda)))
        t, name = types_[dtype]
        a = _matrix(A, n, n, lda, name)
        c, inf = getattr(sl, t + "potrf")(a.copy(), lower=uplo == 0, clean=0)
        a[...] = c
        _ints(info, 1)[0] = inf
        return 0

    return types.SimpleNamespace(cusolverDnXpotrf_bufferSize=buffer_size, cusolverDnXpotrf=xpotrf)


def _fake_cublas():
    """cuBLAS's batched LU (CuPy's signatures) for the d and z prefixes, computed by SciPy's
    LAPACK on the matrices whose addresses the pointer arrays hold; and its constants."""
    cublas = types.ModuleType("cupy_backends.cuda.libs.cublas")
    cublas.CUBLAS_FILL_MODE_LOWER, cublas.CUBLAS_FILL_MODE_UPPER = 0, 1
    cublas.CUBLAS_OP_N, cublas.CUBLAS_OP_T, cublas.CUBLAS_OP_C = 0, 1, 2
    cublas.calls = []
    cublas.setStream = lambda handle, stream: cublas.calls.append(("stream", handle, stream))

    def addresses(ptr, count):
        return np.ctypeslib.as_array((ctypes.c_uint64 * count).from_address(ptr)).tolist()

    for t, dtype in (("d", "float64"), ("z", "complex128")):

        def getrf(h, n, Aarray, lda, P, info, count, t=t, dtype=dtype):
            assert h == "blas handle"
            cublas.calls.append((t + "getrfBatched", count))
            for i, A in enumerate(addresses(Aarray, count)):  # pivots and infos: n, 1 apart
                a = _matrix(A, n, n, lda, dtype)
                lu, piv, inf = getattr(sl, t + "getrf")(a.copy())
                a[...] = lu
                _ints(P + 4 * n * i, n)[:] = piv + 1
                _ints(info + 4 * i, 1)[0] = inf

        def getrs(h, op, n, nrhs, Aarray, lda, P, Barray, ldb, info, count, t=t, dtype=dtype):
            assert h == "blas handle"
            cublas.calls.append((t + "getrsBatched", count))
            pairs = zip(addresses(Aarray, count), addresses(Barray, count), strict=True)
            for i, (A, B) in enumerate(pairs):
                lu = _matrix(A, n, n, lda, dtype)
                b = _matrix(B, n, nrhs, ldb, dtype)
                piv = _ints(P + 4 * n * i, n) - 1
                x, _ = getattr(sl, t + "getrs")(lu.copy(), piv, b.copy(), trans=op)
                b[...] = x
            _ints(info, 1)[0] = 0  # one host int: argument errors only

        setattr(cublas, t + "getrfBatched", getrf)
        setattr(cublas, t + "getrsBatched", getrs)
    return cublas


class _FakeCupy:
    """The parts of CuPy that _solver.batch uses: a device context, the solver and BLAS
    handles, workspace allocation and the arrays of addresses (host memory here)."""

    uintp, uint8 = np.uintp, np.uint8

    def __init__(self):
        self.buffers = []
        self.aranges = 0  # the arrays of addresses made (Note [A batched LU's arrays of ...])
        device = types.SimpleNamespace(
            get_cusolver_handle=lambda: "handle", get_cublas_handle=lambda: "blas handle"
        )
        self.cuda = types.SimpleNamespace(Device=lambda i: contextlib.nullcontext(), device=device)

    def _kept(self, buf):
        self.buffers.append(buf)
        return types.SimpleNamespace(data=types.SimpleNamespace(ptr=buf.ctypes.data))

    def empty(self, size, dtype):
        return self._kept(np.zeros(size, dtype))

    def arange(self, start, stop, step, dtype):
        self.aranges += 1
        return self._kept(np.arange(start, stop, step, dtype=dtype))


@pytest.fixture
def fake(monkeypatch):
    cusolver = _FakeCusolver()
    cublas = _fake_cublas()
    libs = types.ModuleType("cupy_backends.cuda.libs")
    libs.cusolver, libs.cublas = cusolver, cublas
    for name, module in (
        ("cupy_backends", types.ModuleType("cupy_backends")),
        ("cupy_backends.cuda", types.ModuleType("cupy_backends.cuda")),
        ("cupy_backends.cuda.libs", libs),
        ("cupy_backends.cuda.libs.cusolver", cusolver),
        ("cupy_backends.cuda.libs.cublas", cublas),
    ):
        monkeypatch.setitem(sys.modules, name, module)
    # cholesky's potrf goes through the 64-bit API (Note [cuSOLVER's 64-bit API for Cholesky]),
    # never the real library's here: the pointers are host memory
    monkeypatch.setattr(_solver, "_x_lib", [_fake_x_api(cusolver.calls)])
    # the kept arrays of addresses name this test's host buffers: a table of its own
    monkeypatch.setattr(_solver, "_addresses_made", {})
    backend = types.SimpleNamespace(cupy=_FakeCupy(), index=0, _stream=lambda: 1234)
    backend._on_device = contextlib.nullcontext
    backend.memset = lambda ptr, value, nbytes: ctypes.memset(ptr, value, nbytes)
    backend.cublas = cublas
    return backend, cusolver


def _both(fake, routine, tensors, *args, **kw):
    """Run ``routine`` through _solver.batch (the stand-in cuSOLVER) and through the CPU's
    run_batch, on copies of the same tensors; return both sets of results."""
    backend, _ = fake
    gpu = [None if t is None else t.clone() for t in tensors]
    cpu = [None if t is None else t.clone() for t in tensors]
    _solver.batch(backend, routine, *gpu, *args, **kw)
    lapack.run_batch(routine, *cpu, *args, **kw)
    return gpu, cpu


def _same(gpu, cpu, where):
    for g, c in zip(gpu, cpu, strict=True):
        if g is not None:
            np.testing.assert_allclose(np.asarray(g), np.asarray(c), rtol=1e-12, atol=1e-12,
                                       err_msg=where)  # fmt: skip


@pytest.mark.parametrize("batched", [False, True], ids=["one call a matrix", "batched LU"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_each_routine_matches_the_cpu_lapack_over_a_batch(fake, dtype, batched, rng, monkeypatch):
    # LU of a batch of small matrices goes to cuBLAS's batched routines; with BATCHED_N = 0,
    # every matrix to cuSOLVER's (Note [cuSOLVER for a batch of LAPACK calls])
    backend, cusolver = fake
    monkeypatch.setattr(_solver, "BATCHED_N", _solver.BATCHED_N if batched else 0)
    n, batch = 5, 3
    a = rng.standard_normal((batch, n, n)) + 3 * np.eye(n)
    if dtype == "complex128":
        a = a + 1j * rng.standard_normal((batch, n, n))
    a[1, 0] = 0.0  # a singular matrix in the middle of the batch: its own info
    a[1, :, 0] = 0.0
    A = strided.asarray(a.astype(dtype))
    ipiv = strided.zeros((batch, n), dtype="int32")
    info = strided.zeros((batch,), dtype="int32")
    gpu, cpu = _both(fake, "getrf", [A, None, ipiv, info], n, n)
    _same(gpu, cpu, "getrf")
    assert np.asarray(gpu[3]).tolist()[1] > 0 and np.asarray(gpu[3]).tolist()[0] == 0
    lu, piv = gpu[0], gpu[2]
    b = strided.asarray(rng.standard_normal((batch, 2, n)).astype(dtype))  # 2 columns of n
    for trans in ("N", "T"):
        g, c = _both(fake, "getrs", [lu, b, piv, info], n, n, 0, 2, trans)
        _same(g, c, f"getrs {trans}")
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    H = strided.asarray(h.astype(dtype))
    for uplo in ("L", "U"):
        _same(*_both(fake, "potrf", [H, None, None, info], n, n, 0, 0, uplo), f"potrf {uplo}")
        w = strided.zeros((batch, n), dtype="float64")
        for jobz in ("V", "N"):
            g, c = _both(fake, "heevd", [H, w, None, info], n, n, 0, 0, jobz, uplo)
            _same(g[1:], c[1:], f"heevd {jobz} {uplo}")  # values (and the infos) ...
            if jobz == "V":  # ... and vectors up to a sign or phase per column
                np.testing.assert_allclose(np.abs(np.asarray(g[0])), np.abs(np.asarray(c[0])),
                                           atol=1e-10)  # fmt: skip
    m, k = 6, 4  # a tall matrix's QR: geqrf, then orgqr for Q's k columns
    t = strided.asarray(rng.standard_normal((batch, k, m)).astype(dtype))  # column-major m x k
    tau = strided.zeros((batch, k), dtype=dtype)
    g, c = _both(fake, "geqrf", [t, tau, None, info], m, k)
    _same(g, c, "geqrf")
    g2, c2 = _both(fake, "orgqr", [g[0], g[1], None, info], m, k, k)
    _same(g2, c2, "orgqr")
    # every call had the argument count of CuPy's binding (checked by the stand-in's
    # signatures) and one call per matrix, after one workspace query per batch
    t0 = "d" if dtype == "float64" else "z"
    names = [name for name, _ in cusolver.calls]
    blas = [call for call in backend.cublas.calls if call[0] != "stream"]
    if batched:  # one call for the batch, on strided's stream
        assert blas == [(t0 + "getrfBatched", batch)] + [(t0 + "getrsBatched", batch)] * 2
        assert ("stream", "blas handle", 1234) in backend.cublas.calls
        assert t0 + "getrf" not in names and t0 + "getrs" not in names
    else:
        assert names.count(t0 + "getrf") == batch and names.count(t0 + "getrf_bufferSize") == 1
        assert names.count(t0 + "getrs") == 2 * batch and not blas
    # potrf: the 64-bit API, one query and one parameter object per batch, a call per matrix
    x = [c for c in cusolver.calls if c[0].startswith("X")]
    cuda_type = {"float64": 1, "complex128": 5}[dtype]
    query, call = ("Xpotrf_bufferSize", (cuda_type, n, n)), ("Xpotrf", (cuda_type, n, n))
    assert x == 2 * ([query] + [call] * batch)  # L and U
    assert names.count("createParams") == names.count("destroyParams") == 2
    assert t0 + "potrf" not in names


def test_potrf_takes_the_legacy_routine_without_the_64_bit_api(fake, rng, monkeypatch):
    backend, cusolver = fake
    monkeypatch.setattr(_solver, "_x_lib", [None])  # no libcusolver with Xpotrf found
    h = rng.standard_normal((2, 4, 4))
    h = strided.asarray(h @ np.swapaxes(h, -1, -2) + 4 * np.eye(4))
    info = strided.zeros((2,), dtype="int32")
    for uplo in ("L", "U"):
        _same(*_both(fake, "potrf", [h, None, None, info], 4, 4, 0, 0, uplo), f"potrf {uplo}")
    names = [name for name, _ in cusolver.calls]
    assert names.count("dpotrf") == 4 and "createParams" not in names


def test_the_64_bit_api_is_found_in_the_library_cupy_loaded():
    # where CuPy's cuSOLVER binding loads (its nvidia wheels or a CUDA toolkit), the library
    # it loaded has Xpotrf, and _solver finds it in the process's memory map
    pytest.importorskip("cupy")
    try:
        from cupy_backends.cuda.libs import cusolver  # noqa: F401 - loads libcusolver
    except ImportError as e:
        pytest.skip(f"CuPy's cuSOLVER binding does not load here: {e}")
    lib = _solver._x_api()
    assert lib is not None and lib.cusolverDnXpotrf.argtypes[3] is ctypes.c_int64


def test_a_routine_without_a_cusolver_call_is_refused(fake):
    backend, _ = fake
    a = strided.zeros((1, 2, 2))
    with pytest.raises(NotImplementedError, match="geev: no cuSOLVER call"):
        _solver.batch(backend, "geev", a, None, None, strided.zeros((1,), dtype="int32"), 2, 2)


def test_empty_matrices_take_lapacks_quick_return(fake):
    # cuSOLVER fails on a matrix with no rows or columns (a launch of no blocks, found by
    # compute-sanitizer): no call is made, and each info says success, as LAPACK's would
    backend, cusolver = fake
    cases = [  # routine, a's shape (column-major), m, n, k, nrhs
        ("getrf", (2, 5, 0), 0, 5, 0, 0),
        ("geqrf", (2, 0, 5), 5, 0, 0, 0),
        ("orgqr", (2, 5, 0), 0, 5, 0, 0),
        ("potrf", (2, 0, 0), 0, 0, 0, 0),
        ("heevd", (2, 0, 0), 0, 0, 0, 0),
        ("getrs", (2, 3, 3), 3, 3, 0, 0),
    ]
    for routine, shape, m, n, k, nrhs in cases:
        a = strided.zeros(shape)
        info = strided.full((2,), 7, dtype="int32")
        _solver.batch(backend, routine, a, None, None, info, m, n, k, nrhs)
        assert np.asarray(info).tolist() == [0, 0], routine
    assert cusolver.calls == []


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_batched_getrs_keeps_getrfs_infos_and_the_arrays_of_addresses(fake, dtype, rng):
    # Note [One wait for a solve]: solve and inv queue their check of getrf's infos before
    # getrs, so getrsBatched (whose info is one host int) leaves the device infos as they are;
    # and Note [A batched LU's arrays of addresses]: getrs finds getrf's array of the factors,
    # a second solve at the same addresses finds all of them
    backend, _ = fake
    n, batch = 4, 3
    a = rng.standard_normal((batch, n, n)) + 3 * np.eye(n)
    a[2] = 0.0  # singular: getrf's info > 0
    lu = strided.asarray(a.astype(dtype))
    ipiv = strided.zeros((batch, n), dtype="int32")
    info = strided.zeros((batch,), dtype="int32")
    _solver.batch(backend, "getrf", lu, None, ipiv, info, n, n)
    after_getrf = np.asarray(info).tolist()
    assert after_getrf[2] > 0 and after_getrf[:2] == [0, 0]
    b = strided.asarray(rng.standard_normal((batch, 2, n)).astype(dtype))
    expected = b.clone()
    lapack.run_batch("getrs", lu.clone(), expected, ipiv.clone(), info.clone(), n, n, 0, 2, "T")
    _solver.batch(backend, "getrs", lu, b, ipiv, info, n, n, 0, 2, "T")
    assert np.asarray(info).tolist() == after_getrf
    np.testing.assert_allclose(np.asarray(b)[:2], np.asarray(expected)[:2], rtol=1e-12)
    assert backend.cupy.aranges == 2  # the factors' (getrf's, found again by getrs), b's
    _solver.batch(backend, "getrs", lu, b, ipiv, info, n, n, 0, 2, "T")
    assert backend.cupy.aranges == 2
