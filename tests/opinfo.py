"""The OpInfo table (DESIGN.md, "Testing design"): one row per op, NumPy as the oracle.

A row says how to call the op on a strided tensor (``op(t, *args)``), how to compute the same
thing with NumPy (``ref(a, *args)``), which dtypes it claims, which argument tuples are valid for
an input of a given shape (``sample_inputs(shape)``), and which bad calls must fail with which
exception and message (``error_inputs()``). Generic tests (``test_views.py``) run every row over
the layouts of ``layouts.py`` and the dtypes.

This first part of the table holds the view and copy ops. ``view`` says what the result shares:

- "always": a view of the input's storage, whatever the layout;
- "never": a fresh tensor (copies), row-major;
- "copy-as-numpy": a fresh tensor laid out as NumPy's copy (``a.astype``'s order="K");
- "maybe": ``reshape``-like, a view when the strides allow it, else a fresh copy, and then
  ``view`` of the same shape must refuse (see Note [view versus reshape] in _views.pyx);
- "view-or-raise": ``view`` itself, which either views or raises RuntimeError naming reshape;
- "self-or-copy": ``contiguous``, the input itself when contiguous, else a fresh copy.

Ops that return several tensors (split, chunk, unbind) return a tuple; their ``ref`` a list.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from layouts import ALL_DTYPES, MIN_STORAGE, make_values, numpy_storage, to_numpy_dtype

import strided

__all__ = ["OpInfo", "OPS", "OPS_BY_NAME"]

COMPLEX_DTYPES = (strided.complex64, strided.complex128)
FLOAT_OR_COMPLEX = (strided.float32, strided.float64) + COMPLEX_DTYPES


@dataclass
class OpInfo:
    name: str
    op: Callable
    ref: Callable
    dtypes: tuple = ALL_DTYPES
    sample_inputs: Callable[[tuple], Iterable[tuple]] = lambda shape: [()]
    error_inputs: Callable[[], Iterable[tuple]] = lambda: []
    supports_autograd: bool = False
    view: str = "always"
    # How to make the input's values: make_values(shape, dtype, rng) by default.
    values: Callable = make_values
    # Per-dtype (rtol, atol) for the comparison with ref; exact when a dtype is not listed.
    tolerances: dict = field(default_factory=dict)

    def __repr__(self):
        return f"OpInfo({self.name})"


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _same(first, *others):
    """``first``, after checking that the other spellings of the op made the same view."""
    for o in others:
        assert o.shape == first.shape and o.stride() == first.stride(), (first, o)
        assert o.storage_offset() == first.storage_offset()
        assert o.dtype is first.dtype
        assert o.untyped_storage() is first.untyped_storage()
    return first


def _index(a, index):
    """``a[index]`` as a view even when every dim is indexed by an int."""
    out = a[index]
    if not isinstance(out, np.ndarray):
        index = index if isinstance(index, tuple) else (index,)
        out = a[index + (Ellipsis,)]
    return out


def _along(d, item):
    """An index that applies ``item`` to dim ``d``."""
    return (slice(None),) * d + (item, Ellipsis)


def _dims(shape):
    return range(len(shape))


def _zeros(*shape, dtype="float64"):
    return strided.zeros(shape, dtype=dtype)


# ---------------------------------------------------------------------------------------------
# getitem
# ---------------------------------------------------------------------------------------------


def _getitem_samples(shape):
    nd = len(shape)
    S = slice  # noqa: N806 - short, to keep the table readable
    yield ((),)
    yield (Ellipsis,)
    yield (None,)
    yield ((None, Ellipsis, None),)
    if nd == 0:
        return
    n0 = shape[0]
    if n0:
        yield (0,)
        yield (-1,)
        yield ((n0 - 1, Ellipsis),)
        yield ((-n0,),)
    for s in (
        S(None, None, 2),
        S(None, None, -1),
        S(None, None, -2),
        S(1, None, 3),
        S(-2, None),
        S(1, 100),
        S(100, None),
        S(-1, 0, -1),
        S(3, 1),
        S(-100, 2),
        S(None, None, 100),
        S(None, None, -100),
    ):
        yield (s,)
    if nd >= 2:
        yield ((Ellipsis, S(None, None, -1)),)
        yield ((S(1, None, 2), None, S(None, None, -2)),)
        yield ((None, S(None, None, -1), Ellipsis, None, S(1, None)),)
        if shape[1]:
            yield ((S(None, None, -3), -1),)
            yield ((Ellipsis, 0, S(None)) if nd >= 3 else (Ellipsis, 0),)
    if all(shape):
        yield (tuple(n - 1 for n in shape),)  # every dim by an int: a 0-d view
        yield (tuple(-n for n in shape) + (None,),)
        yield (tuple(np.int64(0) for _ in shape),)  # NumPy integers index too


def _getitem_errors():
    x = strided.arange(12).reshape(3, 4)
    yield x, (5,), IndexError, r"index 5 is out of bounds for dim 0 with size 3"
    yield x, ((0, -5),), IndexError, r"index -5 is out of bounds for dim 1 with size 4"
    yield x, ((0, 0, 0),), IndexError, r"too many indices.*shape \(3, 4\).*3 were given"
    yield x, ((Ellipsis, 0, Ellipsis),), IndexError, r"single ellipsis"
    # integer arrays and masks are advanced indexing (a copy): tests/test_indexing.py
    yield x, (1.5,), IndexError, r"only integers, slices .* are valid indices"
    yield strided.zeros(()), (0,), IndexError, r"too many indices"


# ---------------------------------------------------------------------------------------------
# Reordering dims
# ---------------------------------------------------------------------------------------------


def _transpose_samples(shape):
    nd = len(shape)
    if nd == 0:
        yield (0, -1)  # as PyTorch: a 0-d tensor accepts dim 0 and -1
        return
    yield (0, nd - 1)
    yield (-1, 0)
    yield (0, 0)
    if nd >= 3:
        yield (1, -1)


def _transpose_ref(a, d0, d1):
    return np.swapaxes(a, d0, d1) if a.ndim else a[...]


def _transpose_errors():
    x = _zeros(2, 3)
    yield x, (0, 2), IndexError, r"dim1=2 is out of range.*\[-2, 1\]"
    yield x, (-3, 0), IndexError, r"dim0=-3 is out of range.*\[-2, 1\]"
    yield _zeros(), (0, 1), IndexError, r"dim1=1 is out of range"


def _permute_samples(shape):
    nd = len(shape)
    yield (tuple(range(nd)),)
    yield (tuple(range(nd))[::-1],)
    if nd >= 2:
        yield (tuple(range(1, nd)) + (0,),)
        yield (tuple(d - nd for d in range(nd))[::-1],)


def _permute_errors():
    x = _zeros(2, 3, 4)
    yield x, ((0, 1),), ValueError, r"must name each of the 3 dims"
    yield x, ((0, 1, 1),), ValueError, r"dim 1 appears twice"
    yield x, ((0, 1, 3),), IndexError, r"dims=3 is out of range.*\[-3, 2\]"


def _movedim_samples(shape):
    nd = len(shape)
    if nd == 0:
        yield (0, 0)
        return
    yield (0, -1)
    yield (-1, 0)
    if nd >= 2:
        yield ((0, 1), (-1, 0))
    if nd >= 3:
        yield ((2, 0), (0, 1))


def _movedim_ref(a, src, dst):
    return np.moveaxis(a, src, dst) if a.ndim else a[...]


def _movedim_errors():
    x = _zeros(2, 3)
    yield x, (0, 2), IndexError, r"destination=2 is out of range"
    yield x, ((0, 1), (0,)), ValueError, r"differ in length"
    yield x, ((0, 0), (0, 1)), ValueError, r"repeated dim"


def _mt_errors():
    yield _zeros(3), (), ValueError, r"at least 2 dims, got shape \(3,\)"
    yield _zeros(), (), ValueError, r"at least 2 dims"


# ---------------------------------------------------------------------------------------------
# view, reshape, flatten, unflatten
# ---------------------------------------------------------------------------------------------


def _reshape_samples(shape):
    n = math.prod(shape)
    nd = len(shape)
    yield ((-1,),)
    yield ((n,),)
    yield (shape,)
    yield (shape + (1,),)
    yield ((1,) + shape,)
    if nd == 0:
        yield ((),)
        yield ((1, 1),)
        return
    if nd >= 2:
        yield ((shape[0], -1),)
        yield ((-1, shape[-1]),)
        yield (shape[:1] + (math.prod(shape[1:3]),) + shape[3:],)
        yield (shape[::-1],)  # the same sizes in another order: splits and merges
    if shape[0] and shape[0] % 2 == 0:
        yield ((2, shape[0] // 2) + shape[1:],)
    if n and n % 2 == 0:
        yield ((2, -1),)


def _view_op(t, shape):
    return _same(t.view(*shape), t.view(shape), strided.view(t, shape))


def _reshape_op(t, shape):
    out = t.reshape(shape)
    other = strided.reshape(t, shape)
    # Both spellings decide alike: view or copy.
    assert (other.untyped_storage() is t.untyped_storage()) == (
        out.untyped_storage() is t.untyped_storage()
    )
    return out


def _view_errors():
    x = strided.arange(12).reshape(3, 4)
    yield x.T, ((12,),), RuntimeError, r"view: cannot view .* without copying.*reshape"
    yield x, ((5, -1),), ValueError, r"shape \(5, -1\) is invalid for a tensor of 12 elements"
    yield x, ((-1, -1),), ValueError, r"only one dim can be -1"
    yield x, ((3, -2),), ValueError, r"invalid size -2"
    yield x, ((2.0, 6),), TypeError, r"sizes must be integers, got 2.0"
    yield x, ((5,),), ValueError, r"invalid for a tensor of 12 elements"


def _reshape_errors():
    x = strided.arange(12).reshape(3, 4)
    yield x, ((5, 3),), ValueError, r"reshape: shape \(5, 3\) is invalid for a tensor of 12"
    yield x, (("3", 4),), TypeError, r"sizes must be integers"
    yield x, ((-1, 0),), ValueError, r"invalid for a tensor of 12 elements"


def _flatten_samples(shape):
    nd = len(shape)
    yield ()
    yield (0, -1)
    if nd >= 2:
        yield (-2, -1)
        yield (1, 1)
    if nd >= 3:
        yield (1, 2)


def _flatten_ref(a, start=0, end=-1):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = start % a.ndim, end % a.ndim
    return a.reshape(a.shape[:s] + (math.prod(a.shape[s : e + 1]),) + a.shape[e + 1 :])


def _flatten_errors():
    x = _zeros(2, 3, 4)
    yield x, (2, 1), ValueError, r"start_dim 2 comes after end_dim 1"
    yield x, (0, 3), IndexError, r"end_dim=3 is out of range"


def _unflatten_samples(shape):
    for d in _dims(shape):
        n = shape[d]
        yield (d, (n,))
        yield (d - len(shape), (1, n, 1))
        if n == 0:
            yield (d, (0, 3))
        elif n % 2 == 0:
            yield (d, (2, n // 2))
            yield (d, (-1, 2))
        else:
            yield (d, (n, -1))


def _unflatten_ref(a, d, sizes):
    d %= a.ndim
    known = math.prod(s for s in sizes if s != -1)
    sizes = tuple(a.shape[d] // known if s == -1 else s for s in sizes)
    return a.reshape(a.shape[:d] + sizes + a.shape[d + 1 :])


def _unflatten_errors():
    x = _zeros(2, 6)
    yield x, (1, (4, -1)), ValueError, r"unflatten: shape \(4, -1\) is invalid for a tensor of 6"
    yield x, (1, ()), ValueError, r"sizes must not be empty"
    yield x, (2, (2, 3)), IndexError, r"dim=2 is out of range"


# ---------------------------------------------------------------------------------------------
# squeeze, unsqueeze, expand, broadcast_to
# ---------------------------------------------------------------------------------------------


def _squeeze_samples(shape):
    nd = len(shape)
    yield (None,)
    yield ((),)
    ones = tuple(d for d in range(nd) if shape[d] == 1)
    for d in ones:
        yield (d,)
        yield (d - nd,)
    if ones:
        yield (ones,)
        yield (list(ones),)
    if nd == 0:
        yield (0,)


def _squeeze_op(t, dim):
    return _same(t.squeeze(dim), strided.squeeze(t, dim))


def _squeeze_ref(a, dim):
    if a.ndim == 0:
        return a[...]
    return np.squeeze(a, None if dim is None else tuple(dim) if isinstance(dim, list) else dim)


def _squeeze_errors():
    x = _zeros(2, 1, 3)
    yield x, (0,), ValueError, r"squeeze: dim 0 has size 2, not 1.*only size-1 dims"
    yield x, ((1, 2),), ValueError, r"dim 2 has size 3, not 1"
    yield x, (3,), IndexError, r"dim=3 is out of range"


def _unsqueeze_samples(shape):
    nd = len(shape)
    for d in sorted({0, nd, -1, -(nd + 1), nd // 2}):
        yield (d,)


def _unsqueeze_op(t, d):
    return _same(t.unsqueeze(d), strided.unsqueeze(t, d), strided.expand_dims(t, axis=d))


def _unsqueeze_errors():
    x = _zeros(2, 3)
    yield x, (3,), IndexError, r"dim=3 is out of range.*\[-3, 2\]"
    yield x, (-4,), IndexError, r"dim=-4 is out of range"


def _expand_samples(shape):
    nd = len(shape)
    stretched = tuple(3 if s == 1 else s for s in shape)
    yield (stretched,)
    yield ((2,) + shape,)
    yield ((-1,) * nd,)
    yield ((2,) + (-1,) * nd,)
    yield ((0,) + shape,)
    if nd == 0:
        yield ((3,),)
        yield ((2, 3),)


def _expand_op(t, shape):
    return _same(
        t.expand(*shape), t.expand(shape), strided.expand(t, *shape), strided.expand(t, shape)
    )


def _expand_ref(a, shape):
    shape = tuple(s if s != -1 else a.shape[i - (len(shape) - a.ndim)] for i, s in enumerate(shape))
    return np.broadcast_to(a, shape)


def _expand_errors():
    x = _zeros(2, 3)
    yield x, ((2, 4),), ValueError, r"cannot expand shape \(2, 3\) to \(2, 4\).*dim 1 has size 3"
    yield x, ((3,),), ValueError, r"fewer dims than the tensor's shape \(2, 3\)"
    yield x, ((-1, 2, 3),), ValueError, r"-1 is not allowed for the new leading dim 0"
    yield x, ((2, 3.0),), TypeError, r"sizes must be integers, got 3.0"


def _broadcast_to_samples(shape):
    yield (tuple(3 if s == 1 else s for s in shape),)
    yield ((2,) + shape,)
    yield (shape,)
    yield ((0, 1) + shape,)


def _broadcast_to_op(t, shape):
    return _same(strided.broadcast_to(t, shape), t.broadcast_to(shape))


def _broadcast_to_errors():
    x = _zeros(2, 3)
    yield x, ((2, 4),), ValueError, r"cannot expand shape \(2, 3\) to \(2, 4\)"
    yield x, ((-1, 3),), ValueError, r"sizes must be >= 0"


# ---------------------------------------------------------------------------------------------
# narrow, select, split, chunk, unbind, unfold, diagonal, flip
# ---------------------------------------------------------------------------------------------


def _narrow_samples(shape):
    for d in _dims(shape):
        n = shape[d]
        yield (d, 0, n)
        yield (d, 0, 0)
        yield (d, n, 0)
        if n >= 2:
            yield (d - len(shape), 1, n - 2)
            yield (d, -2, 2)


def _narrow_op(t, d, start, length):
    return _same(t.narrow(d, start, length), strided.narrow(t, d, start, length))


def _narrow_ref(a, d, start, length):
    d %= a.ndim
    start %= a.shape[d] if a.shape[d] else 1
    return a[_along(d, slice(start, start + length))]


def _narrow_errors():
    x = _zeros(3, 4)
    yield x, (1, 5, 0), IndexError, r"start 5 is out of range for dim 1 of size 4"
    yield x, (1, 2, 3), IndexError, r"start 2 \+ length 3 exceeds dim 1 of size 4"
    yield x, (0, 0, -1), IndexError, r"length -1 exceeds dim 0 of size 3"
    yield x, (2, 0, 1), IndexError, r"dim=2 is out of range"
    yield _zeros(), (0, 0, 1), IndexError, r"0-d tensor has no dims to narrow"


def _select_samples(shape):
    for d in _dims(shape):
        n = shape[d]
        if n:
            yield (d, 0)
            yield (d - len(shape), -1)
            yield (d, n // 2)


def _select_op(t, d, i):
    return _same(t.select(d, i), strided.select(t, d, i))


def _select_errors():
    x = _zeros(3, 4)
    yield x, (1, 4), IndexError, r"index 4 is out of bounds for dim 1 with size 4"
    yield x, (0, -4), IndexError, r"index -4 is out of bounds for dim 0 with size 3"
    yield _zeros(), (0, 0), IndexError, r"0-d tensor has no dims to select from"


def _split_samples(shape):
    for d in _dims(shape):
        n = shape[d]
        yield (1, d)
        yield (2, d - len(shape))
        yield (n + 3, d)
        if n:
            yield (n, d)
            yield ([1, n - 1], d)
        yield ([0, n], d)
        yield ([n // 2, 0, n - n // 2], d)


def _split_op(t, size_or_sections, d):
    out = t.split(size_or_sections, d)
    _same_pieces(out, strided.split(t, size_or_sections, dim=d))
    return out


def _same_pieces(pieces, others):
    assert isinstance(pieces, tuple) and len(pieces) == len(others)
    for p, o in zip(pieces, others, strict=True):
        _same(p, o)


def _pieces(a, d, sizes):
    """NumPy views of ``a`` cut along ``d`` into pieces of ``sizes``."""
    out, start = [], 0
    for s in sizes:
        out.append(a[_along(d, slice(start, start + s))])
        start += s
    return out


def _split_ref(a, size_or_sections, d):
    d %= a.ndim
    n = a.shape[d]
    if isinstance(size_or_sections, int):
        k = size_or_sections
        sizes = [k] * (n // k) + ([n % k] if n % k else []) if n else [0]
    else:
        sizes = list(size_or_sections)
    return _pieces(a, d, sizes)


def _split_errors():
    x = _zeros(4, 3)
    yield x, (0, 0), ValueError, r"split_size must be positive, got 0"
    yield x, (-1, 0), ValueError, r"split_size must be positive"
    yield x, ([1, 2], 0), ValueError, r"sections \[1, 2\] must be >= 0 and add up to .* 4"
    yield x, ([5, -1], 0), ValueError, r"must be >= 0 and add up"
    yield x, (1, 2), IndexError, r"dim=2 is out of range"


def _chunk_samples(shape):
    for d in _dims(shape):
        n = shape[d]
        for c in (1, 2, 3, n + 1):
            yield (c, d)


def _chunk_op(t, chunks, d):
    out = t.chunk(chunks, d)
    _same_pieces(out, strided.chunk(t, chunks, dim=d))
    return out


def _chunk_ref(a, chunks, d):
    # PyTorch: pieces of ceil(n / chunks), so there may be fewer than `chunks`; an empty dim
    # gives `chunks` empty pieces.
    n = a.shape[d]
    if n == 0:
        return _pieces(a, d, [0] * chunks)
    size = -(-n // chunks)
    return _pieces(a, d, [min(size, n - s) for s in range(0, n, size)])


def _chunk_errors():
    x = _zeros(4)
    yield x, (0, 0), ValueError, r"chunks must be positive, got 0"
    yield x, (2, 1), IndexError, r"dim=1 is out of range"


def _unbind_samples(shape):
    for d in _dims(shape):
        yield (d,)
    if shape:
        yield (-1,)


def _unbind_op(t, d):
    out = t.unbind(d)
    _same_pieces(out, strided.unbind(t, d))
    _same_pieces(out, strided.unstack(t, axis=d))
    if d == 0:
        _same_pieces(out, tuple(iter(t)))
    return out


def _unbind_ref(a, d):
    d %= a.ndim
    return [a[_along(d, i)] for i in range(a.shape[d])]


def _unbind_errors():
    yield _zeros(2, 3), (2,), IndexError, r"dim=2 is out of range"


def _unfold_samples(shape):
    if not shape:
        yield (0, 1, 1)
        yield (0, 0, 1)
        return
    for d in _dims(shape):
        n = shape[d]
        yield (d, 0, 1)
        yield (d, n, 1)
        yield (d, min(1, n), 2)
        if n >= 2:
            yield (d - len(shape), 2, 1)  # overlapping windows
            yield (d, 2, 2)
            yield (d, 2, 3)


def _unfold_ref(a, d, size, step):
    if a.ndim == 0:
        return a.reshape(1)[:size]
    d %= a.ndim
    w = np.lib.stride_tricks.sliding_window_view(a, size, axis=d, writeable=a.flags.writeable)
    return w[_along(d, slice(None, None, step))]


def _unfold_errors():
    x = _zeros(3, 4)
    yield x, (1, 5, 1), ValueError, r"size 5 must be between 0 and the dim's size 4"
    yield x, (1, 2, 0), ValueError, r"step must be positive, got 0"
    yield x, (2, 1, 1), IndexError, r"dimension=2 is out of range"


def _diagonal_samples(shape):
    nd = len(shape)
    if nd < 2:
        return
    yield (0, 0, 1)
    yield (1, 0, 1)
    yield (-1, 0, 1)
    yield (0, -1, 0)
    yield (2, 1, -1)
    yield (100, 0, 1)
    yield (-100, 1, 0)
    if nd >= 3:
        yield (-1, 2, 0)


def _diagonal_op(t, offset, d1, d2):
    return _same(t.diagonal(offset, d1, d2), strided.diagonal(t, offset, d1, d2))


def _diagonal_ref(a, offset, d1, d2):
    out = np.diagonal(a, offset, d1, d2)
    if a.flags.writeable:
        out.flags.writeable = True  # a view of a writeable array; NumPy marks it read-only
    return out


def _diagonal_errors():
    x = _zeros(3, 4)
    yield x, (0, 1, 1), ValueError, r"dim1 and dim2 must differ, both are 1"
    yield x, (0, 0, 2), IndexError, r"dim2=2 is out of range"
    yield _zeros(3), (0, 0, 1), ValueError, r"at least 2 dims, got shape \(3,\)"


def _flip_samples(shape):
    nd = len(shape)
    yield (None,)
    yield ((),)
    if nd:
        yield ((0,),)
        yield ((-1,),)
        yield (tuple(range(nd)),)
    if nd >= 3:
        yield ((0, -1),)


def _flip_op(t, dims):
    if dims is None:
        return _same(t.flip(), strided.flip(t))
    if not dims:  # t.flip() with no dims flips them all; flip(()) flips none
        return _same(t.flip(dims), strided.flip(t, dims))
    return _same(t.flip(*dims), t.flip(dims), strided.flip(t, dims), strided.flip(t, dims=dims))


def _flip_ref(a, dims):
    return np.flip(a, dims)[...]


def _flip_errors():
    x = _zeros(2, 3)
    yield x, ((0, 0),), ValueError, r"dim 0 appears twice"
    yield x, ((2,),), IndexError, r"dims=2 is out of range"


# ---------------------------------------------------------------------------------------------
# as_strided, real, imag
# ---------------------------------------------------------------------------------------------


def _as_strided_samples(shape):
    # Every layout's storage holds at least MIN_STORAGE (4) elements: see layouts.py.
    assert MIN_STORAGE >= 4
    yield ((), (), 0)
    yield ((2, 2), (2, 1), 0)
    yield ((2, 2), (1, 1), 0)  # overlapping: readable, not writable
    yield ((2,), (-1,), 1)
    yield ((2, 2), (-2, 1), 2)
    yield ((0, 5), (7, 1), 3)
    yield ((3,), (0,), 3)
    if math.prod(shape):
        yield ((), (), None)  # None: the input's own offset
        yield ((3, 2), (0, 0), None)


def _as_strided_op(t, size, stride, offset):
    return _same(strided.as_strided(t, size, stride, offset), t.as_strided(size, stride, offset))


def _as_strided_ref(a, size, stride, offset):
    flat, own = numpy_storage(a)
    start = own if offset is None else offset
    item = a.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[start:], shape=size, strides=[s * item for s in stride], writeable=flat.flags.writeable
    )


def _as_strided_errors():
    x = strided.arange(6)
    yield x, ((3,), (2,), 2), ValueError, r"reach storage elements 2..6, outside .* 0..5"
    yield x, ((2,), (-1,), 0), ValueError, r"reach storage elements -1..0"
    yield x, ((2,), (1,), -1), ValueError, r"storage_offset must be >= 0"
    yield x, ((2, 2), (1,), 0), ValueError, r"differ in length"
    yield x, ((0,), (1,), 7), ValueError, r"offset 7 is past the storage's end"
    yield x[2:], ((5,), (1,), None), ValueError, r"reach storage elements 2..6"


# ---------------------------------------------------------------------------------------------
# Copies: contiguous, clone, astype, copy_
# ---------------------------------------------------------------------------------------------


def _contiguous_op(t):
    out = t.contiguous()
    other = strided.contiguous(t)
    assert (other is t) == (out is t) and other.shape == out.shape
    return out


def _check_clone(a, b):
    """``a``, after checking that both clones are fresh, separate and row-major."""
    assert a.untyped_storage() is not b.untyped_storage()
    assert a.is_contiguous() and b.is_contiguous()
    return a


def _astype_samples(shape):
    for d in ALL_DTYPES:
        yield (d,)


def _astype_op(t, dtype):
    out = t.astype(dtype)
    other = strided.astype(t, dtype)
    assert other.dtype is out.dtype and other.shape == out.shape
    named = t.astype(dtype.name)
    assert named.dtype is dtype
    return out


def _astype_ref(a, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexWarning (discarding the imaginary part)
        return a.astype(to_numpy_dtype(dtype))


def _cast_safe_values(shape, dtype, rng):
    return make_values(shape, dtype, rng, cast_safe=True)


def _astype_special_samples(shape):
    for d in (strided.bool,) + FLOAT_OR_COMPLEX:
        yield (d,)


def _astype_errors():
    x = _zeros(3)
    yield x, ("float128",), TypeError, r"dtype 'float128' is not supported by strided; use one of"
    yield x, ("foo",), TypeError, r"dtype 'foo' is not supported.*bool, int8.*float16, bfloat16"


def _copy_samples(shape):
    yield (shape, None)
    yield ((2,) + shape, None)
    yield (tuple(3 if s == 1 else s for s in shape), None)
    yield (shape, strided.complex128)
    yield ((2,) + shape, strided.int64)


def _copy_op(t, shape, dtype):
    # on the input's device: tests/test_cuda_opinfo.py runs this row on CUDA devices too
    out = strided.zeros(shape, dtype=t.dtype if dtype is None else dtype, device=t.device)
    res = out.copy_(t)
    assert res is out
    return out


def _copy_ref(a, shape, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.broadcast_to(a, shape).astype(a.dtype if dtype is None else to_numpy_dtype(dtype))


def _copy_errors():
    yield (
        _zeros(2, 3),
        ((3, 3), None),
        ValueError,
        (r"cannot broadcast a tensor of shape \(2, 3\) to shape \(3, 3\): dim 0 has size 2"),
    )
    yield _zeros(2, 3), ((3,), None), ValueError, r"it has more dims \(2\) than the target"


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------

OPS = [
    OpInfo(
        "getitem",
        lambda t, index: t[index],
        _index,
        sample_inputs=_getitem_samples,
        error_inputs=_getitem_errors,
    ),
    OpInfo(
        "transpose",
        lambda t, d0, d1: _same(
            t.transpose(dim0=d0, dim1=d1),
            strided.transpose(t, d0, d1),
            strided.swapaxes(t, d0, d1),
            t.swapaxes(d0, d1),
        ),
        _transpose_ref,
        sample_inputs=_transpose_samples,
        error_inputs=_transpose_errors,
    ),
    OpInfo(
        "permute",
        lambda t, dims: _same(
            t.permute(*dims),
            t.permute(dims),
            strided.permute(t, dims),
            strided.permute_dims(t, dims),
        ),
        lambda a, dims: np.transpose(a, dims),
        sample_inputs=_permute_samples,
        error_inputs=_permute_errors,
    ),
    OpInfo(
        "movedim",
        lambda t, s, d: _same(
            t.movedim(s, d), strided.movedim(t, s, d), strided.moveaxis(t, s, d), t.moveaxis(s, d)
        ),
        _movedim_ref,
        sample_inputs=_movedim_samples,
        error_inputs=_movedim_errors,
    ),
    OpInfo("T", lambda t: t.T, lambda a: a.T),
    OpInfo(
        "mT",
        lambda t: _same(t.mT, strided.matrix_transpose(t)),
        lambda a: np.swapaxes(a, -1, -2),
        sample_inputs=lambda shape: [()] if len(shape) >= 2 else [],
        error_inputs=_mt_errors,
    ),
    OpInfo(
        "view",
        _view_op,
        lambda a, shape: a.reshape(shape),
        view="view-or-raise",
        sample_inputs=_reshape_samples,
        error_inputs=_view_errors,
    ),
    OpInfo(
        "reshape",
        _reshape_op,
        lambda a, shape: a.reshape(shape),
        view="maybe",
        sample_inputs=_reshape_samples,
        error_inputs=_reshape_errors,
    ),
    OpInfo(
        "flatten",
        lambda t, *args: t.flatten(*args),
        _flatten_ref,
        view="maybe",
        sample_inputs=_flatten_samples,
        error_inputs=_flatten_errors,
    ),
    OpInfo(
        "unflatten",
        lambda t, d, sizes: _same(t.unflatten(d, sizes), strided.unflatten(t, d, sizes)),
        _unflatten_ref,
        sample_inputs=_unflatten_samples,
        error_inputs=_unflatten_errors,
    ),
    OpInfo(
        "squeeze",
        _squeeze_op,
        _squeeze_ref,
        sample_inputs=_squeeze_samples,
        error_inputs=_squeeze_errors,
    ),
    OpInfo(
        "unsqueeze",
        _unsqueeze_op,
        lambda a, d: np.expand_dims(a, d),
        sample_inputs=_unsqueeze_samples,
        error_inputs=_unsqueeze_errors,
    ),
    OpInfo(
        "expand",
        _expand_op,
        _expand_ref,
        sample_inputs=_expand_samples,
        error_inputs=_expand_errors,
    ),
    OpInfo(
        "broadcast_to",
        _broadcast_to_op,
        lambda a, shape: np.broadcast_to(a, shape),
        sample_inputs=_broadcast_to_samples,
        error_inputs=_broadcast_to_errors,
    ),
    OpInfo(
        "narrow",
        _narrow_op,
        _narrow_ref,
        sample_inputs=_narrow_samples,
        error_inputs=_narrow_errors,
    ),
    OpInfo(
        "select",
        _select_op,
        lambda a, d, i: a[_along(d % a.ndim, i)],
        sample_inputs=_select_samples,
        error_inputs=_select_errors,
    ),
    OpInfo(
        "split", _split_op, _split_ref, sample_inputs=_split_samples, error_inputs=_split_errors
    ),
    OpInfo(
        "chunk", _chunk_op, _chunk_ref, sample_inputs=_chunk_samples, error_inputs=_chunk_errors
    ),
    OpInfo(
        "unbind",
        _unbind_op,
        _unbind_ref,
        sample_inputs=_unbind_samples,
        error_inputs=_unbind_errors,
    ),
    OpInfo(
        "unfold",
        lambda t, d, size, step: t.unfold(d, size, step),
        _unfold_ref,
        sample_inputs=_unfold_samples,
        error_inputs=_unfold_errors,
    ),
    OpInfo(
        "diagonal",
        _diagonal_op,
        _diagonal_ref,
        sample_inputs=_diagonal_samples,
        error_inputs=_diagonal_errors,
    ),
    OpInfo("flip", _flip_op, _flip_ref, sample_inputs=_flip_samples, error_inputs=_flip_errors),
    OpInfo(
        "as_strided",
        _as_strided_op,
        _as_strided_ref,
        sample_inputs=_as_strided_samples,
        error_inputs=_as_strided_errors,
    ),
    OpInfo("real", lambda t: t.real, lambda a: a.real),
    OpInfo("imag", lambda t: t.imag, lambda a: a.imag, dtypes=COMPLEX_DTYPES),
    OpInfo("contiguous", _contiguous_op, lambda a: np.array(a, order="C"), view="self-or-copy"),
    OpInfo(
        "clone",
        lambda t: _check_clone(t.clone(), strided.clone(t)),
        lambda a: a.copy(),
        view="never",
    ),
    OpInfo(
        "astype",
        _astype_op,
        _astype_ref,
        view="copy-as-numpy",
        values=_cast_safe_values,
        sample_inputs=_astype_samples,
        error_inputs=_astype_errors,
    ),
    OpInfo(
        "astype_special",
        _astype_op,
        _astype_ref,
        view="copy-as-numpy",
        dtypes=FLOAT_OR_COMPLEX,
        sample_inputs=_astype_special_samples,
    ),
    OpInfo(
        "copy_",
        _copy_op,
        _copy_ref,
        view="never",
        values=_cast_safe_values,
        sample_inputs=_copy_samples,
        error_inputs=_copy_errors,
    ),
]


OPS_BY_NAME = {o.name: o for o in OPS}

# The view and copy rows autograd differentiates: tests/test_autograd_ops.py gradchecks them.
_AUTOGRAD = {
    "getitem", "transpose", "permute", "movedim", "T", "mT", "view", "reshape", "flatten",
    "unflatten", "squeeze", "unsqueeze", "expand", "broadcast_to", "narrow", "select", "split",
    "chunk", "unbind", "unfold", "diagonal", "flip", "as_strided", "contiguous", "clone",
}  # fmt: skip
for _row in OPS:
    _row.supports_autograd = _row.name in _AUTOGRAD
