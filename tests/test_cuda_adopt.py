"""CuPy's results taken over as strided tensors, without a copy (Note [Taking over CuPy's
results] in strided/cuda/_backend.py): the stand-in's geometry, and on a GPU the FFT and sort
results that use it."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from devices import GPU_ONLY

import strided
from strided.cuda import _backend


def _standin_cupy_array(a):
    """A stand-in CuPy array over NumPy array ``a``'s memory: what ``adopt`` reads of one."""
    return types.SimpleNamespace(
        flags=types.SimpleNamespace(c_contiguous=True),
        shape=a.shape, dtype=a.dtype, nbytes=a.nbytes,
        data=types.SimpleNamespace(ptr=a.ctypes.data), keep=a,
    )  # fmt: skip


@pytest.mark.parametrize("shape", [(6,), (3, 4), (2, 0, 5), ()])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64", "bool"])
def test_a_row_major_result_is_taken_over_not_copied(shape, dtype):
    a = np.zeros(shape, dtype)
    fake = _standin_cupy_array(a)
    t = _backend.adopt(fake, strided.device("cuda"))
    assert (t.shape, t.dtype.name, str(t.device)) == (shape, dtype, "cuda:0")
    assert t.is_contiguous()
    assert t.untyped_storage().data_ptr() == a.ctypes.data  # the same memory
    refs = sys.getrefcount(fake)
    del t  # the storage held the CuPy array: dropping the tensor lets it go
    assert sys.getrefcount(fake) == refs - 1


@GPU_ONLY
@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("descending", [False, True])
def test_a_gpu_sort_and_fft_return_cupys_memory_with_the_cpus_answer(dtype, descending):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(3)
    x = strided.asarray(rng.integers(-5, 5, (4, 300)).astype(dtype))
    d = x.to("cuda")
    for fn, axis in ((strided.sort, 1), (strided.argsort, 0)):
        got = fn(d, axis=axis, descending=descending, stable=True)
        want = fn(x, axis=axis, descending=descending, stable=True)
        assert got.is_contiguous() and got.device == d.device
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    f = strided.fft.fft(d.astype("complex64"), axis=1)
    assert f.is_contiguous() and isinstance(f.untyped_storage().owner, cupy.ndarray)
    np.testing.assert_allclose(
        f.cpu().numpy(), np.fft.fft(x.numpy().astype(np.complex64), axis=1), rtol=1e-4, atol=1e-3
    )
