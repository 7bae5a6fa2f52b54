"""NumPy's own functions on strided tensors (strided/_numpy_protocols.py, Note [NumPy's
protocols]) and the ufunc methods of strided's elementwise functions (strided/_ops/ufuncs.py,
Note [Ufunc methods on plain functions]), with NumPy on ndarrays as the oracle."""

from __future__ import annotations

import numpy as np
import pytest

import strided

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))
POS = RNG.uniform(0.5, 2.0, (3, 4))
UNIT = RNG.uniform(-0.9, 0.9, (3, 4))
INT = RNG.integers(-5, 6, (3, 4))
POSINT = RNG.integers(1, 4, (3, 4))


def _t(x):
    return strided.asarray(x) if isinstance(x, np.ndarray) else x


def _same(got, want, rtol=1e-12):
    """``got`` is a tensor (or a tuple of them) holding NumPy's ``want``, dtype included."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(g, w, rtol)
        return
    assert isinstance(got, strided.Tensor), type(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-14)


# =============================================================================================
# NEP 13: ufuncs
# =============================================================================================

UFUNC_CASES = [
    (np.exp, (A,)),
    (np.log, (POS,)),
    (np.sqrt, (POS,)),
    (np.sin, (A,)),
    (np.tanh, (A,)),
    (np.arccos, (UNIT,)),  # NumPy's name for strided.acos
    (np.absolute, (A,)),
    (np.negative, (INT,)),
    (np.square, (INT,)),
    (np.floor, (A,)),
    (np.isnan, (A,)),
    (np.conjugate, (A + 1j * B,)),
    (np.invert, (INT,)),
    (np.add, (A, B)),
    (np.subtract, (INT, POSINT)),
    (np.multiply, (A, 2.5)),
    (np.divide, (INT, POSINT)),
    (np.power, (POS, B)),
    (np.maximum, (A, B)),
    (np.minimum, (INT, 0)),
    (np.arctan2, (A, B)),
    (np.hypot, (A, B)),
    (np.logaddexp, (A, B)),
    (np.floor_divide, (INT, POSINT)),
    (np.remainder, (INT, POSINT)),
    (np.fmax, (A, B)),
    (np.left_shift, (POSINT, POSINT)),
    (np.equal, (INT, POSINT)),
    (np.less, (A, B)),
    (np.logical_and, (INT, POSINT)),
    (np.bitwise_xor, (INT, POSINT)),
    (np.divmod, (INT, POSINT)),
    (np.matmul, (A, B.T)),
]


@pytest.mark.parametrize("ufunc,args", UFUNC_CASES, ids=[u.__name__ for u, _ in UFUNC_CASES])
def test_ufunc_runs_strided(ufunc, args):
    _same(ufunc(*[_t(a) for a in args]), ufunc(*args))


def test_ufunc_with_mixed_operands():
    t = strided.asarray(A)
    for got in (np.add(t, B), np.add(B, t), np.add(A[0], t), np.multiply(2, t)):
        assert isinstance(got, strided.Tensor)
    _same(np.add(B, t), B + A)
    _same(np.add(np.float32(1.5), strided.asarray(A, dtype="float32")), A.astype("f4") + 1.5)


def test_ufunc_records_autograd():
    x = strided.asarray([0.5, 1.0]).requires_grad_(True)
    np.sum(np.multiply(np.exp(x), 2)).backward()
    np.testing.assert_allclose(np.asarray(x.grad), 2 * np.exp([0.5, 1.0]))


def test_ufunc_out_is_honoured():
    t = strided.zeros((3, 4))
    assert np.add(A, 1, out=t) is t  # out= a tensor makes NumPy ask strided
    np.testing.assert_array_equal(np.asarray(t), A + 1)
    assert np.exp(strided.asarray(A), out=(t,)) is t  # NEP 13's tuple form
    np.testing.assert_allclose(np.asarray(t), np.exp(A))
    q, r = strided.zeros((3, 4), dtype="int64"), strided.zeros((3, 4), dtype="int64")
    got = np.divmod(strided.asarray(INT), strided.asarray(POSINT), out=(q, r))
    assert got[0] is q and got[1] is r
    np.testing.assert_array_equal(np.asarray(q), INT // POSINT)
    np.testing.assert_array_equal(np.asarray(r), INT % POSINT)
    # an ndarray out= with tensor operands gets strided's values and is returned
    n = np.zeros((3, 4))
    assert np.add(strided.asarray(A), 1, out=n) is n
    np.testing.assert_array_equal(n, A + 1)


def test_ufunc_keywords():
    t, mask = strided.asarray(A), A > 0
    out = strided.full((3, 4), -1.0)
    np.exp(t, out=out, where=strided.asarray(mask))
    np.testing.assert_allclose(np.asarray(out), np.where(mask, np.exp(A), -1.0))
    i8 = strided.asarray(INT, dtype="int8")
    _same(np.add(i8, i8, dtype=np.int16), np.add(INT.astype("i1"), INT.astype("i1"), dtype="i2"))
    ints = strided.zeros((3, 4), dtype="int64")
    with pytest.raises(TypeError, match="cannot write the float64 result into out= of dtype int64"):
        np.add(t, 1, out=ints)
    np.add(t, 0.0, out=ints, casting="unsafe")
    np.testing.assert_array_equal(np.asarray(ints), A.astype(np.int64))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' input"):
        np.add(t, 1, dtype=np.int64)
    with pytest.raises(TypeError, match="numpy.add: strided does not support the keyword order="):
        np.add(t, 1, order="F")
    _same(np.add(t, 1, order="K", subok=False), A + 1)


def test_ufunc_methods_route_to_strided():
    t, i = strided.asarray(A), strided.asarray(INT)
    _same(np.add.reduce(t), np.add.reduce(A))
    _same(np.add.reduce(i, axis=1, keepdims=True), np.add.reduce(INT, axis=1, keepdims=True))
    _same(np.maximum.reduce(t, axis=None), np.maximum.reduce(A, axis=None))
    _same(np.multiply.accumulate(t, axis=1), np.multiply.accumulate(A, axis=1))
    _same(np.subtract.outer(t[0], t[:, 1]), np.subtract.outer(A[0], A[:, 1]))
    out = strided.zeros(4)
    assert np.add.reduce(t, axis=0, out=out) is out
    np.testing.assert_allclose(np.asarray(out), A.sum(0))
    a, ref = strided.zeros(5, dtype="int64"), np.zeros(5, dtype=np.int64)
    assert np.add.at(a, [0, 0, 3, 0], [1, 2, 3, 4]) is None
    np.add.at(ref, [0, 0, 3, 0], [1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(a), ref)


def _missing_ufunc():
    """A binary integer ufunc that strided does not compute (the first of a few candidates:
    strided grows), and its name."""
    from strided._ops.ufuncs import UFUNCS

    for ufunc in (np.gcd, np.lcm, np.ldexp, np.logaddexp2, np.heaviside):
        if ufunc not in UFUNCS:
            return ufunc
    pytest.skip("strided computes every candidate ufunc")


def test_ufunc_strided_lacks_raises_naming_it():
    t, missing = strided.asarray(INT), _missing_ufunc()
    with pytest.raises(TypeError, match=f"numpy.{missing.__name__} is not implemented by strided"):
        missing(t, 4)
    with pytest.raises(TypeError, match="numpy.add.reduceat is not implemented by strided"):
        np.add.reduceat(t, [0, 2])


# =============================================================================================
# NEP 18: functions
# =============================================================================================

S = RNG.standard_normal((4, 4)) + 4 * np.eye(4)
FUNCTION_CASES = [
    ("sum", np.sum, (A,), {}),
    ("sum positional", np.sum, (INT, 0, np.float64, None, True), {}),
    ("mean", np.mean, (A,), {"axis": 1}),
    ("std", np.std, (A,), {}),
    ("std ddof", np.std, (A, 0), {"ddof": 1}),
    ("var", np.var, (A,), {"axis": (0, 1)}),
    ("max", np.max, (A, 1), {}),
    ("argmax", np.argmax, (A, 1), {}),
    ("cumsum", np.cumsum, (INT, 1), {}),
    ("median", np.median, (A,), {"axis": 0}),
    ("concatenate", np.concatenate, ([A, B],), {"axis": 1}),
    ("stack", np.stack, ([A, B],), {}),
    ("vstack", np.vstack, ([A, B],), {}),
    ("where", np.where, (A > 0, A, B), {}),
    ("sort", np.sort, (A, 0), {}),
    ("argsort", np.argsort, (INT,), {"kind": "stable"}),
    ("dot", np.dot, (A, B.T), {}),
    ("outer", np.outer, (A[0], B[0]), {}),
    ("tensordot", np.tensordot, (A, B), {"axes": ([0, 1], [0, 1])}),
    ("einsum", np.einsum, ("ij,kj->ik", A, B), {}),
    ("transpose", np.transpose, (A,), {}),
    ("permute_dims", np.permute_dims, (A[None], (2, 0, 1)), {}),
    ("reshape", np.reshape, (A, (4, 3)), {}),
    ("clip", np.clip, (A, -0.5, 0.5), {}),
    ("round", np.round, (A, 2), {}),
    ("flip", np.flip, (A, 1), {}),
    ("roll", np.roll, (INT, 2), {}),
    ("tile", np.tile, (INT, 2), {}),
    ("repeat", np.repeat, (INT, 2), {}),
    ("take", np.take, (A, [0, 5, 7]), {}),
    ("split", np.split, (A, 2, 1), {}),
    ("diff", np.diff, (A,), {}),
    ("trace", np.trace, (S,), {}),
    ("tril", np.tril, (A,), {}),
    ("unique", np.unique, (INT,), {}),
    ("copy", np.copy, (A.T,), {}),
    ("zeros_like", np.zeros_like, (INT,), {}),
    ("linalg.solve", np.linalg.solve, (S, A[:, :1].repeat(4, 0)[:4]), {}),
    ("linalg.inv", np.linalg.inv, (S,), {}),
    ("linalg.norm", np.linalg.norm, (A,), {}),
    ("linalg.det", np.linalg.det, (S,), {}),
    ("fft.fft", np.fft.fft, (A,), {}),
    ("fft.rfft", np.fft.rfft, (A, 6), {}),
]


@pytest.mark.parametrize(
    "name,func,args,kwargs", FUNCTION_CASES, ids=[c[0] for c in FUNCTION_CASES]
)
def test_function_runs_strided(name, func, args, kwargs):
    targs = [[_t(x) for x in a] if isinstance(a, list) else _t(a) for a in args]
    got, want = func(*targs, **kwargs), func(*args, **kwargs)
    if isinstance(want, list):
        got, want = tuple(got), tuple(want)
    _same(got, want, rtol=1e-10)


def test_function_with_mixed_arguments():
    got = np.concatenate([strided.asarray(A), B])  # one tensor is enough
    _same(got, np.concatenate([A, B]))
    _same(np.where(strided.asarray(A > 0), A, 0.0), np.where(A > 0, A, 0.0))
    assert np.allclose(strided.asarray(A), A) is True or bool(np.allclose(strided.asarray(A), A))


def test_creation_like_a_tensor():
    like = strided.empty((0,))
    got = np.arange(0, 4, 1, np.int32, like=like)  # dtype fourth by position, as Dask calls it
    assert isinstance(got, strided.Tensor) and got.dtype == strided.int32
    np.testing.assert_array_equal(np.asarray(got), np.arange(4))
    _same(np.arange(5, like=like), np.arange(5))


def test_function_writes_an_ndarray_out():
    t, n = strided.asarray(A), np.zeros(4)
    assert np.sum(t, axis=0, out=n) is n
    np.testing.assert_allclose(n, A.sum(0))
    assert np.sum(t, 0, None, n) is n  # out= by position
    m = np.zeros((3, 4))
    np.copyto(m, t)  # into an ndarray: NumPy's copyto reads the tensor
    np.testing.assert_array_equal(m, A)
    u = strided.zeros((3, 4))
    np.copyto(u, B, where=B > 0)  # into a tensor: strided's
    np.testing.assert_array_equal(np.asarray(u), np.where(B > 0, B, 0.0))


def test_functions_numpy_implements_on_any_array():
    t = strided.asarray(A)
    assert np.shape(t) == (3, 4) and np.ndim(t) == 2 and np.size(t) == 12
    assert np.shares_memory(t, t[1:]) and not np.shares_memory(t, strided.asarray(B))
    assert not np.iscomplexobj(t)
    assert np.array2string(t) == np.array2string(A)


def test_asarray_is_not_overridden():
    t = strided.asarray(A)
    a = np.asarray(t)  # __array__ and the buffer protocol, not NEP 18: an ndarray sharing memory
    assert type(a) is np.ndarray and np.shares_memory(a, np.asarray(t))
    assert type(np.array(t)) is np.ndarray


# NumPy's functions outside the modules strided mirrors (numpy, numpy.linalg, numpy.fft)
WINDOWS = np.lib.stride_tricks.sliding_window_view


def test_function_strided_lacks_raises_naming_it():
    with pytest.raises(TypeError, match="numpy.lib.stride_tricks.sliding_window_view is not"):
        WINDOWS(strided.asarray(A), 2, axis=1)


def test_numpy_fallback_converts_when_asked():
    t, i, missing = strided.asarray(A), strided.asarray(INT), _missing_ufunc()
    assert not strided.is_numpy_fallback_enabled()
    with strided.numpy_fallback():
        assert strided.is_numpy_fallback_enabled()
        windows = WINDOWS(t, 2, axis=1)
        _same(windows, WINDOWS(A, 2, axis=1))
        assert windows.data_ptr() == t.data_ptr()  # memory shared both ways
        _same(missing(i, 4), missing(INT, 4))
        out = strided.zeros((3, 4), dtype=missing(INT, 3).dtype.name)
        assert missing(i, 3, out=out) is out  # NumPy writes through the shared memory
        np.testing.assert_array_equal(np.asarray(out), missing(INT, 3))
        with strided.numpy_fallback(False):  # nests, and restores on exit
            with pytest.raises(TypeError, match=f"numpy.{missing.__name__}"):
                missing(i, 4)
        assert strided.is_numpy_fallback_enabled()
    assert not strided.is_numpy_fallback_enabled()
    strided.numpy_fallback(True)  # also a plain switch
    try:
        _same(missing(i, 4), missing(INT, 4))
    finally:
        strided.numpy_fallback(False)
    with pytest.raises(TypeError, match="must be True or False"):
        strided.numpy_fallback("yes")


class _OtherArray:
    """A third library's array: NumPy must let it answer (NEP 13/18)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return "other's ufunc"

    def __array_function__(self, func, types, args, kwargs):
        return "other's function"


def test_other_libraries_get_their_turn():
    t, o = strided.asarray(A), _OtherArray()
    assert np.add(t, o) == "other's ufunc"
    assert np.add(t, 1, out=(o,)) == "other's ufunc"
    assert np.concatenate([t, o]) == "other's function"


# =============================================================================================
# strided's ufunc methods (Note [Ufunc methods on plain functions])
# =============================================================================================


def test_ufunc_attributes():
    for name in ("add", "multiply", "maximum", "logical_or", "bitwise_and", "subtract", "exp"):
        fn, ref = getattr(strided, name), getattr(np, name)
        assert (fn.nin, fn.nout, fn.nargs, fn.identity) == (ref.nin, ref.nout, ref.nargs,
                                                             ref.identity)  # fmt: skip
    assert strided.acos.nin == 1 and strided.abs.nin == strided.absolute.nin == 1
    assert strided.divmod.nout == 2 and strided.matmul.signature == np.matmul.signature
    assert not hasattr(strided.exp, "reduce") and hasattr(strided.exp, "at")
    assert not hasattr(strided.less, "reduce") and hasattr(strided.less, "outer")
    assert strided.add.reduce.__qualname__ == "add.reduce"


REDUCE_CASES = [
    ("add", INT, {}),
    ("add", A, {"axis": None}),
    ("add", INT.astype(np.int8), {"axis": 1}),  # NumPy's add.reduce widens small ints
    ("add", A, {"axis": (0, 1), "keepdims": True, "initial": 10.0}),
    ("add", A, {"axis": 1, "where": A > 0}),
    ("multiply", POSINT, {"axis": 1, "dtype": np.float64}),
    ("maximum", A, {"axis": 1}),
    ("maximum", A, {"axis": 1, "where": A < 0, "initial": -9.0}),
    ("minimum", INT, {"axis": None}),
    ("logical_and", INT, {"axis": 0}),
    ("logical_xor", INT, {"axis": 1}),
    ("bitwise_or", INT, {"axis": 1}),
    ("bitwise_xor", INT, {"axis": 0}),
    ("subtract", A, {"axis": 1}),
    ("subtract", INT, {"axis": 0, "initial": 100}),
    ("divide", POS, {"axis": 1}),
    ("divide", POSINT, {"axis": 0}),  # integers divide into floats
    ("hypot", A, {"axis": (0, 1)}),
    ("logaddexp", A, {"axis": 0}),
    ("fmax", A, {"axis": 0, "keepdims": True}),
    ("add", np.zeros((0, 3)), {"axis": 0}),  # empty: the identity
    ("maximum", np.zeros((0, 3)), {"axis": 0, "initial": 1.0}),
]


@pytest.mark.parametrize("name,x,kwargs", REDUCE_CASES)
def test_reduce_matches_numpy(name, x, kwargs):
    mask = kwargs.get("where")
    ours = dict(kwargs, where=strided.asarray(mask)) if mask is not None else kwargs
    _same(getattr(strided, name).reduce(strided.asarray(x), **ours),
          getattr(np, name).reduce(x, **kwargs))  # fmt: skip
    # the same through NumPy's own ufunc (NEP 13)
    _same(
        getattr(np, name).reduce(strided.asarray(x), **kwargs),
        getattr(np, name).reduce(x, **kwargs),
    )


def test_reduce_errors_are_numpys():
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        strided.maximum.reduce(strided.zeros((0, 2)))
    with pytest.raises(ValueError, match="'subtract' is not reorderable"):
        strided.subtract.reduce(strided.asarray(A), axis=(0, 1))
    with pytest.raises(ValueError, match="'maximum' does not have an identity"):
        strided.maximum.reduce(strided.asarray(A), where=strided.asarray(A > 0))


ACCUMULATE_CASES = [
    ("add", INT.astype(np.int8), 1),
    ("multiply", A, 0),
    ("maximum", A, 1),
    ("minimum", INT, 0),
    ("logical_or", INT > 2, 1),
    ("bitwise_xor", INT, 1),
    ("subtract", A, 1),
    ("divide", POSINT, 1),
]


@pytest.mark.parametrize("name,x,axis", ACCUMULATE_CASES)
def test_accumulate_matches_numpy(name, x, axis):
    want = getattr(np, name).accumulate(x, axis=axis)
    _same(getattr(strided, name).accumulate(strided.asarray(x), axis=axis), want)
    long = np.resize(x, (3, 37))  # several steps of the log-step scan
    _same(getattr(strided, name).accumulate(strided.asarray(long), axis=1),
          getattr(np, name).accumulate(long, axis=1))  # fmt: skip


def test_outer_matches_numpy():
    for name, a, b in [("add", A[0], B[:, 0]), ("less", INT[0], POSINT), ("power", POS[0], 2)]:
        _same(getattr(strided, name).outer(_t(a), _t(b)), getattr(np, name).outer(a, b))
    out = strided.zeros((4, 3))
    assert strided.multiply.outer(_t(A[0]), _t(B[:, 0]), out=out) is out
    np.testing.assert_allclose(np.asarray(out), np.multiply.outer(A[0], B[:, 0]))


AT_CASES = [
    ("add", (slice(None), [0, 0, 3]), 1.5),
    ("add", ([2, 0, 2], [1, 1, 1]), [1.0, 2.0, 3.0]),
    ("subtract", [0, 2, 0], B[:3]),
    ("multiply", ([1, 1, 1], [0, 0, 2]), [2.0, 3.0, 4.0]),
    ("maximum", (slice(None), [3, 3, 1, 3]), B[:, :4]),
    ("minimum", A > 0, -0.25),
    ("divide", (0, [1, 1]), 2.0),
    ("negative", ([0, 0, 0, 2],), None),
    ("exp", (1, [2, 2]), None),
    ("add", (slice(None), 1), 2.0),  # basic indices only: every element once
    ("multiply", (Ellipsis, 0), B[:, 0]),
]


@pytest.mark.parametrize("name,index,b", AT_CASES)
def test_at_matches_numpy(name, index, b):
    ref = A.copy()
    # a non-contiguous tensor: at() writes through the view
    base = strided.asarray(np.ascontiguousarray(A.T)).T
    args = () if b is None else (_t(np.asarray(b)) if isinstance(b, (list, np.ndarray)) else b,)
    assert getattr(strided, name).at(base, index, *args) is None
    getattr(np, name).at(ref, index, *(() if b is None else (b,)))
    np.testing.assert_allclose(np.asarray(base), ref, rtol=1e-14)


def test_at_on_0d_and_empty():
    z = strided.asarray(2.0)
    strided.multiply.at(z, (), 3.0)
    strided.add.at(z, (), 1.0)
    assert z.item() == 7.0
    e = strided.ones(3)
    strided.maximum.at(e, [], strided.zeros(0))
    assert e.tolist() == [1.0, 1.0, 1.0]


def test_at_errors():
    i = strided.zeros(3, dtype="int64")
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype\\('float64'\\)"):
        strided.add.at(i, [0], 1.5)
    with pytest.raises(TypeError, match="must be a strided tensor"):
        strided.add.at(np.zeros(3), [0], 1)
    with pytest.raises(TypeError, match="takes 2 operand"):
        strided.add.at(i, [0])
    strided.add.at(i, [1, 1], 2)
    assert i.tolist() == [0, 4, 0]


def test_add_call_cost_is_untouched():
    # the ufunc methods are attributes of the same function object: strided.add is what the
    # compiled front end made (Note [Ufunc methods on plain functions])
    from strided._cpu import binary

    assert type(strided.add) is type(binary.make_binary("add"))
    assert strided.add.__call__ is not None and "reduce" in strided.add.__dict__
