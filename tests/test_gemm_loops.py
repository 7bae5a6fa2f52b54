"""Tests for the matrix-product loops compiled per CPU level (strided/_cpu/gemm_loops.pyx and
gemm_loops.h): the tiny float32/float64 products (Note [Tiny products in registers]), the
integer products (Note [Integer products in registers]) and the route blas.pyx gives each size
(Note [Which route a product takes]).

NumPy is the oracle. The tiny kernels sum in order of k with fused multiply-adds where the
level has them, NumPy's BLAS in its own order: float64 is compared within 1e-10 and float32
within 1e-4 (relative and absolute, on values in [-1, 1]); integers exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from layouts import ALL_DTYPES, make_layout
from test_intpow import needs_lower_levels, run_at_level

import strided
from strided._cpu import blas, cpu_dispatch

FLOAT_TYPES = (strided.float32, strided.float64)
INT_TYPES = tuple(d for d in ALL_DTYPES if d.kind in "iu")
# the largest m * n * k of a tiny product at this process's level (STRIDED_TINY_WORK)
TINY_WORK = 4096 if cpu_dispatch.level >= 3 else 2048
LAYOUTS_A = ("contiguous", "transposed", "stepped", "negative-stride", "expanded")
LAYOUTS_B = ("contiguous", "transposed", "stepped", "negative-stride")
# (m, n, k): square ones, every lane count (4, 8, 16), C with more rows than columns (the
# product is then computed transposed), a matrix times a vector, a vector times a matrix, and
# dot products (1 x 1), contiguous and not
SHAPES = [
    (3, 3, 3),
    (4, 4, 4),
    (8, 8, 8),
    (16, 16, 16),
    (2, 5, 6),
    (5, 3, 7),
    (7, 9, 13),
    (13, 16, 1),
    (16, 1, 16),
    (1, 16, 9),
    (1, 1, 16),
    (1, 1, 5),
    (1, 1, 64),
]


def tol(dtype):
    return (
        {"rtol": 1e-4, "atol": 1e-4} if dtype == strided.float32 else {"rtol": 1e-10, "atol": 1e-10}
    )


def values(shape, dtype, rng):
    dt = np.dtype(dtype.numpy)
    if dt.kind in "iu":  # the whole range: the sums wrap around
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    return rng.uniform(-1, 1, shape).astype(dt)


def pair(dtype, shape, rng, layout="contiguous"):
    return make_layout(layout, values(shape, dtype, rng), rng)


def check(result, expected, dtype):
    assert result.shape == expected.shape
    assert np.dtype(result.dtype.numpy) == expected.dtype
    np.testing.assert_allclose(np.asarray(result), expected, **tol(dtype))


def kernel():
    return strided.last_matmul_plan()["kernel"]


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("layout_a", LAYOUTS_A)
@pytest.mark.parametrize("layout_b", LAYOUTS_B)
@pytest.mark.parametrize("mnk", SHAPES, ids=str)
def test_tiny_products_on_every_layout(dtype, layout_a, layout_b, mnk, rng):
    m, n, k = mnk
    x1, a1 = pair(dtype, (6, m, k), rng, layout_a)
    x2, a2 = pair(dtype, (6, k, n), rng, layout_b)
    check(x1 @ x2, a1 @ a2, dtype)
    if m * n * k <= TINY_WORK or m == n == 1:
        assert kernel() == f"tiny_gemm ({dtype.name})"
        assert "copied" not in strided.last_matmul_plan()["x1"]  # any strides will do
    check(x1[0] @ x2[0], a1[0] @ a2[0], dtype)  # no batch dims
    check(x1 @ x2[3], a1 @ a2[3], dtype)  # a broadcast batch (stride 0)
    check(x1[:1] @ x2, a1[:1] @ a2, dtype)
    check(x1[:0] @ x2[:0], a1[:0] @ a2[:0], dtype)  # an empty batch


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("mnk", [(3, 4, 5), (8, 8, 8), (5, 3, 7), (16, 1, 16), (1, 1, 16)], ids=str)
def test_tiny_products_into_out_and_addmm(dtype, mnk, rng):
    m, n, k = mnk
    x1, a1 = pair(dtype, (4, m, k), rng)
    x2, a2 = pair(dtype, (4, k, n), rng, "transposed")
    expected = a1 @ a2
    for out in (
        strided.empty((4, m, n), dtype=dtype),
        strided.empty((4, n, m), dtype=dtype).mT,  # a transposed out=
        strided.empty((4, m, 2 * n), dtype=dtype)[..., ::2],  # a stepped one
        strided.empty((4, m, n), dtype=dtype)[:, ::-1, ::-1],  # reversed
    ):
        assert strided.matmul(x1, x2, out=out) is out
        check(out, expected, dtype)
        assert kernel().startswith("tiny_gemm") == (m * n * k <= TINY_WORK or m == n == 1)
    c, ac = pair(dtype, (m, n), rng)
    for alpha, beta in [(2.5, -0.5), (1, 0), (0.5, 0), (0, 3), (1, 1)]:
        want = (beta * ac + alpha * (a1[1] @ a2[1])).astype(a1.dtype)
        check(strided.addmm(c, x1[1], x2[1], alpha=alpha, beta=beta), want, dtype)


def test_beta_zero_ignores_nan_in_out(rng):
    x1, a1 = pair(strided.float64, (5, 6), rng)
    x2, a2 = pair(strided.float64, (6, 7), rng)
    c = strided.full((5, 7), float("nan"))
    check(strided.addmm(c, x1, x2, beta=0), a1 @ a2, strided.float64)


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda d: d.name)
def test_tiny_products_of_empty_and_vector_operands(dtype, rng):
    for s1, s2 in [
        ((0, 3), (3, 4)),
        ((2, 0), (0, 4)),
        ((3,), (3, 5)),
        ((5, 3), (3,)),
        ((9,), (9,)),
    ]:
        x1, a1 = pair(dtype, s1, rng)
        x2, a2 = pair(dtype, s2, rng)
        expected = np.asarray(a1 @ a2)
        check(x1 @ x2, expected, dtype)
    # k == 0 writes zeros over what was in out=
    out = strided.full((2, 4), 7.0, dtype=dtype)
    empty_a, empty_b = strided.ones((2, 0), dtype=dtype), strided.ones((0, 4), dtype=dtype)
    result = strided.matmul(empty_a, empty_b, out=out)
    check(result, np.zeros((2, 4), np.dtype(dtype.numpy)), dtype)


@pytest.mark.parametrize(
    "mnk,tiny",
    [
        ((16, 16, 16), True),
        ((17, 4, 4), False),
        ((4, 17, 4), False),
        ((4, 4, 17), False),
        ((1, 1, 64), True),
        ((1, 1, 65), False),
    ],  # fmt: skip
    ids=str,
)
def test_the_route_by_size(mnk, tiny, rng):
    # Note [Which route a product takes] in blas.pyx
    m, n, k = mnk
    x1, a1 = pair(strided.float64, (3, m, k), rng)
    x2, a2 = pair(strided.float64, (3, k, n), rng)
    check(x1 @ x2, a1 @ a2, strided.float64)
    assert kernel().startswith("tiny_gemm") == (tiny and (m * n * k <= TINY_WORK or m == n == 1))
    for dtype in (strided.complex128, strided.int32):  # never tiny
        b1, b2 = (4 * a1).astype(dtype.numpy), (4 * a2).astype(dtype.numpy)
        check(strided.asarray(b1) @ strided.asarray(b2), b1 @ b2, dtype)
        assert not kernel().startswith("tiny_gemm")


@pytest.mark.parametrize("threads", [1, 2])
def test_a_tiny_batch_across_threads(threads, rng):
    strided.set_num_threads(threads)
    x1, a1 = pair(strided.float64, (3001, 8, 8), rng)
    x2, a2 = pair(strided.float64, (3001, 8, 8), rng, "negative-stride")
    check(x1 @ x2, a1 @ a2, strided.float64)
    assert strided.last_matmul_plan()["threads"] == ("one" if threads == 1 else "across the batch")


# Integer products: 4-row tiles (37 rows: a remainder of 1), panels of 256 rows of k (300:
# two panels, the second short), 2 vectors of lanes (up to 32 columns: 70 crosses them)
INT_SHAPES = [(37, 70, 300), (4, 32, 256), (1, 1, 9), (3, 5, 1), (6, 33, 0), (200, 3, 17)]


@pytest.mark.parametrize("dtype", INT_TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("layout_a", LAYOUTS_A)
@pytest.mark.parametrize("layout_b", LAYOUTS_B)
def test_integer_products_on_every_layout(dtype, layout_a, layout_b, rng):
    for m, n, k in INT_SHAPES:
        x1, a1 = pair(dtype, (2, m, k), rng, layout_a)
        x2, a2 = pair(dtype, (2, k, n), rng, layout_b)
        check(x1 @ x2, a1 @ a2, dtype)  # NumPy wraps around the same way
        check(x1[1] @ x2[0], a1[1] @ a2[0], dtype)


@pytest.mark.parametrize("dtype", [strided.int8, strided.uint16, strided.int32, strided.int64])
def test_integer_products_into_out_and_addmm(dtype, rng):
    x1, a1 = pair(dtype, (37, 300), rng)
    x2, a2 = pair(dtype, (300, 45), rng, "transposed")
    for out in (
        strided.empty((45, 37), dtype=dtype).T,
        strided.empty((37, 90), dtype=dtype)[:, ::-2],
    ):
        assert strided.matmul(x1, x2, out=out) is out
        check(out, a1 @ a2, dtype)
    c, ac = pair(dtype, (37, 45), rng)
    for alpha, beta in [(3, 2), (1, 0), (7, 0), (0, 5), (1, 1)]:  # uint16 takes no -1
        with np.errstate(over="ignore"):
            want = (
                np.asarray(beta).astype(ac.dtype) * ac
                + np.asarray(alpha).astype(ac.dtype) * (a1 @ a2)
            ).astype(ac.dtype)
        check(strided.addmm(c, x1, x2, alpha=alpha, beta=beta), want, dtype)


@pytest.mark.parametrize("dtype", [strided.int16, strided.int64])
def test_integer_products_do_not_depend_on_threads(dtype, rng):
    x1, a1 = pair(dtype, (203, 300), rng)
    x2, a2 = pair(dtype, (300, 70), rng)
    for threads in (1, 2, 3):
        strided.set_num_threads(threads)
        check(x1 @ x2, a1 @ a2, dtype)
        assert strided.last_matmul_plan()["threads"] == (
            "one" if threads == 1 else "across blocks of rows"
        )


@pytest.mark.parametrize("nbatch,split", [(8, True), (7, False)])
def test_mid_size_products_split_across_the_batch(nbatch, split, rng):
    # Note [Products of a batch across threads] in blas.pyx: 70^3 is above OpenBLAS's
    # one-thread size; at least 4 products a thread split the batch, with OpenBLAS on one
    # thread meanwhile and on strided's count again after
    strided.set_num_threads(2)
    x1, a1 = pair(strided.float64, (nbatch, 70, 70), rng)
    x2, a2 = pair(strided.float64, (nbatch, 70, 70), rng, "transposed")
    check(x1 @ x2, a1 @ a2, strided.float64)
    threads = strided.last_matmul_plan()["threads"]
    assert threads == ("across the batch" if split else "OpenBLAS's own, inside each product")
    assert blas.blas_info()["threads"] == 2
    old = blas._set_batch_split(0)
    try:
        check(x1 @ x2, a1 @ a2, strided.float64)
        assert strided.last_matmul_plan()["threads"] == "OpenBLAS's own, inside each product"
    finally:
        blas._set_batch_split(old)


def test_batch_splits_in_several_python_threads_give_openblas_its_threads_back(rng):
    # Note [Products of a batch across threads]: OpenBLAS is held to one thread while any
    # Python thread is inside a batch split, and gets strided's count back after the last one
    import threading

    strided.set_num_threads(2)
    x1, a1 = pair(strided.float64, (16, 70, 70), rng)
    x2, a2 = pair(strided.float64, (16, 70, 70), rng)
    want = a1 @ a2
    errors = []

    def work():
        try:
            for _ in range(20):
                check(x1 @ x2, want, strided.float64)
        except Exception as e:  # noqa: BLE001 - reported below, in the test's own thread
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads) and not errors
    assert blas.blas_info()["threads"] == 2


@needs_lower_levels
@pytest.mark.parametrize("level", [2, 3])
def test_every_cpu_level(level):
    # each level's build of gemm_loops.h: other vector widths, FMA or not
    script = (
        "import itertools, numpy as np, strided as st\n"
        "rng = np.random.default_rng(5)\n"
        "shapes = [(3, 3, 3), (8, 8, 8), (16, 16, 16), (5, 3, 7), (7, 9, 13), (16, 1, 16),\n"
        "          (1, 1, 16), (1, 1, 37), (2, 13, 4)]\n"
        "for dt, (m, n, k) in itertools.product(('float32', 'float64'), shapes):\n"
        "    a = rng.uniform(-1, 1, (5, m, k)).astype(dt)\n"
        "    b = rng.uniform(-1, 1, (5, k, n)).astype(dt)\n"
        "    r = 1e-4 if dt == 'float32' else 1e-10\n"
        "    for x, y in ((a, b), (a[:, ::-1], b.transpose(0, 2, 1).copy().transpose(0, 2, 1))):\n"
        "        got = np.asarray(st.asarray(x) @ st.asarray(y))\n"
        f"        work = {4096 if level >= 3 else 2048}\n"
        "        tiny = m * n * k <= work or m == n == 1\n"
        "        assert st.last_matmul_plan()['kernel'].startswith('tiny_gemm') == tiny\n"
        "        np.testing.assert_allclose(got, x @ y, rtol=r, atol=r)\n"
        "for dt in ('int8', 'uint16', 'int32', 'int64'):\n"
        "    a = rng.integers(-100, 100, (2, 37, 300)).astype(dt)\n"
        "    b = rng.integers(-100, 100, (2, 300, 70)).astype(dt)\n"
        "    for x, y in ((a, b), (a[:, ::-1], b[..., ::2])):\n"
        "        assert (np.asarray(st.asarray(x) @ st.asarray(y)) == x @ y).all(), dt\n"
        "print('ok')\n"
    )
    run_at_level(level, script)
