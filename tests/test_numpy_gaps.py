"""NumPy's everyday functions that strided lacked, against NumPy: packing bits
(strided/_ops/bits.py), the dtype questions and ``isfortran`` (_ops/arrayinfo.py), reading
numbers from files, strings and iterables (serialization.py), NumPy's printing functions
(_format.py) and ``polydiv`` (_ops/polynomial.py); and the list of NumPy's functions strided
still does not have, each with its reason, kept honest."""

from __future__ import annotations

import io

import numpy as np
import pytest
from layouts import layouts

import strided

# NumPy's public functions that strided leaves out, and why
NOT_STRIDED = {
    # NumPy's matrix class and its helpers: strided has tensors only
    "asmatrix": "matrix", "bmat": "matrix",
    # datetime64 and timedelta64: no such dtypes
    "busday_count": "datetime", "busday_offset": "datetime", "is_busday": "datetime",
    "datetime_as_string": "datetime", "datetime_data": "datetime", "isnat": "datetime",
    # NumPy's own machinery and installation
    "get_include": "NumPy's C headers", "show_config": "NumPy's build", "test": "NumPy's tests",
    "show_runtime": "NumPy's runtime", "info": "NumPy's help", "getbufsize": "ufunc buffers",
    "setbufsize": "ufunc buffers", "nested_iters": "nditer", "frompyfunc": "object ufuncs",
    # answers in NumPy's type codes or scalar types, which strided's dtypes do not use
    "mintypecode": "type codes", "typename": "type codes", "min_scalar_type": "value-based casting",
    # einsum's contraction planner (opt_einsum's), not a computation
    "einsum_path": "planner",
    # text formatting of Python floats (no tensor in them), and regex parsing of files
    "format_float_positional": "Python floats", "format_float_scientific": "Python floats",
    "fromregex": "structured dtypes",
    # NumPy 2's deprecated alias of vstack
    "row_stack": "deprecated",
    # the lower triangle's indices by a function of a matrix: rare, tril_indices covers it
    "mask_indices": "rare",
}  # fmt: skip


def test_the_numpy_functions_strided_lacks_are_listed():
    names = {
        n
        for n in dir(np)
        if not n.startswith("_")
        and callable(getattr(np, n))
        and not isinstance(getattr(np, n), type)
    }
    missing = {n for n in names if not hasattr(strided, n)}
    assert missing <= set(NOT_STRIDED), sorted(missing - set(NOT_STRIDED))


@pytest.mark.parametrize("bitorder", ["big", "little"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64"])
def test_packbits_and_unpackbits_match_numpy(dtype, bitorder):
    rng = np.random.default_rng(0)
    ref = rng.integers(0, 3, (3, 11)).astype(dtype)
    for layout, t, a in layouts(ref, rng):
        a = np.asarray(a)
        for axis in [None, *range(a.ndim)]:
            want = np.packbits(a, axis=axis, bitorder=bitorder)
            got = strided.packbits(t, axis=axis, bitorder=bitorder)
            np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"{layout} {axis}")
            assert np.asarray(got).dtype == np.uint8
            for count in (None, 3, -2, 40, 0) if want.size else (None, 0):
                # (NumPy leaves the padding of an empty input's count unwritten: its memory)
                w = np.unpackbits(want, axis=axis, count=count, bitorder=bitorder)
                g = strided.unpackbits(got, axis=axis, count=count, bitorder=bitorder)
                np.testing.assert_array_equal(np.asarray(g), w, err_msg=f"{layout} {axis} {count}")
    with pytest.raises(TypeError):
        strided.packbits(strided.ones(3))  # NumPy: integers and bools only
    with pytest.raises(TypeError):
        strided.unpackbits(strided.ones(3, dtype=strided.int64))


KINDS = (np.generic, np.number, np.integer, np.signedinteger, np.inexact, np.floating,
         np.complexfloating, np.float32, np.int64, float, int)  # fmt: skip


def test_dtype_questions():
    for d in ("bool", "int8", "uint16", "int64", "float16", "float32", "complex128"):
        for kind in KINDS:
            want = np.issubdtype(np.dtype(d), kind)
            assert strided.issubdtype(getattr(strided, d), kind) == want, (d, kind)
    assert strided.issubdtype(strided.bfloat16, np.floating)
    assert not strided.issubdtype(strided.bfloat16, np.integer)
    assert not strided.issubdtype(strided.bfloat16, strided.float16)
    assert strided.issubdtype(strided.bfloat16, strided.bfloat16)
    i, f, c = (
        strided.arange(3),
        strided.ones(2, dtype="float32"),
        strided.ones(1, dtype="complex64"),
    )
    assert strided.common_type(i) is strided.float64
    assert strided.common_type(f) is strided.float32
    assert strided.common_type(f, c) is strided.complex64
    assert strided.common_type(i, c) is strided.complex128
    with pytest.raises(TypeError):
        strided.common_type(strided.ones(2, dtype="bool"))
    x = strided.ones((2, 3))
    for t in (x, x.T, x[0], strided.ones((1, 3)).T):
        assert strided.isfortran(t) == np.isfortran(np.asarray(t)), t.strides


def test_reading_numbers(tmp_path):
    path = tmp_path / "x.bin"
    np.arange(6, dtype=np.int32).tofile(path)
    np.testing.assert_array_equal(
        np.asarray(strided.fromfile(path, dtype=strided.int32, count=4, offset=4)),
        np.fromfile(path, dtype=np.int32, count=4, offset=4),
    )
    text = tmp_path / "x.txt"
    text.write_text("1.5, 2.5, 3.5")
    np.testing.assert_array_equal(
        np.asarray(strided.fromfile(text, sep=",")), np.fromfile(text, sep=",")
    )
    got = strided.fromstring("1 2 3", dtype=strided.int32, sep=" ")
    assert got.dtype is strided.int32 and got.tolist() == [1, 2, 3]
    got = strided.fromiter((i / 2 for i in range(5)), dtype=strided.float32, count=3)
    assert got.dtype is strided.float32 and got.tolist() == [0.0, 0.5, 1.0]
    got = strided.fromiter(iter([1.0, 2.0]), dtype=strided.bfloat16)
    assert got.dtype is strided.bfloat16 and got.tolist() == [1.0, 2.0]


def test_printing_functions():
    a = np.array([[1 / 3, 2.5], [-1e-9, 1e9]])
    t = strided.asarray(a)
    for kw in ({}, {"precision": 3}, {"suppress_small": True}, {"max_line_width": 20}):
        assert strided.array2string(t, **kw) == np.array2string(a, **kw), kw
    assert strided.array2string(t, separator=", ") == np.array2string(a, separator=", ")
    assert strided.array_repr(t) == repr(t)
    with strided.printoptions(precision=2):
        want = str(t)
    assert strided.array_str(t, precision=2) == want and strided.array_str(t) == str(t)
    assert strided.binary_repr(strided.asarray(5)) == np.binary_repr(5)
    assert strided.binary_repr(-3, width=8) == np.binary_repr(-3, width=8)
    assert strided.base_repr(-255, 16, 2) == np.base_repr(-255, 16, 2)


@pytest.mark.parametrize(
    "u,v",
    [
        ([3.0, 5.0, 2.0], [2.0, 1.0]),
        ([1, 0, -1], [1, -1]),
        ([1.0], [2.0, 1.0]),
        ([1 + 1j, 2, 3], [1j, 1]),
        ([4.0, 0.0, 0.0, 1.0], [2.0, 0.0, 1.0]),
        (5.0, 2.0),
    ],
)
def test_polydiv_matches_numpy(u, v):
    q, r = strided.polydiv(u, v)
    wq, wr = np.polydiv(u, v)
    for g, w in ((q, wq), (r, wr)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
        np.testing.assert_allclose(g, w, rtol=1e-14)
    buf = io.StringIO()
    print(q, file=buf)  # a tensor, printable
