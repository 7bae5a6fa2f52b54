"""strided tensors as Dask chunks (strided/dask.py), on a real cluster: a ``LocalCluster`` of two
worker processes on the loopback interface, started and shut down by the module's fixture.

Every case is the same computation on a strided-backed and a NumPy-backed Dask array; the
strided one runs on the cluster, its result (and the chunks that come back) must be tensors
equal to NumPy's. ``assert_eq`` (Dask's own test utility, on the synchronous scheduler) also
checks that each result's meta, the zero-size array Dask plans with, has the type and dtype of
what compute returns (see Note [How Dask decides chunk types and meta]).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time

import numpy as np
import pytest

import strided
import strided.dask
from strided import Tensor

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
from dask.array.utils import assert_eq  # noqa: E402

TIMEOUT = 60  # seconds: any one cluster call; the whole file takes well under a minute

A = np.random.default_rng(0).standard_normal((24, 10))


class _Register(distributed.WorkerPlugin):
    def setup(self, worker):
        import strided.dask

        strided.dask.register()


@pytest.fixture(scope="module")
def client():
    import cloudpickle

    # the test functions below travel to the workers by value, not as an import of this file
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    config = {
        "distributed.comm.timeouts.connect": "20s",
        "distributed.nanny.pre-spawn-environ.STRIDED_NUM_THREADS": 1,  # a thread per worker
    }
    with dask.config.set(config):
        cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=40,  # logging.ERROR: the killed worker's traceback is expected
        )
        c = distributed.Client(cluster, timeout=TIMEOUT)
    # Dask finds strided through its entry points in every process (test_entry_points checks
    # that); registering by hand as well keeps this file's checks independent of how strided was
    # installed (a stale strided.egg-info in the working directory hides the entry points)
    strided.dask.register()
    c.register_plugin(_Register(), name="strided-dask")  # every worker, restarted ones too
    try:
        yield c
    finally:
        c.close(timeout=TIMEOUT)
        cluster.close(timeout=TIMEOUT)
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def pair(chunks=(8, 4)):
    """The same data as a strided-backed and a NumPy-backed Dask array."""
    return da.from_array(strided.asarray(A), chunks=chunks), da.from_array(A, chunks=chunks)


def check(client, got, want, rtol=1e-12, atol=1e-12):
    """``got`` (strided chunks) computed on the cluster equals ``want`` (NumPy chunks)."""
    assert isinstance(got._meta, Tensor), type(got._meta)
    assert_eq(got, want, check_type=False, rtol=rtol, atol=atol)
    out = client.compute(got).result(timeout=TIMEOUT)
    assert isinstance(out, Tensor), type(out)
    np.testing.assert_allclose(np.asarray(out), want.compute(), rtol=rtol, atol=atol)


CASES = {
    "elementwise": lambda x: (x + 1) * 2 - x**2 / 3,
    "ufuncs": lambda x: np.exp(x) + da.sin(x) * np.abs(x),
    "sum0": lambda x: x.sum(0),
    "sum1": lambda x: x.sum(axis=1),
    "sum_keepdims": lambda x: x.sum(axis=0, keepdims=True),
    "max1_keepdims": lambda x: x.max(axis=1, keepdims=True),
    "min_all": lambda x: x.min(),
    "sum_split_every": lambda x: x.sum(axis=0, split_every=2),
    "matmul": lambda x: x @ x.T,
    "mean": lambda x: x.mean(0),
    "std": lambda x: x.std(axis=1),
    "var": lambda x: x.var(),
    "nanmean": lambda x: da.nanmean(x, axis=0),
    "argmax0": lambda x: x.argmax(axis=0),
    "argmax1": lambda x: x.argmax(axis=1),
    "slice_steps": lambda x: x[1::3, ::2],
    "slice_negative": lambda x: x[::-2, -2::-3],
    "where": lambda x: da.where(x > 0, x, -x),
    "concatenate": lambda x: da.concatenate([x, x[:, ::-1]], axis=1),
    "rechunk": lambda x: x.rechunk((5, 7)),
    "map_blocks": lambda x: x.map_blocks(np.tanh),
    "blockwise": lambda x: da.blockwise(np.multiply, "ij", x, "ij", x, "ij", dtype=x.dtype),
    "tensordot": lambda x: da.tensordot(x, x, axes=(0, 0)),
    "einsum": lambda x: da.einsum("ij,ij->i", x, x),
    "take": lambda x: x[[0, 5, 9, 23]],
    "cumsum": lambda x: x.cumsum(axis=0),
    "astype_reshape": lambda x: x.astype("float32").reshape(240),
    "percentile": lambda x: da.percentile(x[:, 0], [10, 50, 90]),
    "tsqr": lambda x: abs(da.linalg.qr(x.rechunk((8, 10)))[1]),
}


@pytest.mark.parametrize("name", CASES)
def test_same_as_numpy_on_cluster(client, name):
    x, y = pair()
    rtol = 1e-5 if name == "astype_reshape" else 1e-12
    check(client, CASES[name](x), CASES[name](y), rtol=rtol, atol=1e-10)


def test_map_blocks_with_strided_function(client):
    x, y = pair()
    got = x.map_blocks(lambda b: strided.exp(b) * b.sum(axis=1, keepdims=True), dtype=x.dtype)
    want = y.map_blocks(lambda b: np.exp(b) * b.sum(axis=1, keepdims=True), dtype=y.dtype)
    check(client, got, want)


def test_chunks_come_back_as_tensors(client):
    x, _ = pair()
    blocks = client.compute(list(x.to_delayed().ravel())).__iter__()
    got = [b.result(timeout=TIMEOUT) for b in blocks]
    assert len(got) == x.npartitions
    assert all(isinstance(b, Tensor) and b.dtype == strided.float64 for b in got)
    np.testing.assert_array_equal(np.asarray(got[0]), A[:8, :4])


def test_lstsq(client):
    x, y = pair((8, 10))
    b, c = x[:, 0] + 1, y[:, 0] + 1
    got = client.compute(da.linalg.lstsq(x, b)[0]).result(timeout=TIMEOUT)
    np.testing.assert_allclose(np.asarray(got), da.linalg.lstsq(y, c)[0].compute())


def test_fft(client):
    """``da.fft`` over the unchunked axis of an array chunked along the other. Dask plans its
    meta by running ``np.fft.fft`` on a zero-size chunk, which NumPy's rules (and strided's)
    reject for any chunk type, and then falls back to an ndarray meta: the chunks are tensors
    all the same."""
    x, y = pair()
    for axis, chunks in ((1, (8, 10)), (0, (24, 4))):
        got = da.fft.fft(x.rechunk(chunks), axis=axis)
        assert_eq(got, da.fft.fft(y.rechunk(chunks), axis=axis), check_meta=False, check_type=False)
        out = client.compute(got).result(timeout=TIMEOUT)
        assert isinstance(out, Tensor) and out.dtype == strided.complex128
        np.testing.assert_allclose(np.asarray(out), np.fft.fft(A, axis=axis), atol=1e-12)
    with pytest.raises(ValueError, match="single chunk"):
        da.fft.fft(x, axis=0)  # Dask's rule, whatever the chunk type


def test_mixed_with_tensor_operand(client):
    x, y = pair()
    row = strided.asarray(A[0])
    check(client, x + row, y + A[0])
    check(client, row * x, A[0] * y)


def test_backend_setting_makes_strided_chunks(client):
    with dask.config.set({"array.backend": "strided"}):
        made = {
            "ones": da.ones((6, 4), chunks=(3, 2)),
            "zeros": da.zeros((6, 4), chunks=3, dtype="float32"),
            "full": da.full((5,), 2.5, chunks=2),
            "arange": da.arange(10, chunks=4),
            "empty": da.empty((4, 4), chunks=2)[:0],
        }
        rng = da.random.default_rng(42)
        r1 = rng.random((10, 6), chunks=(5, 3))
        r2 = da.random.default_rng(42).random((10, 6), chunks=(5, 3))
        legacy = da.random.RandomState(7).normal(0.0, 1.0, size=(8, 4), chunks=4)
    want = {"ones": np.ones((6, 4)), "zeros": np.zeros((6, 4), "float32"), "empty": np.ones((0, 4))}
    want |= {"full": np.full(5, 2.5), "arange": np.arange(10)}
    for name, x in made.items():
        assert isinstance(x._meta, Tensor), name
        out = client.compute(x).result(timeout=TIMEOUT)
        assert isinstance(out, Tensor), name
        assert out.dtype == want[name].dtype, name
        np.testing.assert_array_equal(np.asarray(out), want[name])
    a, b, c = client.compute([r1, r2, legacy], sync=True)
    assert isinstance(a, Tensor) and isinstance(c, Tensor)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))  # same seed, same numbers
    assert 0 <= float(a.min()) and float(a.max()) < 1 and len(np.unique(np.asarray(a))) == 60
    assert c.shape == (8, 4) and float(abs(c).max()) < 10


def test_to_backend_both_ways():
    x, y = pair()
    to_np = x.to_backend("numpy")
    assert isinstance(to_np._meta, np.ndarray)
    assert_eq(to_np, y)
    to_st = y.to_backend("strided")
    assert isinstance(to_st._meta, Tensor)
    assert isinstance(to_st.compute(scheduler="sync"), Tensor)


def test_sizeof_tokenize_pickle():
    from dask.sizeof import sizeof
    from dask.tokenize import tokenize

    t = strided.asarray(A)
    assert sizeof(t) == A.nbytes
    assert sizeof(strided.broadcast_to(t[0], (1000, 10))) == 10 * 8  # a broadcast row counts once
    assert tokenize(t) == tokenize(strided.asarray(A.copy()))  # deterministic: by value
    assert tokenize(t) != tokenize(t + 1)
    assert tokenize(t) != tokenize(t.astype("float32"))
    assert tokenize(t) != tokenize(np.asarray(t))  # a tensor is not its ndarray
    view = t.astype("float32")[::-2, 1::3]
    back = pickle.loads(pickle.dumps(view, protocol=5))
    assert back.dtype == strided.float32 and back.shape == view.shape
    np.testing.assert_array_equal(np.asarray(back), np.asarray(view))


def test_cuda_emulated_chunks():
    from tests.devices import on

    t = on("cuda-emulated", strided.asarray(A))
    x = da.from_array(t, chunks=(8, 5))
    assert x._meta.device == t.device
    got = ((x - x.mean(axis=0)) * 2).sum(axis=1).compute(scheduler="sync")
    assert got.device == t.device
    want = ((A - A.mean(axis=0)) * 2).sum(axis=1)
    np.testing.assert_allclose(np.asarray(got.cpu()), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(x.to_backend("numpy").compute()), A)


def _slow_exp(block):
    time.sleep(0.15)
    return strided.exp(block)


def test_killed_worker_is_rescheduled(client):
    """One worker process is killed while the graph runs; its nanny starts a new one, the
    scheduler reruns the lost tasks, and the answer is still NumPy's."""
    x, _ = pair((3, 10))  # 8 blocks, 0.15 s each
    future = client.compute(x.map_blocks(_slow_exp, dtype=x.dtype).sum(axis=0))
    deadline = time.monotonic() + TIMEOUT
    while not client.processing() or not any(client.processing().values()):
        assert time.monotonic() < deadline, "the tasks never started"
        time.sleep(0.02)
    busy = next(w for w, tasks in client.processing().items() if tasks)
    pid = client.run(os.getpid, workers=[busy])[busy]
    os.kill(pid, signal.SIGKILL)
    out = future.result(timeout=TIMEOUT)
    assert isinstance(out, Tensor)
    np.testing.assert_allclose(np.asarray(out), np.exp(A).sum(axis=0), rtol=1e-12)
    client.wait_for_workers(2, timeout=TIMEOUT)  # the nanny brought a new worker up


ENTRY_POINTS_CHECK = """
import dask, dask.array as da
from dask.sizeof import sizeof
assert "strided" in sizeof._lazy, sorted(sizeof._lazy)  # the sizeof plugin ran at import
import strided
x = da.from_array(strided.ones((4, 4)), chunks=2)
assert sizeof(strided.ones(3)) == 24
with dask.config.set({"array.backend": "strided"}):
    y = da.ones((4, 4), chunks=2)
assert isinstance(y._meta, strided.Tensor) and isinstance((x + y).compute(), strided.Tensor)
print("ok")
"""


def test_entry_points(tmp_path):
    """Dask finds strided on its own, in a fresh process (no ``import strided.dask``)."""
    import importlib.metadata
    import subprocess

    cwd = str(tmp_path)  # not the checkout: a strided.egg-info there would hide the entry points
    groups = ("dask.sizeof", "dask.array.backends")
    names = subprocess.run(
        [sys.executable, "-c", f"import importlib.metadata as m; print([e.name for g in {groups}"
         " for e in m.entry_points(group=g) if e.name == 'strided'])"],
        cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
    ).stdout  # fmt: skip
    if names.strip() != "['strided', 'strided']":
        pytest.skip("strided's entry points are not installed (pip install -e . installs them)")
    _ = importlib.metadata
    r = subprocess.run(
        [sys.executable, "-c", ENTRY_POINTS_CHECK],
        cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    assert r.stdout.strip() == "ok", r.stderr[-2000:]
