"""Tests of NumPy's array manipulation and creation routines (strided/_ops/arrays.py,
joining.py), NumPy as the oracle.

The table ``CASES`` holds, for each function, calls written once for both libraries: a case is
``fn(xp, x)`` with ``xp`` the module (``numpy`` or ``strided``) and ``x`` the input, built in
every layout of tests/layouts.py from a few shapes and dtypes. For every (case, layout, dtype)
the two calls must agree: both raise (an exception of NumPy's type; NumPy's ``AxisError`` is
both an IndexError and a ValueError) or both return the same values, shape and dtype; and the
result shares the input's memory exactly when NumPy's does (views stay views, copies stay
copies). Then: the arguments the table cannot express (dtype=, out=, copy=, where=), the error
messages, a device check on "cuda-emulated" (and a real GPU when there is one), and gradcheck.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES, on
from layouts import LAYOUTS, make_layout, make_values

import strided
from strided.autograd import gradcheck

SHAPES = ((5,), (3, 4), (2, 3, 4))
DTYPES = (strided.bool, strided.int32, strided.float32, strided.float64, strided.complex128)


def _case(*calls):
    return list(calls)


CASES = {
    "concatenate": _case(
        lambda xp, x: xp.concatenate([x, x]),
        lambda xp, x: xp.concatenate([x, x], axis=-1),
        lambda xp, x: xp.concatenate([x, x], axis=None),
        lambda xp, x: xp.concatenate((x,), axis=1),
    ),
    "hstack": _case(lambda xp, x: xp.hstack([x, x]), lambda xp, x: xp.hstack((x, x, x))),
    "vstack": _case(lambda xp, x: xp.vstack([x, x])),
    "dstack": _case(lambda xp, x: xp.dstack([x, x])),
    "column_stack": _case(lambda xp, x: xp.column_stack([x, x])),
    "append": _case(
        lambda xp, x: xp.append(x, x),
        lambda xp, x: xp.append(x, x, axis=0),
        lambda xp, x: xp.append(x, x, axis=-1),
    ),
    "array_split": _case(
        lambda xp, x: xp.array_split(x, 2),
        lambda xp, x: xp.array_split(x, 3, axis=-1),
        lambda xp, x: xp.array_split(x, [1, -1, 10], axis=0),
        lambda xp, x: xp.array_split(x, [], axis=0),
    ),
    "split": _case(
        lambda xp, x: xp.split(x, [1, 2]),
        lambda xp, x: xp.split(x, 1, axis=-1),
        lambda xp, x: xp.split(x, 2, 0),  # NumPy's 2 equal parts (not PyTorch's parts of 2)
    ),
    "hsplit": _case(lambda xp, x: xp.hsplit(x, [1, 2]), lambda xp, x: xp.hsplit(x, 1)),
    "vsplit": _case(lambda xp, x: xp.vsplit(x, [1]), lambda xp, x: xp.vsplit(x, 1)),
    "dsplit": _case(lambda xp, x: xp.dsplit(x, [2]), lambda xp, x: xp.dsplit(x, 2)),
    "ravel": _case(
        lambda xp, x: xp.ravel(x),
        lambda xp, x: xp.ravel(x, order="F"),
        lambda xp, x: xp.ravel(x, order="A"),
        lambda xp, x: xp.ravel(x, order="K"),
    ),
    "atleast_1d": _case(lambda xp, x: xp.atleast_1d(x)),
    "atleast_2d": _case(lambda xp, x: xp.atleast_2d(x)),
    "atleast_3d": _case(lambda xp, x: xp.atleast_3d(x)),
    "insert": _case(
        lambda xp, x: xp.insert(x, 1, 1),
        lambda xp, x: xp.insert(x, -1, [1, 0], axis=0),
        lambda xp, x: xp.insert(x, [0, 2, 2, -1], 1, axis=-1),
        lambda xp, x: xp.insert(x, slice(None, None, 2), 0, axis=0),
        lambda xp, x: xp.insert(x, [1], x, axis=0),
        lambda xp, x: xp.insert(x, 2, [[1], [0]], axis=-1),
    ),
    "delete": _case(
        lambda xp, x: xp.delete(x, 1),
        lambda xp, x: xp.delete(x, [0, -1], axis=-1),
        lambda xp, x: xp.delete(x, slice(1, None, 2), axis=0),
        lambda xp, x: xp.delete(x, [], axis=0),
    ),
    "rot90": _case(
        lambda xp, x: xp.rot90(x),
        lambda xp, x: xp.rot90(x, 2),
        lambda xp, x: xp.rot90(x, 3),
        lambda xp, x: xp.rot90(x, -1, axes=(1, 0)),
        lambda xp, x: xp.rot90(x, 4, axes=(0, -1)),
    ),
    "fliplr": _case(lambda xp, x: xp.fliplr(x)),
    "flipud": _case(lambda xp, x: xp.flipud(x)),
    "resize": _case(
        lambda xp, x: xp.resize(x, (3, 7)),
        lambda xp, x: xp.resize(x, 4),
        lambda xp, x: xp.resize(x, (2, 0)),
    ),
    "diag": _case(
        lambda xp, x: xp.diag(x),
        lambda xp, x: xp.diag(x, 1),
        lambda xp, x: xp.diag(x, k=-2),
        lambda xp, x: xp.diag(x, 9),
    ),
    "diagflat": _case(lambda xp, x: xp.diagflat(x), lambda xp, x: xp.diagflat(x, -1)),
    "trace": _case(
        lambda xp, x: xp.trace(x),
        lambda xp, x: xp.trace(x, 1),
        lambda xp, x: xp.trace(x, -1, axis1=-1, axis2=0),
        lambda xp, x: xp.trace(x, 7),
    ),
    "array": _case(
        lambda xp, x: xp.array(x),
        lambda xp, x: xp.array(x, ndmin=3),
        lambda xp, x: xp.array(x, copy=None),
        lambda xp, x: xp.array(x, order="F"),
    ),
    "ascontiguousarray": _case(lambda xp, x: xp.ascontiguousarray(x)),
}


def _raises(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the oracle decides which exception is right
        return None, e


def _flat(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _shares(r, t, rn, a):
    """Whether NumPy's result ``rn`` shares ``a``'s memory, and strided's ``r`` ``t``'s."""
    return np.shares_memory(rn, a), r.untyped_storage() is t.untyped_storage()


def _check(call, t, a):
    """``call`` on strided (tensor t) and NumPy (array a) agree (see the module docstring)."""
    expected, np_err = _raises(lambda: call(np, a))
    got, err = _raises(lambda: call(strided, t))
    if np_err is not None:
        assert err is not None, f"NumPy raised {np_err!r}, strided returned {got!r}"
        ok = (
            (IndexError, ValueError)
            if isinstance(np_err, np.exceptions.AxisError)
            else type(np_err)
        )
        assert isinstance(err, ok), f"NumPy raised {np_err!r}, strided {err!r}"
        return
    assert err is None, f"strided raised {err!r}, NumPy returned {expected!r}"
    _check.compared += 1
    assert isinstance(got, (list, tuple)) == isinstance(expected, (list, tuple))
    for r, rn in zip(_flat(got), _flat(expected), strict=True):
        assert isinstance(r, strided.Tensor)
        assert r.shape == rn.shape
        assert np.dtype(r.dtype.numpy) == rn.dtype, (r.dtype, rn.dtype)
        if rn.dtype.kind in "fc":
            np.testing.assert_allclose(np.asarray(r), rn, rtol=1e-5, equal_nan=True)
        else:
            np.testing.assert_array_equal(np.asarray(r), rn)
        if rn.size and a.size:
            np_view, view = _shares(r, t, rn, a)
            assert view == np_view, f"NumPy's result is {'a view' if np_view else 'a copy'}"


_check.compared = 0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", CASES)
def test_against_numpy(name, dtype):
    rng = np.random.default_rng(0)
    compared = {i: 0 for i in range(len(CASES[name]))}
    for shape in SHAPES:
        ref = make_values(shape, dtype, rng, cast_safe=True)
        for layout in LAYOUTS:
            pair = make_layout(layout, ref, rng)
            if pair is None:
                continue
            t, a = pair
            before = a.copy()
            for i, call in enumerate(CASES[name]):
                try:
                    before_count = _check.compared
                    _check(call, t, a)
                    compared[i] += _check.compared - before_count
                except AssertionError as e:
                    raise AssertionError(f"{name} case {i}, {layout} {shape} {dtype}: {e}") from e
            np.testing.assert_array_equal(np.asarray(t), before)  # inputs left alone
    # every case returns (not only raises) on some inputs, so none of them tests nothing
    assert min(compared.values()) >= 3, compared


def test_every_function_is_tested_and_exported():
    from strided._ops import arrays, construction, joining

    tested = set(CASES) | {
        "tri",
        "identity",
        "frombuffer",
        "logspace",
        "geomspace",
        "copyto",
        "block",  # tests/test_everyday.py
    }
    assert set(arrays.__all__) | set(joining.__all__) | set(construction.__all__) == tested
    for module in (arrays, joining, construction):
        for name in module.__all__:
            assert getattr(strided, name) is getattr(module, name)


# ---------------------------------------------------------------------------------------------
# NumPy-style inputs, mixed dtypes, arguments the table does not cover
# ---------------------------------------------------------------------------------------------


def _same(got, expected):
    assert isinstance(got, strided.Tensor)
    assert np.dtype(got.dtype.numpy) == np.asarray(expected).dtype
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_lists_scalars_and_numpy_arrays():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    for name, args in [
        ("concatenate", ([[1, 2]], [[3.5, 4]])),
        ("hstack", ([1, 2], 3, np.float32(4))),
        ("vstack", ([1, 2], a[0, :2])),
        ("dstack", (a, a)),
        ("column_stack", ([1, 2], a[:, :2])),
    ]:
        _same(getattr(strided, name)(list(args)), getattr(np, name)(list(args)))
    _same(strided.append(a, [7, 8]), np.append(a, [7, 8]))
    _same(strided.insert(a, 1, 9.7, axis=1), np.insert(a, 1, 9.7, axis=1))
    _same(strided.delete(a, [True, False, True], axis=1), np.delete(a, [True, False, True], 1))
    _same(strided.diag([1.5, 2]), np.diag([1.5, 2]))
    _same(strided.trace(a), np.trace(a))
    _same(strided.rot90([[1, 2], [3, 4]]), np.rot90([[1, 2], [3, 4]]))
    _same(strided.resize([1, 2, 3], (2, 2)), np.resize([1, 2, 3], (2, 2)))
    _same(strided.resize(a, np.array([4, 2])), np.resize(a, np.array([4, 2])))
    _same(strided.resize(a, np.int64(4)), np.resize(a, np.int64(4)))
    _same(strided.ravel([[1, 2], [3, 4]]), np.ravel([[1, 2], [3, 4]]))
    for s, n in zip(strided.atleast_2d(1, [2], a), np.atleast_2d(1, [2], a), strict=True):
        _same(s, n)
    for s, n in zip(strided.hsplit(a, 3), np.hsplit(a, 3), strict=True):
        _same(s, n)


def test_stacks_promote_as_numpy():
    i8 = strided.arange(3, dtype="int8")
    u8 = strided.arange(3, dtype="uint8")
    f32 = strided.zeros(3, dtype="float32")
    b = strided.ones(3, dtype="bool")
    for arrays in [(i8, u8), (i8, f32), (b, i8), (u8, strided.asarray([1.0, 2.0, 3.0]))]:
        for name in ("concatenate", "hstack", "vstack", "column_stack", "dstack"):
            got = getattr(strided, name)(list(arrays))
            want = getattr(np, name)([np.asarray(x) for x in arrays])
            _same(got, want)


def test_concatenate_dtype_casting_out():
    x, y = strided.arange(3, dtype="int32"), strided.asarray([1.5, 2.5])
    _same(strided.concatenate([x, y], dtype="float32"), np.concatenate([x, y], dtype="float32"))
    _same(
        strided.concatenate([x, y], dtype="int8", casting="unsafe"),
        np.concatenate([np.asarray(x), np.asarray(y)], dtype="int8", casting="unsafe"),
    )
    with pytest.raises(TypeError, match="cannot cast input 1 from float64 to int8"):
        strided.concatenate([x, y], dtype="int8")
    out = strided.empty(5, dtype="complex128")
    assert strided.concatenate([x, y], out=out) is out
    _same(out, np.concatenate([x, y]).astype(complex))
    with pytest.raises(ValueError, match=r"out= has shape \(4,\)"):
        strided.concatenate([x, y], out=strided.empty(4))
    with pytest.raises(TypeError, match="the result from float64 to int32"):
        strided.concatenate([x, y], out=strided.empty(5, dtype="int32"))
    with pytest.raises(TypeError, match="not both"):
        strided.concatenate([x, y], out=out, dtype="float64")
    _same(strided.hstack([x, y], dtype="float32"), np.hstack([x, y], dtype="float32"))
    _same(strided.vstack([x, x], dtype="int8"), np.vstack([x, x], dtype="int8"))


def test_array_copy_and_order():
    x = strided.arange(6, dtype="float32").reshape(2, 3)
    assert strided.array(x).untyped_storage() is not x.untyped_storage()
    assert strided.array(x, copy=False) is x
    assert strided.array(x, copy=None, ndmin=3).untyped_storage() is x.untyped_storage()
    assert strided.array(x, copy=None, ndmin=3).shape == (1, 2, 3)
    with pytest.raises(ValueError, match="copy=False"):
        strided.array(x, dtype="float64", copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        strided.array(x.T, order="C", copy=False)
    f = strided.array(x, order="F")
    assert f.stride() == (1, 2) and f.T.is_contiguous()
    _same(f, np.asarray(x))
    c = strided.array(x.T, order="C", copy=None)
    assert c.is_contiguous()
    _same(c, np.asarray(x).T)
    _same(strided.array([[1, 2]], dtype="int8", ndmin=4), np.array([[1, 2]], "int8", ndmin=4))
    _same(strided.array(2.5), np.array(2.5))
    n = np.arange(3.0)
    assert np.shares_memory(np.asarray(strided.array(n, copy=False)), n)
    assert not np.shares_memory(np.asarray(strided.array(n)), n)
    with pytest.raises(ValueError, match="order must be one of"):
        strided.array(x, order="X")


def test_ascontiguousarray():
    x = strided.arange(6).reshape(2, 3)
    assert strided.ascontiguousarray(x) is x
    _same(strided.ascontiguousarray(x.T, dtype="float32"), np.ascontiguousarray(x.T, "float32"))
    _same(strided.ascontiguousarray(3.0), np.ascontiguousarray(3.0))


def test_frombuffer():
    buf = bytearray(np.arange(6, dtype=np.int32).tobytes())
    t = strided.frombuffer(buf, dtype="int32", count=4, offset=4)
    _same(t, np.frombuffer(buf, dtype=np.int32, count=4, offset=4))
    buf[4:8] = np.int32(42).tobytes()  # shared, as NumPy's
    assert t[0].item() == 42
    _same(strided.frombuffer(b"\x00" * 16), np.frombuffer(b"\x00" * 16))
    _same(
        strided.frombuffer(b"\x01\x02\x03", dtype=strided.uint8),
        np.frombuffer(b"\x01\x02\x03", "u1"),
    )
    with pytest.raises(ValueError):
        strided.frombuffer(b"\x00" * 5, dtype="int32")


def test_tri_and_identity():
    for args in [(3,), (2, 4), (4, 2, 1), (3, 3, -1), (3, 5, 9), (0,), (3, 0), (2, 3, -7)]:
        _same(strided.tri(*args), np.tri(*args))
    _same(strided.tri(3, dtype="int8"), np.tri(3, dtype="int8"))
    _same(strided.tri(3, k=1, dtype=bool), np.tri(3, k=1, dtype=bool))
    _same(strided.identity(3), np.identity(3))
    _same(strided.identity(2, dtype="complex64"), np.identity(2, dtype="complex64"))
    _same(strided.identity(0, dtype=int), np.identity(0, dtype=int))


SPACES = [
    ((0, 3), {}),
    ((0, 3, 4), {"endpoint": False}),
    ((1, 2, 5), {"base": 2.0}),
    ((2, 2, 3), {}),
    ((0, 1, 1), {}),
    ((0, 1, 0), {}),
    ((0.5, -1.5, 7), {"dtype": "float32"}),
    ((0, 3, 4), {"dtype": "int64"}),
    (([0, 1], [2, 3], 3), {}),
    (([0, 1], [2, 3], 3), {"axis": 1}),
    (([0, 1], 3, 3), {"axis": -1}),
    ((0, 2, 3), {"base": [2.0, 10.0], "axis": -1}),
    ((0, [2, 3], 3), {"base": np.array([[2.0], [10.0]]), "axis": 1}),
    ((np.float32(0), np.float32(1), 3), {}),
]


@pytest.mark.parametrize("args,kwargs", SPACES)
def test_logspace(args, kwargs):
    want = np.logspace(*args, **kwargs)
    got = strided.logspace(*args, **kwargs)
    assert got.shape == want.shape and np.dtype(got.dtype.numpy) == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


GEOMS = [
    ((1, 1000, 4), {}),
    ((1, 1000, 4), {"endpoint": False}),
    ((-1, -1000, 4), {}),
    ((1, 2, 1), {}),
    ((1, 2, 0), {}),
    ((8, 2, 3), {"dtype": "int32"}),
    ((2, 100, 5), {"dtype": "float32"}),
    (([1, -1], [1000, -1000], 4), {"axis": 1}),
    (([1, 10], 1000, 3), {"axis": -1}),
    ((1j, 1000j, 4), {}),
    ((np.float32(1), np.float32(8), 4), {}),
]


@pytest.mark.parametrize("args,kwargs", GEOMS)
def test_geomspace(args, kwargs):
    want = np.geomspace(*args, **kwargs)
    got = strided.geomspace(*args, **kwargs)
    assert got.shape == want.shape and np.dtype(got.dtype.numpy) == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_copyto():
    rng = np.random.default_rng(1)
    for layout in ("contiguous", "transposed", "stepped", "negative-stride"):
        t, a = make_layout(layout, make_values((3, 4), strided.float64, rng, cast_safe=True))
        src = np.arange(4, dtype=np.int32)
        mask = np.array([[True], [False], [True]])
        strided.copyto(t, strided.asarray(src), where=mask)
        np.copyto(a, src, where=mask)
        np.testing.assert_array_equal(np.asarray(t), a)
        strided.copyto(t, 2.5)
        np.copyto(a, 2.5)
        np.testing.assert_array_equal(np.asarray(t), a)
        strided.copyto(t, [[1], [2], [3]], where=True)
        np.copyto(a, [[1], [2], [3]])
        np.testing.assert_array_equal(np.asarray(t), a)
    u = strided.zeros(3, dtype="uint8")
    strided.copyto(u, 255)
    strided.copyto(u, strided.asarray([1.7, 2.2, -0.2]), casting="unsafe", where=[1, 0, 0] == 1)
    x = strided.zeros(3, dtype="uint8")
    strided.copyto(x, np.array([7, 8, 9], dtype=np.uint8), where=np.array([True, False, True]))
    _same(x, np.array([7, 0, 9], dtype=np.uint8))
    b = strided.zeros(2, dtype="bool")
    strided.copyto(b, True)
    _same(b, np.ones(2, bool))
    f = strided.zeros(2, dtype="float32")
    strided.copyto(f, strided.asarray([1.0, 2.0]))  # float64 -> float32 is same_kind
    _same(f, np.array([1.0, 2.0], np.float32))


# ---------------------------------------------------------------------------------------------
# Errors: NumPy's exception types, messages naming the argument and what would work
# ---------------------------------------------------------------------------------------------

M = strided.zeros((2, 3))
V = strided.zeros(5)

ERRORS = [
    (lambda: strided.concatenate([V, M]), ValueError, "same number of dimensions"),
    (lambda: strided.concatenate([V, V], axis=1), IndexError, "axis=1 is out of range"),
    (lambda: strided.concatenate([strided.zeros(()), V]), ValueError, "zero-dimensional"),
    (lambda: strided.concatenate([]), ValueError, "need at least one array"),
    (lambda: strided.concatenate(V[0]), TypeError, "list or tuple of arrays"),
    (lambda: strided.concatenate([M, M], dtype="int8"), TypeError, "rule 'same_kind'"),
    (lambda: strided.concatenate([M], casting="bad"), ValueError, "casting must be one of"),
    (lambda: strided.vstack([V, strided.zeros(4)]), ValueError, "differs from input 0"),
    (lambda: strided.vstack([]), ValueError, "need at least one array"),
    (lambda: strided.array_split(V, 0), ValueError, "number sections must be larger than 0"),
    (lambda: strided.array_split(V, 2.5), TypeError, "indices_or_sections must be an integer"),
    (lambda: strided.array_split(V, 2, axis=1), IndexError, "axis=1 is out of range"),
    (lambda: strided.hsplit(V, 2), ValueError, "equal division"),
    (lambda: strided.hsplit(strided.zeros(()), 1), ValueError, "1 or more dimensions"),
    (lambda: strided.vsplit(V, 1), ValueError, "2 or more dimensions"),
    (lambda: strided.dsplit(M, 1), ValueError, "3 or more dimensions"),
    (lambda: strided.ravel(M, order="X"), ValueError, "order must be one of"),
    (lambda: strided.insert(V, 6, 1), IndexError, "index 6 is out of bounds for axis 0"),
    (lambda: strided.insert(V, [1.5], 1), IndexError, "must be integers"),
    (lambda: strided.insert(V, [True], 1), IndexError, "not booleans"),
    (lambda: strided.insert(M, [0, 1], [1, 2, 3], axis=1), ValueError, "could not broadcast"),
    (lambda: strided.insert(M, 1, 1, axis=2), IndexError, "axis=2 is out of range"),
    (lambda: strided.delete(V, -6), IndexError, "index -6 is out of bounds"),
    (lambda: strided.delete(V, [True, False]), ValueError, "match the axis length of 5"),
    (lambda: strided.delete(M, [[0]], axis=0), ValueError, "1-D sequence"),
    (lambda: strided.rot90(M, axes=(0,)), ValueError, "len(axes) must be 2"),
    (lambda: strided.rot90(M, axes=(1, -1)), ValueError, "Axes must be different"),
    (lambda: strided.rot90(M, axes=(0, 3)), ValueError, "out of range"),
    (lambda: strided.rot90(M, k=1.0), TypeError, "k must be an integer"),
    (lambda: strided.fliplr(V), ValueError, "Input must be >= 2-d"),
    (lambda: strided.flipud(strided.zeros(())), ValueError, "Input must be >= 1-d"),
    (lambda: strided.resize(V, (-1, 2)), ValueError, "must be non-negative"),
    (lambda: strided.resize(V, 2.0), TypeError, "new_shape must be an int or a sequence"),
    (lambda: strided.diag(strided.zeros((2, 2, 2))), ValueError, "Input must be 1- or 2-d"),
    (lambda: strided.trace(V), ValueError, "at least two dimensions"),
    (lambda: strided.trace(M, axis1=1, axis2=-1), ValueError, "cannot be the same"),
    (lambda: strided.trace(M, axis2=2), IndexError, "axis2=2 is out of range"),
    (lambda: strided.identity(-1), ValueError, "non-negative"),
    (lambda: strided.tri(2, like=M), TypeError, "like= is not supported"),
    (lambda: strided.logspace(0, 1, -1), ValueError, "must be non-negative"),
    (lambda: strided.geomspace(0, 1), ValueError, "cannot include zero"),
    (lambda: strided.geomspace([1, 2], [3, -0.0]), ValueError, "cannot include zero"),
    (lambda: strided.copyto([1, 2], 1), TypeError, "must be a strided tensor"),
    (lambda: strided.copyto(V, 1j), TypeError, "rule 'same_kind'"),
    (lambda: strided.copyto(V, M), ValueError, "could not broadcast src of shape (2, 3)"),
    (lambda: strided.copyto(V, 1, where=[1, 0, 1, 0, 1]), TypeError, "boolean mask"),
    (lambda: strided.copyto(V, 1, where=[True, False]), ValueError, "where of shape (2,)"),
    (lambda: strided.copyto(strided.zeros(2, dtype="uint8"), 300), OverflowError, "300 out"),
    (
        lambda: strided.copyto(strided.zeros(2, dtype="int8"), strided.zeros(2)),
        TypeError,
        "src from float64 to int8",
    ),
    (lambda: strided.copyto(strided.zeros(2, dtype=bool), 1), TypeError, "int 1 to bool"),
]


@pytest.mark.parametrize("fn,exc,fragment", ERRORS)
def test_errors(fn, exc, fragment):
    with pytest.raises(exc) as info:
        fn()
    assert fragment in str(info.value)


# ---------------------------------------------------------------------------------------------
# Devices: the compositions run where their parts run, and stay there
# ---------------------------------------------------------------------------------------------

DEVICE_CASES = [
    lambda xp, x: xp.concatenate([x, x], axis=1),
    lambda xp, x: xp.hstack([x, [[1.0], [2.0], [3.0]]]),
    lambda xp, x: xp.vstack([x, x[0]]),
    lambda xp, x: xp.insert(x, [0, 2], 5.0, axis=1),
    lambda xp, x: xp.delete(x, [1], axis=0),
    lambda xp, x: xp.rot90(x),
    lambda xp, x: xp.resize(x, (5, 3)),
    lambda xp, x: xp.diag(x[0], 1),
    lambda xp, x: xp.diag(x, -1),
    lambda xp, x: xp.trace(x),
    lambda xp, x: xp.ravel(x.T),
    lambda xp, x: xp.array_split(x, 2, axis=1)[1],
]


@pytest.mark.parametrize("device", DEVICES)
def test_on_device(device):
    ref = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.5 - 1
    t = on(device, strided.tensor(ref))
    for i, call in enumerate(DEVICE_CASES):
        got = call(strided, t)
        assert got.device == t.device, f"case {i}"
        np.testing.assert_array_equal(got.cpu().numpy(), call(np, ref.copy()), err_msg=f"case {i}")
    for got, want in [
        (strided.logspace(0, 2, 3, device=device), np.logspace(0, 2, 3)),
        (strided.geomspace(t[1, 1:3], 8.0, 3, axis=1), np.geomspace(ref[1, 1:3], 8.0, 3, axis=1)),
        (strided.geomspace(strided.ones(2), 8, 4, device=device), np.geomspace(np.ones(2), 8, 4)),
        (strided.tri(3, 2, dtype="int32", device=device), np.tri(3, 2, dtype="int32")),
        (strided.identity(2, device=device), np.identity(2)),
    ]:
        assert got.device.type == t.device.type
        np.testing.assert_allclose(got.cpu().numpy(), want)
    dst = on(device, strided.zeros((3, 4)))
    strided.copyto(dst, [1.0, 2.0, 3.0, 4.0], where=[True, False, True, False])
    want = np.zeros((3, 4))
    np.copyto(want, [1.0, 2.0, 3.0, 4.0], where=[True, False, True, False])
    assert dst.device == t.device
    np.testing.assert_array_equal(dst.cpu().numpy(), want)


# ---------------------------------------------------------------------------------------------
# Autograd: differentiated through the ops they are made of
# ---------------------------------------------------------------------------------------------


def _leaf(shape, seed=0):
    rng = np.random.default_rng(seed)
    return strided.tensor(rng.standard_normal(shape), requires_grad=True)


GRADS = [
    ("concatenate", lambda x, y: strided.concatenate([x, y.T], axis=None), [(2, 3), (2, 3)]),
    ("hstack", lambda x, y: strided.hstack([x, y]), [(2, 3), (2, 1)]),
    ("vstack", lambda x, y: strided.vstack([x[0], y]), [(2, 3), (2, 3)]),
    ("append", lambda x, y: strided.append(x, y, axis=1), [(2, 3), (2, 2)]),
    ("diag-1d", lambda x: strided.diag(x, -2), [(3,)]),
    ("diag-2d", lambda x: strided.diag(x, 1), [(3, 4)]),
    ("diagflat", lambda x: strided.diagflat(x, 1), [(2, 2)]),
    ("trace", lambda x: strided.trace(x, 1, axis1=2, axis2=0), [(3, 2, 4)]),
    ("rot90", lambda x: strided.rot90(x, 3, axes=(2, 0)) * 2, [(2, 3, 4)]),
    ("fliplr", lambda x: strided.fliplr(x) * 2, [(2, 3)]),
    ("insert", lambda x, y: strided.insert(x, [2, 0, 2], y, axis=1), [(2, 3), (2, 1)]),
    ("insert-block", lambda x, y: strided.insert(x, 1, y, axis=0), [(3, 2), (2, 2)]),
    ("delete", lambda x: strided.delete(x, [0, 2], axis=1), [(2, 4)]),
    ("resize", lambda x: strided.resize(x.T, (3, 5)), [(2, 3)]),
    ("ravel", lambda x: strided.ravel(x.T) * 1, [(2, 3)]),
]


@pytest.mark.parametrize("name,fn,shapes", GRADS, ids=[g[0] for g in GRADS])
def test_gradcheck(name, fn, shapes):
    inputs = tuple(_leaf(s, i) for i, s in enumerate(shapes))
    assert gradcheck(fn, inputs)


def test_elementwise_methods_are_the_functions_themselves():
    # _tensor._method: a Python or Cython function binds as a method without a wrapper
    assert strided.Tensor.exp is strided.exp and strided.Tensor.add is strided.add
    assert strided.Tensor.lt is strided.less  # PyTorch's alias, the same function
    a = np.array([[0.5, 1.0, 2.0]])
    t = strided.asarray(a)
    out = strided.empty((1, 3), dtype="float64")
    np.testing.assert_allclose(np.asarray(t.exp()), np.exp(a))
    assert t.exp(out=out) is out
    np.testing.assert_allclose(np.asarray(out), np.exp(a))
    np.testing.assert_array_equal(np.asarray(t.T.add(1)), a.T + 1)
    np.testing.assert_array_equal(np.asarray(t.lt(1.0)), a < 1.0)


def test_numpy_method_spellings_on_the_tensor():
    """NumPy's ndarray methods that strided spells otherwise: copy, fill, conjugate, trace,
    searchsorted, partition, argpartition, tobytes; and the Array API's to_device."""
    a = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 6.0]])
    t = strided.asarray(a.copy())
    c = t.copy()
    assert c.untyped_storage() is not t.untyped_storage()
    assert c.fill(2.0) is None
    np.testing.assert_array_equal(np.asarray(c), np.full((2, 3), 2.0))
    np.testing.assert_array_equal(np.asarray(t), a)  # the copy was filled, not t
    z = strided.asarray(a + 1j * a)
    np.testing.assert_array_equal(np.asarray(z.conjugate()), (a + 1j * a).conjugate())
    assert float(t.trace()) == a.trace() and float(t.trace(offset=1)) == a.trace(offset=1)
    s = strided.asarray([1, 3, 5])
    np.testing.assert_array_equal(np.asarray(s.searchsorted([2, 5], side="right")), [1, 3])
    p = t.copy()
    assert p.partition(1, axis=1) is None  # in place, as NumPy
    np.testing.assert_array_equal(np.asarray(p)[:, 1], np.partition(a, 1, axis=1)[:, 1])
    idx = np.asarray(t.argpartition(1))
    np.testing.assert_array_equal(np.take_along_axis(a, idx, 1)[:, 1], np.sort(a, 1)[:, 1])
    for order in ("C", "F"):
        assert t.T.tobytes(order) == a.T.tobytes(order)
    d = t.to_device("cuda-emulated")
    assert d.device == strided.device("cuda-emulated") and d.to_device("cuda-emulated") is d
    assert d.tobytes() == a.tobytes()
    with pytest.raises(ValueError, match="stream"):
        t.to_device("cpu", stream=1)
