"""Test inputs in every memory layout, and interesting values for every dtype.

``layouts(ref)`` yields ``(name, tensor, array)`` triples: a strided tensor and a NumPy array
that hold the same values in the same layout (same shape, same strides, same offset into a
storage of the same size). Both sides start from one flat buffer and then apply the *same* view
operations, strided's own ``reshape``/``__getitem__``/``.T``/``expand`` on one side and NumPy's on
the other, so strided's view code is exercised by the very act of building its inputs. The
tensor's storage is its own (``strided.tensor`` copies), never NumPy's memory, so a write through
one side is not seen by the other.

Values per layout:

- "contiguous", "transposed", "stepped", "negative-stride": exactly ``ref``;
- "expanded": ``ref``'s first slice along one dim, broadcast back to ``ref.shape`` (stride 0);
- "0-d": ``ref``'s first element;
- "empty": ``ref`` with one dim sliced to length 0.

Every layout's storage holds at least ``MIN_STORAGE`` elements (``as_strided`` samples in
``opinfo.py`` rely on it), and the numpy side is a view of a flat array standing for the storage
(``numpy_storage`` finds it), so that storage offsets can be compared.
"""

from __future__ import annotations

import math

import numpy as np

import strided

__all__ = [
    "ALL_DTYPES",
    "HALF_DTYPES",
    "LAYOUTS",
    "has_exact_overlap",
    "MIN_STORAGE",
    "layouts",
    "make_layout",
    "make_values",
    "numpy_storage",
    "to_numpy_dtype",
]

ALL_DTYPES = (
    strided.bool,
    strided.int8,
    strided.int16,
    strided.int32,
    strided.int64,
    strided.uint8,
    strided.uint16,
    strided.uint32,
    strided.uint64,
    strided.float32,
    strided.float64,
    strided.complex64,
    strided.complex128,
)

# float16 and bfloat16 (issue 18). The OpInfo tests run them over every layout, with NumPy's
# float16 as the float16 oracle and float32 arithmetic rounded once to bfloat16 as the bfloat16
# oracle (NumPy has no bfloat16; ml_dtypes' array type stands for it). They are not in
# ALL_DTYPES, which the all-pairs promotion tests walk: test_half.py checks the halves' rows of
# the promotion table.
HALF_DTYPES = (strided.float16, strided.bfloat16)

LAYOUTS = (
    "contiguous",
    "transposed",
    "stepped",
    "negative-stride",
    "expanded",
    "0-d",
    "empty",
)

MIN_STORAGE = 4


def to_numpy_dtype(dtype):
    """The NumPy dtype for a strided DType (or anything np.dtype accepts)."""
    return np.dtype(dtype.numpy) if isinstance(dtype, strided.DType) else np.dtype(dtype)


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


def _pick(pool, rand, rng, n):
    """Mix: about a third of the entries from ``pool``, the rest from ``rand``."""
    pool = np.asarray(pool, dtype=rand.dtype)
    from_pool = rng.random(n) < 0.35
    out = rand.copy()
    out[from_pool] = pool[rng.integers(0, len(pool), n)][from_pool]
    return out


def _floats(n, dt, rng, cast_safe):
    if cast_safe:
        # In (-1, 127]: truncation toward zero lands inside every integer dtype (int8's max is
        # 127; -0.9 truncates to 0, which fits unsigned types), where C and NumPy agree.
        rand = rng.uniform(-0.99, 127.0, n).astype(dt)
        pool = [0.0, -0.0, 0.5, -0.5, 1.0, 126.75, 127.0, 3.25]
    else:
        big = 1e30 if dt == np.float32 else 1e300
        rand = (rng.normal(0.0, 100.0, n) * rng.choice([1e-3, 1.0, 1e3], n)).astype(dt)
        pool = [0.0, -0.0, 0.5, -1.5, big, -big, 1e-30, np.inf, -np.inf, np.nan, -2.75]
    return _pick(pool, rand, rng, n)


_HALF_NUMPY = {to_numpy_dtype(d) for d in HALF_DTYPES}


def make_values(shape, dtype, rng, *, cast_safe=False):
    """A NumPy array of ``shape`` and ``dtype`` holding interesting values.

    bool: both values. Signed ints: negatives, the extremes, small numbers. Unsigned: 0, the
    max, small numbers. Floats: fractions, -0.0, huge and tiny values, inf and nan. Complex: a
    float for each part, independently. With ``cast_safe``, floats (and complex parts) stay in
    (-1, 127] and are finite, so that casting them to any integer dtype is defined.
    """
    dt = to_numpy_dtype(dtype)
    n = math.prod(shape)
    if dt in _HALF_NUMPY:
        # float32's interesting values, rounded once: 1e30 becomes float16's inf, 1e-30 its 0
        return make_values(shape, np.float32, rng, cast_safe=cast_safe).astype(dt)
    if dt.kind == "b":
        flat = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        full = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        small = rng.integers(max(info.min, -100), 101, n).astype(dt)
        rand = np.where(rng.random(n) < 0.5, full, small)
        pool = [0, 1, info.max, info.max - 1, 2]
        if dt.kind == "i":
            pool += [-1, info.min, info.min + 1, -7]
        flat = _pick(pool, rand, rng, n)
    elif dt.kind == "f":
        flat = _floats(n, dt, rng, cast_safe)
    elif dt.kind == "c":
        part = np.float32 if dt == np.complex64 else np.float64
        flat = np.empty(n, dt)
        flat.real = _floats(n, np.dtype(part), rng, cast_safe)
        flat.imag = _floats(n, np.dtype(part), rng, cast_safe)
    else:
        raise TypeError(f"make_values: unsupported dtype {dt}")
    return flat.reshape(shape)


# ---------------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------------


def _filler(n, dt, rng):
    return make_values((n,), dt, rng)


def _pair(store, build_strided, build_numpy=None):
    """(tensor, array): ``build`` applied to strided's own copy of ``store`` and to NumPy's."""
    t = build_strided(strided.tensor(store))
    a = (build_numpy or build_strided)(store.copy())
    return t, a


def _padded(flat, rng):
    """``flat`` followed by filler up to MIN_STORAGE elements."""
    if flat.size >= MIN_STORAGE:
        return flat
    return np.concatenate([flat, _filler(MIN_STORAGE - flat.size, flat.dtype, rng)])


def make_layout(name, ref, rng=None):
    """The (tensor, array) pair of layout ``name`` built from ``ref``, or None when the layout
    does not apply to ``ref``'s number of dims (see the module docstring)."""
    rng = np.random.default_rng(0) if rng is None else rng
    ref = np.asarray(ref)
    shape, nd, n, dt = ref.shape, ref.ndim, ref.size, ref.dtype

    if name == "contiguous":
        store = _padded(ref.reshape(-1), rng)
        return _pair(store, lambda x: x[:n].reshape(shape))

    if name == "transposed":
        if nd < 2:
            return None
        store = _padded(np.ascontiguousarray(ref.T).reshape(-1), rng)
        return _pair(store, lambda x: x[:n].reshape(shape[::-1]).T)

    if name == "stepped":
        if nd < 1:
            return None
        # Allocate bigger, then take every 2nd row starting at 1 (a storage offset) and, for
        # 2+ dims, every 3rd column.
        if nd == 1:
            big_shape = (2 * shape[0] + 1,)
            index = (slice(1, None, 2),)
        else:
            big_shape = (2 * shape[0] + 1,) + shape[1:-1] + (3 * shape[-1],)
            index = (slice(1, None, 2), Ellipsis, slice(None, None, 3))
        big = _filler(math.prod(big_shape), dt, rng).reshape(big_shape)
        big[index] = ref
        store = _padded(big.reshape(-1), rng)
        m = big.size
        return _pair(store, lambda x: x[:m].reshape(big_shape)[index])

    if name == "negative-stride":
        if nd < 1:
            return None
        index = (
            (slice(None, None, -1),)
            if nd == 1
            else (slice(None, None, -1), Ellipsis, slice(None, None, -1))
        )
        store = _padded(np.ascontiguousarray(ref[index]).reshape(-1), rng)
        return _pair(store, lambda x: x[:n].reshape(shape)[index])

    if name == "expanded":
        big_dims = [d for d in range(nd) if shape[d] > 1]
        if not big_dims:
            return None
        d = big_dims[len(big_dims) // 2]
        small = ref[(slice(None),) * d + (slice(0, 1),)]
        k = small.size
        store = _padded(np.ascontiguousarray(small).reshape(-1), rng)
        return _pair(
            store,
            lambda x: x[:k].reshape(small.shape).expand(shape),
            lambda x: np.broadcast_to(x[:k].reshape(small.shape), shape),
        )

    if name == "0-d":
        first = ref.reshape(-1)[:1] if n else _filler(1, dt, rng)
        store = np.concatenate([_filler(2, dt, rng), first, _filler(2, dt, rng)])
        return _pair(store, lambda x: x[2], lambda x: x[2, ...])

    if name == "empty":
        if nd < 1:
            return None
        d = 1 if nd >= 2 else 0
        index = (slice(None),) * d + (slice(1, 1),)
        store = _padded(ref.reshape(-1), rng)
        return _pair(store, lambda x: x[:n].reshape(shape)[index])

    raise ValueError(f"unknown layout {name!r}; expected one of {LAYOUTS}")


def layouts(ref, rng=None):
    """Yield ``(name, tensor, array)`` for every layout that applies to ``ref``."""
    for name in LAYOUTS:
        pair = make_layout(name, ref, rng)
        if pair is not None:
            yield (name, *pair)


def numpy_storage(a):
    """(flat array standing for the storage, offset of ``a``'s element [0, ..., 0] in it)."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return root.reshape(-1), offset // a.itemsize


def has_exact_overlap(t):
    """Whether two elements of tensor ``t`` share a storage cell, found by listing every
    element's cell (exact, unlike strided's conservative test; for small tensors only)."""
    if t.numel() <= 1:
        return False
    cells = np.asarray(t.stride()) @ np.indices(t.shape).reshape(t.ndim, -1)
    return np.unique(cells).size < cells.size


def agrees_with_numpy(fs, fn, check, where=""):
    """Run NumPy's ``fn``; strided's ``fs`` must match its result (``check(got, want,
    where)``, per element of a tuple result) or raise as it does (an ``AxisError`` as the
    ``IndexError`` strided raises for a bad axis)."""
    import pytest

    try:
        want = fn()
    except Exception as e:
        expected = IndexError if isinstance(e, np.exceptions.AxisError) else type(e)
        with pytest.raises(expected):
            fs()
        return
    got = fs()
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), where
        for g, w in zip(got, want, strict=True):
            check(g, w, where)
    else:
        check(got, want, where)
