"""NumPy's creation routines beyond the Array API: ``array`` (a copy by default, ``ndmin``),
``ascontiguousarray``, ``frombuffer`` (the buffer's memory, shared when it is aligned),
``tri``, ``identity``, ``logspace``, ``geomspace`` and ``copyto``, composed of existing ops.

``logspace`` and ``geomspace`` are ``linspace`` in another space: evenly spaced exponents, then
``base ** t``; ``geomspace`` spaces the logarithms of its ends and puts the exact ends back,
so that ``geomspace(1, 1000, 4)`` gives exactly 1, 10, 100, 1000 where the powers would round.
The manipulation routines these share helpers with are in arrays.py.
"""

from __future__ import annotations

import numpy as np

from strided import _views
from strided._dtype import as_dtype
from strided._dtype import result_type as _result_type
from strided._ops import copying as _copy
from strided._ops import elementwise as _E
from strided._ops import views as _vops
from strided._ops.arrays import (
    _CASTINGS,
    _axis,
    _broadcast,
    _check_cast,
    _f_contiguous,
    _int,
    _is_tensor,
    _numpy_dtype,
    _prepend_dims,
    _tensor,
)
from strided._ops.creation import arange, asarray, eye

__all__ = [
    "tri",
    "identity",
    "array",
    "ascontiguousarray",
    "frombuffer",
    "logspace",
    "geomspace",
    "copyto",
]


def tri(N, M=None, k=0, dtype=float, *, like=None, device=None):
    """An (N, M) tensor with ones at and below the ``k``-th diagonal, zeros above (NumPy's
    ``tri``; the default dtype is float64). ``device`` is strided's addition.

    Examples
    --------
    >>> import strided
    >>> strided.tri(2, 3, k=1, dtype="int8")
    tensor([[1, 1, 0],
            [1, 1, 1]], dtype=strided.int8)
    """
    if like is not None:
        raise TypeError("tri: like= is not supported (strided has no array subclasses)")
    n = max(_int(N, "tri", "N"), 0)
    m = n if M is None else max(_int(M, "tri", "M"), 0)
    k = _int(k, "tri", "k")
    k = max(-n - 1, min(k, m + 1))  # beyond these, every k gives the same mask
    rows = _views.unsqueeze(arange(n, device=device), 1) + k
    mask = _E.greater_equal(rows, arange(m, device=device))
    return _vops.astype(mask, as_dtype(dtype))


def identity(n, dtype=None, *, like=None, device=None):
    """The (n, n) identity matrix (NumPy's ``identity``; ``eye`` with one size). The default
    dtype is the default float (float64 unless changed by ``set_default_dtype``).

    Examples
    --------
    >>> import strided
    >>> strided.identity(2, dtype="int32")
    tensor([[1, 0],
            [0, 1]], dtype=strided.int32)
    """
    if like is not None:
        raise TypeError("identity: like= is not supported (strided has no array subclasses)")
    n = _int(n, "identity", "n")
    if n < 0:
        raise ValueError(f"identity: n must be non-negative, got {n}")
    return eye(n, dtype=dtype, device=device)


def array(
    object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None, device=None
):
    """A tensor from ``object`` (NumPy's ``array``): a copy by default (``copy=None`` copies
    only when needed, ``copy=False`` never, raising if it would have to). ``ndmin`` adds
    leading size-1 dims; ``order="F"`` gives a column-major result. ``device`` is strided's.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(3)
    >>> y = strided.array(x, ndmin=2)
    >>> y.shape, y.untyped_storage() is x.untyped_storage()
    ((1, 3), False)
    >>> strided.array([1, 2], dtype="float32")
    tensor([1., 2.], dtype=strided.float32)
    """
    if like is not None:
        raise TypeError("array: like= is not supported (strided has no array subclasses)")
    if order not in ("K", "A", "C", "F", None):
        raise ValueError(f"array: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if copy not in (True, False, None):
        raise ValueError(f"array: copy must be True, False or None, got {copy!r}")
    ndmin = _int(ndmin, "array", "ndmin")
    t = asarray(object, dtype=dtype, device=device, copy=copy)
    if order == "F" and t.ndim > 1 and not _f_contiguous(t):
        if copy is False:
            raise ValueError("array: order='F' needs a copy, and copy=False forbids it")
        rev = tuple(range(t.ndim))[::-1]
        t = _views.permute(_copy.contiguous_copy(_views.permute(t, rev)), rev)
    elif order == "C" and not t.is_contiguous():
        if copy is False:
            raise ValueError("array: order='C' needs a copy, and copy=False forbids it")
        t = _copy.contiguous_copy(t)
    if ndmin > 64:
        raise ValueError(f"array: ndmin bigger than allowable number of dimensions 64: {ndmin}")
    return _prepend_dims(t, ndmin - t.ndim)


def ascontiguousarray(a, dtype=None, *, like=None):
    """``a`` as a row-major contiguous tensor with at least one dim: ``a`` itself when it
    already is one (and ``dtype`` matches), else a copy.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape(2, 3).T
    >>> x.is_contiguous(), strided.ascontiguousarray(x).is_contiguous()
    (False, True)
    """
    if like is not None:
        raise TypeError(
            "ascontiguousarray: like= is not supported (strided has no array subclasses)"
        )
    t = asarray(a, dtype=dtype)
    if t.ndim == 0:
        t = _views.view(t, (1,))
    return t if t.is_contiguous() else _copy.contiguous_copy(t)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """A 1-D tensor over the bytes of ``buffer`` (anything with the buffer protocol), shared
    with it when aligned for ``dtype``, else copied. ``count=-1`` reads to the end.

    Examples
    --------
    >>> import strided
    >>> strided.frombuffer(b"\\x01\\x00\\x02\\x00", dtype="int16")
    tensor([1, 2], dtype=strided.int16)
    """
    if like is not None:
        raise TypeError("frombuffer: like= is not supported (strided has no array subclasses)")
    arr = np.frombuffer(buffer, dtype=_numpy_dtype(dtype), count=count, offset=offset)
    return asarray(arr)


# =============================================================================================
# logspace, geomspace
# =============================================================================================


def _linspace(start, stop, num, endpoint, axis, device):
    """NumPy's ``linspace`` for array ``start``/``stop``, step for step (the same float
    operations in the same order, so the same roundings)."""
    num = _int(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: Number of samples, {num}, must be non-negative")
    div = num - 1 if endpoint else num
    dt = _result_type(start, stop, 1.0)
    start = _vops.astype(start, dt, copy=False)
    stop = _vops.astype(stop, dt, copy=False)
    delta = stop - start
    steps = _vops.astype(arange(0, num, dtype="float64", device=device), dt, copy=False)
    y = _vops.reshape(steps, (-1,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        if bool(_E.equal(step, 0).any()):
            y = y / div * delta
        else:
            y = y * step
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    return _views.movedim(y, 0, axis) if axis != 0 else y


def _space_args(start, stop, fn, device):
    if device is not None:  # moves tensors too, as asarray(x, device=) does
        start, stop = asarray(start, device=device), asarray(stop, device=device)
    start = _tensor(start)
    stop = _tensor(stop, start.device)
    if start.device != stop.device:
        raise ValueError(f"{fn}: start is on {start.device}, stop on {stop.device}")
    return start, stop


def _out_axis(axis, start, stop, fn):
    nd = len(np.broadcast_shapes(start.shape, stop.shape)) + 1
    return _axis(axis, nd, fn)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *, device=None):
    """``num`` numbers spaced evenly on a log scale: ``base ** linspace(start, stop)``.

    ``start``, ``stop`` and ``base`` may be arrays (broadcast together); ``axis`` is where
    the samples go in the result. ``device`` is strided's addition.

    Examples
    --------
    >>> import strided
    >>> strided.logspace(0, 3, 4)
    tensor([   1.,   10.,  100., 1000.])
    >>> strided.logspace(0, 2, 3, base=2.0, dtype="int64")
    tensor([1, 2, 4])
    """
    start, stop = _space_args(start, stop, "logspace", device)
    base_is_array = not isinstance(base, (int, float)) or _is_tensor(base)
    if base_is_array:
        base = _tensor(base, start.device)
        if base.ndim:
            nd = len(np.broadcast_shapes(start.shape, stop.shape, base.shape))
            start = _prepend_dims(start, nd - start.ndim)
            stop = _prepend_dims(stop, nd - stop.ndim)
            base = _prepend_dims(base, nd - base.ndim)
    axis = _out_axis(axis, start, stop, "logspace")
    y = _linspace(start, stop, num, endpoint, axis, start.device)
    if base_is_array and base.ndim:
        base = _views.unsqueeze(base, axis)
    out = _E.pow(base, y)
    return out if dtype is None else _vops.astype(out, as_dtype(dtype), copy=False)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *, device=None):
    """``num`` numbers spaced evenly on a log scale from ``start`` to ``stop`` (each sample a
    constant multiple of the one before), the endpoints exact. Neither may be zero; both
    negative (or complex) works, as NumPy. ``device`` is strided's addition.

    Examples
    --------
    >>> import strided
    >>> strided.geomspace(1, 1000, 4)
    tensor([   1.,   10.,  100., 1000.])
    >>> strided.geomspace(-1, -16, 5)
    tensor([ -1.,  -2.,  -4.,  -8., -16.])
    """
    start, stop = _space_args(start, stop, "geomspace", device)
    if bool(_E.equal(start, 0).any()) or bool(_E.equal(stop, 0).any()):
        raise ValueError("geomspace: Geometric sequence cannot include zero (start or stop is 0)")
    want = as_dtype("float64" if dtype is None else dtype)
    dt = _result_type(start, stop, 1.0, want)
    start = _vops.astype(start, dt)
    stop = _vops.astype(stop, dt)
    sign = _E.sign(start)
    start = start / sign
    stop = stop / sign
    out_axis = _out_axis(axis, start, stop, "geomspace")
    y = _linspace(_E.log10(start), _E.log10(stop), num, endpoint, 0, start.device)
    result = _E.pow(10.0, y)
    num = y.shape[0]
    if num > 0:
        result[0, ...] = start
        if num > 1 and endpoint:
            result[-1, ...] = stop
    result = sign * result
    if out_axis != 0:
        result = _views.movedim(result, 0, out_axis)
    return result if dtype is None else _vops.astype(result, want, copy=False)


# =============================================================================================
# copyto
# =============================================================================================


def _scalar_castable(value, dst, casting):
    """NEP 50: a Python scalar is weak; it casts to ``dst`` when its kind fits."""
    if casting == "unsafe":
        return True
    kind = np.dtype(dst.numpy).kind
    if isinstance(value, bool):
        return kind in "b" or casting not in ("no", "equiv")
    if isinstance(value, int):
        return kind in "iufc"
    if isinstance(value, float):
        return kind in "fc"
    return kind == "c"


def copyto(dst, src, casting="same_kind", where=True):
    """Copy ``src`` into the tensor ``dst`` in place, broadcast to its shape and cast (checked
    against ``casting``); with ``where``, only where the mask (broadcast too) is True.

    Examples
    --------
    >>> import strided
    >>> x = strided.zeros(4)
    >>> strided.copyto(x, [1, 2, 3, 4], where=[True, False, True, False])
    >>> x
    tensor([1., 0., 3., 0.])
    """
    if not _is_tensor(dst):
        raise TypeError(
            f"copyto: argument 1 (dst) must be a strided tensor, got {type(dst).__name__}"
        )
    if casting not in _CASTINGS:
        raise ValueError(f"copyto: casting must be one of {_CASTINGS}, got {casting!r}")
    if isinstance(src, (bool, int, float, complex)) and not isinstance(src, np.generic):
        if not _scalar_castable(src, dst.dtype, casting):
            raise TypeError(
                f"copyto: cannot cast the Python {type(src).__name__} {src!r} to "
                f"{dst.dtype.name} according to the rule {casting!r}"
            )
        if isinstance(src, int) and not isinstance(src, bool) and dst.dtype.name[0] in "iu":
            info = np.iinfo(dst.dtype.numpy)
            if not info.min <= src <= info.max:
                raise OverflowError(
                    f"copyto: Python integer {src} out of bounds for {dst.dtype.name}"
                )
        src = asarray(src, dtype=dst.dtype, device=dst.device)
    else:
        src = _tensor(src, dst.device)
        _check_cast(src.dtype, dst.dtype, casting, "copyto", "src")
    src = _broadcast(src, dst.shape, "copyto", "src")
    if where is True:
        _copy.copy_(dst, src)
        return None
    mask = _tensor(where, dst.device)
    if mask.dtype.name != "bool":
        raise TypeError(f"copyto: where must be a boolean mask, got dtype {mask.dtype.name}")
    mask = _broadcast(mask, dst.shape, "copyto", "where")
    if src.dtype is not dst.dtype:
        src = _vops.astype(src, dst.dtype)
    _copy.copy_(dst, _E.where(mask, src, dst))
    return None
