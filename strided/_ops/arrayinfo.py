"""NumPy's small helpers around arrays: asking about one (``ndim``, ``shape``, ``size``,
``isscalar``, ``iterable``, ``may_share_memory``, ``shares_memory``), making one
(``asanyarray``, ``asarray_chkfinite``, ``asfortranarray``, ``copy``), walking one
(``ndindex``, ``ndenumerate``), trimming and moving (``trim_zeros``, ``rollaxis``), the
matrix-vector products ``matvec``/``vecmat``, and the window functions ``bartlett``,
``blackman``, ``hamming``, ``hanning``, ``kaiser``.

Note [Which bytes a tensor touches]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A tensor's elements lie at ``data_ptr + sum(i_k * stride_k)`` (byte strides, any sign). The
lowest and highest of these come from taking each index at 0 or ``n_k - 1``, whichever makes its
term smaller (or larger), so the byte range is found without touching an element; that is
``may_share_memory``. ``shares_memory`` asks the exact question (does some byte belong to an
element of both?): where the ranges overlap it lists every byte of every element of each,
as whole-tensor index arithmetic, and asks ``isin``. NumPy solves a small integer program
instead, which needs no memory; this costs O(size * itemsize) and is exact.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from strided import _check, _core
from strided._dtype import float16, float64, int64
from strided._ops import elementwise as _ew
from strided._ops import linalg as _la
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.creation import arange, asarray, empty, ones
from strided._ops.ufunclike import i0

__all__ = [
    "asanyarray",
    "asarray_chkfinite",
    "asfortranarray",
    "bartlett",
    "blackman",
    "common_type",
    "copy",
    "hamming",
    "hanning",
    "isscalar",
    "isfortran",
    "issubdtype",
    "iterable",
    "kaiser",
    "matvec",
    "require",
    "may_share_memory",
    "ndenumerate",
    "ndim",
    "ndindex",
    "rollaxis",
    "shape",
    "shares_memory",
    "size",
    "trim_zeros",
    "vecmat",
]


def ndim(a):
    """The number of dimensions of ``a`` (a tensor, array, list or scalar), as an int.

    Examples
    --------
    >>> import strided
    >>> strided.ndim(strided.ones((2, 3))), strided.ndim([[1, 2]]), strided.ndim(5)
    (2, 2, 0)
    """
    return a.ndim if isinstance(a, _core.TensorBase) else np.ndim(a)


def shape(a):
    """The shape of ``a`` (a tensor, array, list or scalar), as a tuple.

    Examples
    --------
    >>> import strided
    >>> strided.shape(strided.ones((2, 3))), strided.shape(5)
    ((2, 3), ())
    """
    return tuple(a.shape) if isinstance(a, _core.TensorBase) else np.shape(a)


def size(a, axis=None):
    """The number of elements of ``a``, or its length along ``axis`` (an int or a tuple).

    Examples
    --------
    >>> import strided
    >>> strided.size(strided.ones((2, 3))), strided.size(strided.ones((2, 3)), 1)
    (6, 3)
    """
    s = shape(a)
    if axis is None:
        return math.prod(s)
    axes = axis if isinstance(axis, tuple) else (axis,)
    return math.prod(s[_check.axis(ax, len(s), "size")] for ax in axes)


def isscalar(element):
    """Whether ``element`` is a scalar (a Python or NumPy number, str or bytes); a tensor,
    even 0-d, is not, as a 0-d ndarray is not.

    Examples
    --------
    >>> import strided
    >>> strided.isscalar(3.0), strided.isscalar(strided.asarray(3.0))
    (True, False)
    """
    return not isinstance(element, _core.TensorBase) and np.isscalar(element)


def iterable(y):
    """Whether ``iter(y)`` works (a 0-d tensor is not iterable).

    Examples
    --------
    >>> import strided
    >>> strided.iterable(strided.ones(2)), strided.iterable(strided.asarray(1.0))
    (True, False)
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True


def _byte_range(x):
    """[lo, hi) of the bytes ``x`` touches (Note [Which bytes a tensor touches]); None if empty."""
    if isinstance(x, _core.TensorBase):
        ptr, shp, strides, item = x.data_ptr(), x.shape, x.strides, x.dtype.itemsize
    elif isinstance(x, np.ndarray):
        ptr, shp = x.__array_interface__["data"][0], x.shape
        strides, item = x.strides, x.itemsize
    else:
        return None  # a list or scalar is converted afresh: it shares nothing
    if math.prod(shp) == 0:
        return None
    lo = ptr + sum(min(0, (n - 1) * s) for n, s in zip(shp, strides, strict=True))
    hi = ptr + sum(max(0, (n - 1) * s) for n, s in zip(shp, strides, strict=True)) + item
    return lo, hi


def may_share_memory(a, b, /, max_work=0):
    """Whether the bytes ``a`` and ``b`` span overlap: False means they certainly share no
    memory; True means they might (``shares_memory`` decides). ``max_work=None`` asks for the
    exact answer, as NumPy.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(10)
    >>> strided.may_share_memory(x[::2], x[1::2]), strided.shares_memory(x[::2], x[1::2])
    (True, False)
    """
    if max_work is None:
        return shares_memory(a, b)
    ra, rb = _byte_range(a), _byte_range(b)
    return ra is not None and rb is not None and ra[0] < rb[1] and rb[0] < ra[1]


def _bytes_of(x, base):
    """Every byte offset (from ``base``) of every element of tensor ``x``, as an int64 tensor."""
    offsets = asarray(x.data_ptr() - base, dtype=int64)
    for n, s in zip(x.shape, x.strides, strict=True):
        offsets = _ew.add(offsets[..., None], arange(n, dtype=int64) * s)
    return _ew.add(offsets[..., None], arange(x.dtype.itemsize, dtype=int64)).reshape(-1)


def shares_memory(a, b, /, max_work=None):
    """Whether some byte belongs to an element of both ``a`` and ``b`` (exact; see Note
    [Which bytes a tensor touches]).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6)
    >>> strided.shares_memory(x, x[3:]), strided.shares_memory(x[:3], x[3:])
    (True, False)
    """
    from strided._ops.sets import isin

    if not may_share_memory(a, b):
        return False
    if not (isinstance(a, _core.TensorBase) and isinstance(b, _core.TensorBase)):
        return bool(np.shares_memory(np.asarray(a), np.asarray(b)))  # a tensor and an ndarray
    base = min(a.data_ptr(), b.data_ptr())
    return bool(_red.any(isin(_bytes_of(a, base), _bytes_of(b, base))))


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None):
    """``a`` as a tensor (strided has no subclasses to pass through: this is ``asarray``).

    Examples
    --------
    >>> import strided
    >>> strided.asanyarray([1, 2])
    tensor([1, 2])
    """
    from strided._ops.construction import array

    return array(a, dtype=dtype, copy=copy, order=order or "K", device=device)


def asarray_chkfinite(a, dtype=None, order=None):
    """``a`` as a tensor, raising ValueError if it holds an infinity or NaN.

    Examples
    --------
    >>> import strided
    >>> strided.asarray_chkfinite([1.0, 2.0])
    tensor([1., 2.])
    """
    t = asanyarray(a, dtype=dtype, order=order)
    if t.dtype.kind in "fc" and not bool(_red.all(_ew.isfinite(t))):
        raise ValueError("asarray_chkfinite: array must not contain infs or NaNs")
    return t


def asfortranarray(a, dtype=None, *, like=None):
    """``a`` as a tensor laid out in Fortran (column-major) order, at least 1-d; no copy when
    it already is.

    Examples
    --------
    >>> import strided
    >>> strided.asfortranarray(strided.ones((2, 3))).strides
    (8, 16)
    """
    from strided._ops.construction import array

    return array(a, dtype=dtype, copy=None, order="F", ndmin=1)


_REQUIREMENTS = {
    "C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
    "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
    "A": "A", "ALIGNED": "A",
    "W": "W", "WRITEABLE": "W",
    "O": "O", "OWNDATA": "O",
    "E": "E", "ENSUREARRAY": "E",
}  # fmt: skip


def isfortran(a):
    """Whether ``a`` is laid out in Fortran (column-major) order and not also in C order (so a
    1-d tensor is not): NumPy's ``isfortran``, ``a.flags.fnc``.

    Examples
    --------
    >>> import strided
    >>> x = strided.ones((2, 3))
    >>> strided.isfortran(x), strided.isfortran(x.T)
    (False, True)
    """
    from strided._ops.arrays import _f_contiguous

    a = _check.tensor(a)
    return _f_contiguous(a) and not a.is_contiguous()


def _numpy_type(t):
    """A dtype or type argument as NumPy reads it: strided's dtypes become their NumPy twins,
    and bfloat16 (which NumPy lacks) stands as float16, another floating type, for the
    abstract types of NumPy's hierarchy."""
    from strided._dtype import DType

    if isinstance(t, DType):
        return np.float16 if t.name == "bfloat16" else t.numpy
    if isinstance(t, _core.TensorBase):
        raise TypeError("issubdtype: pass a dtype (x.dtype), not a tensor")
    return t


def issubdtype(arg1, arg2):
    """Whether the dtype ``arg1`` is ``arg2`` or below it in NumPy's hierarchy of types
    (``numpy.floating``, ``numpy.integer``, ``numpy.number``...): ``numpy.issubdtype``, with
    strided's dtypes read as NumPy's (bfloat16 as a floating type of its own).

    Examples
    --------
    >>> import numpy as np, strided
    >>> strided.issubdtype(strided.float32, np.floating), strided.issubdtype("int8", np.number)
    (True, True)
    >>> strided.issubdtype(strided.bfloat16, np.floating), strided.issubdtype(strided.int32, float)
    (True, False)
    """
    from strided._dtype import DType, bfloat16

    if arg1 is bfloat16 or arg2 is bfloat16:
        if isinstance(arg2, DType) or not (isinstance(arg2, type) and np.generic in arg2.__mro__):
            return arg1 is arg2  # a concrete type: bfloat16 is only itself
        if arg1 is not bfloat16:
            return False
    return bool(np.issubdtype(_numpy_type(arg1), _numpy_type(arg2)))


def common_type(*arrays):
    """The inexact dtype that holds the values of all ``arrays``: the widest of their floats
    (integers count as float64), complex if any is complex. NumPy's ``common_type`` gives a
    scalar type (``numpy.float64``); this gives strided's dtype.

    Examples
    --------
    >>> import strided
    >>> strided.common_type(strided.arange(3), strided.ones(2, dtype=strided.float32))
    strided.float64
    >>> strided.common_type(strided.ones(2, dtype=strided.complex64))
    strided.complex64
    """
    from strided._dtype import promote_types

    result = float16
    for a in arrays:
        d = _check.tensor(a).dtype
        if d.kind == "b":
            raise TypeError("common_type: cannot get a common type for a bool (non-numeric) array")
        result = promote_types(result, float64 if d.kind in "iu" else d)
    return result


def require(a, dtype=None, requirements=None, *, like=None):
    """``a`` as a tensor of ``dtype`` that meets NumPy's ``requirements``: "C" (row-major
    contiguous), "F" (column-major), "W" (writable), "O" (its own memory: a copy), "A"
    (aligned: every strided tensor is) and "E" (a tensor: always); a copy only when needed.

    Examples
    --------
    >>> import strided
    >>> x = strided.ones((2, 3)).T
    >>> strided.require(x, requirements="C").is_contiguous(), strided.require(x) is x
    (True, True)
    """
    from strided._ops.construction import array

    given = list(requirements or ())  # a string is its letters, as NumPy reads it: "CW"
    reqs = set()
    for r in given:
        key = _REQUIREMENTS.get(str(r).upper())
        if key is None:
            raise ValueError(
                f"require: unknown requirement {r!r}; use C, F, A, W, O or E (or NumPy's long "
                "names, C_CONTIGUOUS, ...)"
            )
        reqs.add(key)
    if {"C", "F"} <= reqs:
        raise ValueError("require: cannot ask for both C and F order")
    order = "C" if "C" in reqs else "F" if "F" in reqs else "K"
    out = array(a, dtype=dtype, copy=True if "O" in reqs else None, order=order)
    if "W" in reqs and not out.untyped_storage().writable:
        out = array(out, copy=True, order=order)
    return out


def copy(a, order="K", subok=False):
    """A copy of ``a`` as a new tensor (``order`` as ``numpy.copy``).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(3)
    >>> y = strided.copy(x)
    >>> y[0] = 9
    >>> x
    tensor([0, 1, 2])
    """
    from strided._ops.construction import array

    return array(a, copy=True, order=order)


class ndindex:  # noqa: N801 - NumPy's name
    """An iterator over every index tuple of an array of the given shape, in C order (a
    Python loop over indices, as NumPy's; use it for per-cell work, not for arithmetic).

    Examples
    --------
    >>> import strided
    >>> list(strided.ndindex(2, 2))
    [(0, 0), (0, 1), (1, 0), (1, 1)]
    """

    def __init__(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        self._it = itertools.product(*(range(_check.integer(n, "ndindex", "shape")) for n in shape))

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)


def ndenumerate(arr):
    """``(index, value)`` pairs over ``arr`` in C order, values as Python scalars (a Python
    loop, as NumPy's; the values are read once, in one copy to the host).

    Examples
    --------
    >>> import strided
    >>> list(strided.ndenumerate(strided.asarray([[1, 2]])))
    [((0, 0), 1), ((0, 1), 2)]
    """
    t = _check.tensor(arr)
    values = t.reshape(-1).tolist()
    return zip(ndindex(*t.shape), values, strict=True)


def trim_zeros(filt, trim="fb", axis=None):
    """``filt`` without its leading (``'f'``) and/or trailing (``'b'``) zeros, along every
    axis or the given ones (a view, as NumPy's slicing is).

    Examples
    --------
    >>> import strided
    >>> strided.trim_zeros(strided.asarray([0, 0, 1, 2, 0]))
    tensor([1, 2])
    """
    from strided._ops.indexing import nonzero

    t = _check.tensor(filt)
    trim = trim.lower()
    if not set(trim) <= {"f", "b"}:
        raise ValueError(f"trim_zeros: unexpected character(s) in trim={trim!r}: use 'f' and 'b'")
    axes = range(t.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    axes = [_check.axis(ax, t.ndim, "trim_zeros") for ax in axes]
    nz = nonzero(t) if t.ndim else ()
    index = [slice(None)] * t.ndim
    for ax in axes:
        if nz[ax].shape[0] == 0:  # all zeros: empty along every trimmed axis
            index[ax] = slice(0, 0)
            continue
        lo = int(_red.min(nz[ax])) if "f" in trim else 0
        hi = int(_red.max(nz[ax])) + 1 if "b" in trim else t.shape[ax]
        index[ax] = slice(lo, hi)
    return t[tuple(index)]


def rollaxis(a, axis, start=0):
    """Move ``axis`` to sit before position ``start`` (NumPy's older ``moveaxis``), a view.

    Examples
    --------
    >>> import strided
    >>> strided.rollaxis(strided.ones((3, 4, 5, 6)), 3, 1).shape
    (3, 6, 4, 5)
    """
    t = _check.tensor(a)
    n = t.ndim
    axis = _check.axis(axis, n, "rollaxis")
    if not -n <= start <= n:
        raise ValueError(f"rollaxis: start={start} must be in [{-n}, {n}] for a {n}-d input")
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    return _vops.moveaxis(t, axis, start)


def matvec(x1, x2, /):
    """The matrix-vector product over the last two dims of ``x1`` and the last of ``x2``,
    other dims broadcast (NumPy 2.2's ``matvec``; complex is not conjugated).

    Examples
    --------
    >>> import strided
    >>> strided.matvec(strided.asarray([[1, 2], [3, 4]]), strided.asarray([1, 1]))
    tensor([3, 7])
    """
    x1, x2 = _check.tensor(x1), _check.tensor(x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec: needs a matrix and a vector (got {x1.ndim}-d and {x2.ndim}-d)")
    return _la.matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    """The vector-matrix product ``conj(x1) @ x2`` over the last dim of ``x1`` and the last two
    of ``x2``, other dims broadcast (NumPy 2.2's ``vecmat``: the vector is conjugated).

    Examples
    --------
    >>> import strided
    >>> strided.vecmat(strided.asarray([1, 1]), strided.asarray([[1, 2], [3, 4]]))
    tensor([4, 6])
    """
    x1, x2 = _check.tensor(x1), _check.tensor(x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat: needs a vector and a matrix (got {x1.ndim}-d and {x2.ndim}-d)")
    return _la.matmul(_ew.conj(x1)[..., None, :], x2)[..., 0, :]


# -- window functions ----------------------------------------------------------------------------


def _window(name, M):
    """``n = 0 .. M-1`` as float64 and M as an int; ``None`` for the short windows NumPy
    special-cases (``M < 1`` gives an empty window, ``M == 1`` a single 1)."""
    M = _check.integer(M, name, "M")
    if M < 1:
        return empty((0,), dtype=float64), M
    if M == 1:
        return ones((1,), dtype=float64), M
    return None, M


def _cosine_window(name, M, coeffs):
    """``sum_k (-1)**k c_k cos(2 pi k n / (M - 1))``: Hann, Hamming and Blackman."""
    short, M = _window(name, M)
    if short is not None:
        return short
    phase = arange(M, dtype=float64) * (2 * math.pi / (M - 1))
    w = coeffs[0]
    for k, c in enumerate(coeffs[1:], 1):
        w = _ew.add(w, _ew.cos(phase * k) * (-c if k % 2 else c))
    return w


def hanning(M):
    """The Hann window of ``M`` points, ``0.5 - 0.5 cos(2 pi n / (M - 1))``, float64.

    Examples
    --------
    >>> import strided
    >>> strided.hanning(5)
    tensor([0. , 0.5, 1. , 0.5, 0. ])
    """
    return _cosine_window("hanning", M, (0.5, 0.5))


def hamming(M):
    """The Hamming window of ``M`` points, ``0.54 - 0.46 cos(2 pi n / (M - 1))``, float64.

    Examples
    --------
    >>> import strided
    >>> strided.hamming(3)
    tensor([0.08, 1.  , 0.08])
    """
    return _cosine_window("hamming", M, (0.54, 0.46))


def blackman(M):
    """The Blackman window of ``M`` points, float64.

    Examples
    --------
    >>> import strided
    >>> strided.blackman(3)
    tensor([-1.38777878e-17,  1.00000000e+00, -1.38777878e-17])
    """
    return _cosine_window("blackman", M, (0.42, 0.5, 0.08))


def bartlett(M):
    """The Bartlett (triangular) window of ``M`` points, float64.

    Examples
    --------
    >>> import strided
    >>> strided.bartlett(5)
    tensor([0. , 0.5, 1. , 0.5, 0. ])
    """
    short, M = _window("bartlett", M)
    if short is not None:
        return short
    n = arange(1 - M, M, 2, dtype=float64)
    return _ew.where(_ew.less_equal(n, 0), 1 + n / (M - 1), 1 - n / (M - 1))


def kaiser(M, beta):
    """The Kaiser window of ``M`` points with shape ``beta``,
    ``i0(beta sqrt(1 - (2n / (M-1) - 1)**2)) / i0(beta)``, float64.

    Examples
    --------
    >>> import strided
    >>> strided.kaiser(3, 5.0)
    tensor([0.03671089, 1.        , 0.03671089])
    """
    short, M = _window("kaiser", M)
    if short is not None:
        return short
    alpha = (M - 1) / 2.0
    n = arange(0, M, dtype=float64)
    arg = beta * _ew.sqrt(1 - ((n - alpha) / alpha) ** 2.0)
    return i0(arg) / i0(asarray(float(beta), dtype=float64))
