"""NumPy's routines that write into an array at indices (``put``, ``put_along_axis``,
``place``, ``putmask``, ``fill_diagonal``) and that pick elements from several arrays
(``select``, ``choose``, ``compress``, ``extract``), with NumPy's names, signatures and results.

Each is an indexed write or read strided already has: the writes are ``x[index] = values``
(the ``index_put`` kernel, which applies duplicate indices in row-major order so the last value
wins, as NumPy's loops do; Note [Duplicate indices] in _cpu/index.pyx.tp) or a ``where`` copied
back; the reads are ``take``/``take_along_axis`` and ``where``. NumPy's flat indices (``put``,
``fill_diagonal``, ``put_along_axis`` with ``axis=None``) address ``a.flat``, the elements in
row-major order whatever the memory layout: they become coordinates with ``unravel_index``, so a
transposed or negative-stride ``a`` is written in place like a contiguous one. Values shorter
than the places they fill repeat cyclically (``resize``), and are cast to the target's dtype
unsafely, as NumPy's ``put`` casts. The writes return None, as NumPy's do.

Note [Two selects]
~~~~~~~~~~~~~~~~~~
``numpy.select(condlist, choicelist, default=0)`` picks, element by element, from the first
choice whose condition holds; ``torch.select(x, dim, index)`` is the view ``x[..., index, ...]``.
The namespace function is NumPy's (Note [NumPy first] in DESIGN.md); a call NumPy cannot mean,
an integer second argument (``select(x, 0, 1)``: ``choicelist`` is never an int), or PyTorch's
keywords ``dim=``/``index=``, is PyTorch's view, which ``Tensor.select`` always is.
"""

from __future__ import annotations

from strided import _check, _core, _views
from strided._dtype import bool_, int64
from strided._dtype import result_type as _result_type
from strided._ops import copying as _copy
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.arrays import ravel, resize
from strided._ops.index_tricks import unravel_index
from strided._ops.indexing import nonzero, take, take_along_axis
from strided._ops.shape import stack

__all__ = [
    "put",
    "put_along_axis",
    "place",
    "putmask",
    "fill_diagonal",
    "select",
    "choose",
    "compress",
    "extract",
]

_MODES = ("raise", "wrap", "clip")


def _target(a, fn):
    """``a``, which must be a tensor: these functions write into it."""
    if not isinstance(a, _core.TensorBase):
        raise TypeError(
            f"{fn}: argument a must be a strided tensor to write into, got {type(a).__name__}"
        )
    return a


def _flat_write(a, flat_idx, values):
    """``a.flat[flat_idx] = values`` for any layout: the flat indices (non-negative, in
    range) become coordinates, so the write lands in ``a``'s own storage."""
    if a.ndim == 0:
        a = _vops.reshape(a, (1,))  # a view: one element is always contiguous
    a[unravel_index(flat_idx, a.shape)] = values


def _cycled(values, n, like, dtype):
    """The first ``n`` elements of ``values`` repeated cyclically, as ``dtype``."""
    v = _check.tensor(values, like=like)
    return _vops.astype(resize(v, (n,)), dtype, copy=False)


def _index_mode(idx, n, mode, fn, name="ind"):
    """Flat indices mapped into [0, n) by ``mode`` ("raise" also takes -n..-1, as NumPy)."""
    if mode not in _MODES:
        raise ValueError(f"{fn}: mode must be one of {_MODES}, got {mode!r}")
    if mode == "wrap":
        return _ew.remainder(idx, n)
    if mode == "clip":
        return _ew.clip(idx, 0, n - 1)
    bad = _ew.logical_or(idx < -n, idx >= n)
    if bool(bad.any()):
        first = int(ravel(_views.getitem(idx, bad))[0])
        raise IndexError(f"{fn}: index {first} is out of bounds for size {n} ({name})")
    return _ew.where(idx < 0, idx + n, idx)


def _int_tensor(x, fn, name, like):
    t = _check.tensor(x, like=like)
    if t.dtype.kind not in "iu":
        raise TypeError(f"{fn}: {name} must hold integers, got dtype {t.dtype.name}")
    return _vops.astype(t, int64, copy=False)


def put(a, ind, v, mode="raise"):
    """Write ``v`` (repeated cyclically) into the flat positions ``ind`` of ``a``, in place:
    ``a.flat[ind] = v``. ``mode`` says what an index outside ``[-n, n)`` does: "raise"
    (IndexError), "wrap" (modulo n) or "clip" (to ``[0, n - 1]``; negatives become 0).

    Examples
    --------
    >>> import strided
    >>> a = strided.arange(6).reshape(2, 3)
    >>> strided.put(a, [0, 4], [-1, -2])
    >>> a
    tensor([[-1,  1,  2],
            [ 3, -2,  5]])
    """
    a = _target(a, "put")
    idx = ravel(_int_tensor(ind, "put", "ind", a))
    n = a.numel()
    v = _check.tensor(v, like=a)
    if idx.shape[0] == 0 or v.numel() == 0:
        if mode not in _MODES:
            raise ValueError(f"put: mode must be one of {_MODES}, got {mode!r}")
        return None
    if n == 0:
        raise IndexError("put: cannot replace in an empty array (a has no elements)")
    idx = _index_mode(idx, n, mode, "put")
    _flat_write(a, idx, _cycled(v, idx.shape[0], a, a.dtype))
    return None


def put_along_axis(arr, indices, values, axis):
    """Write ``values`` into ``arr`` at ``indices`` along ``axis``, in place: the inverse of
    ``take_along_axis``. ``indices`` has ``arr``'s number of dims and broadcasts against it
    on the other axes, as do ``values``; ``axis=None`` writes the flattened ``arr``.

    Examples
    --------
    >>> import strided
    >>> a = strided.asarray([[10, 30, 20], [60, 40, 50]])
    >>> strided.put_along_axis(a, strided.argmax(a, axis=1, keepdims=True), 0, axis=1)
    >>> a
    tensor([[10,  0, 20],
            [ 0, 40, 50]])
    """
    fn = "put_along_axis"
    arr = _target(arr, fn)
    idx = _check.tensor(indices, like=arr)
    if idx.dtype.kind not in "iu":
        raise IndexError(f"{fn}: indices must be an integer array, got dtype {idx.dtype.name}")
    idx = _vops.astype(idx, int64, copy=False)
    if axis is None:
        if idx.ndim != 1:
            raise ValueError(f"{fn}: with axis=None, indices must be 1-D, got {idx.ndim} dims")
        idx = _index_mode(idx, arr.numel(), "raise", fn, "indices")
        vals = _vops.broadcast_to(_check.tensor(values, like=arr), idx.shape)
        _flat_write(arr, idx, _vops.astype(vals, arr.dtype, copy=False))
        return None
    axis = _check.axis(axis, arr.ndim, fn)
    if idx.ndim != arr.ndim:
        raise ValueError(
            f"{fn}: indices and arr must have the same number of dims, got {idx.ndim} and "
            f"{arr.ndim}"
        )
    index = []
    for d, n in enumerate(arr.shape):
        if d == axis:
            index.append(idx)
        else:
            shape = (1,) * d + (n,) + (1,) * (arr.ndim - d - 1)
            index.append(_vops.reshape(_cr.arange(n, device=arr.device), shape))
    vals = _check.tensor(values, like=arr)
    arr[tuple(index)] = _vops.astype(vals, arr.dtype, copy=False)
    return None


def place(arr, mask, vals):
    """Write ``vals`` (repeated cyclically) into the elements of ``arr`` where ``mask`` is
    True, in place, in row-major order. ``mask`` has ``arr``'s number of elements.

    Examples
    --------
    >>> import strided
    >>> a = strided.arange(6)
    >>> strided.place(a, a > 2, [44, 55])
    >>> a
    tensor([ 0,  1,  2, 44, 55, 44])
    """
    arr = _target(arr, "place")
    m = _check.tensor(mask, like=arr)
    if m.numel() != arr.numel():
        raise ValueError(
            f"place: mask and arr must have the same number of elements, got {m.numel()} "
            f"and {arr.numel()}"
        )
    m = _vops.reshape(_vops.astype(m, bool_, copy=False), arr.shape)
    count = int(_red.count_nonzero(m))
    v = _check.tensor(vals, like=arr)
    if count == 0:
        return None
    if v.numel() == 0:
        raise ValueError("place: cannot insert from an empty vals where mask has True elements")
    arr[m] = _cycled(v, count, arr, arr.dtype)
    return None


def putmask(a, mask, values):
    """Set ``a.flat[i] = values.flat[i % len(values)]`` wherever ``mask.flat[i]`` is True, in
    place (``values`` repeats over *all* positions, not only the masked ones, unlike
    ``place``). ``mask`` has ``a``'s shape.

    Examples
    --------
    >>> import strided
    >>> a = strided.arange(6)
    >>> strided.putmask(a, a > 2, [44, 55])
    >>> a
    tensor([ 0,  1,  2, 55, 44, 55])
    """
    a = _target(a, "putmask")
    m = _check.tensor(mask, like=a)
    if tuple(m.shape) != tuple(a.shape):
        raise ValueError(
            f"putmask: mask and a must have the same shape, got {tuple(m.shape)} and "
            f"{tuple(a.shape)}"
        )
    v = _check.tensor(values, like=a)
    if v.numel() == 0 or a.numel() == 0:
        return None
    full = _vops.reshape(_cycled(v, a.numel(), a, a.dtype), a.shape)
    _copy.copy_(a, _ew.where(_vops.astype(m, bool_, copy=False), full, a))
    return None


def fill_diagonal(a, val, wrap=False):
    """Fill the main diagonal of ``a`` (2-D, or N-D with equal dims) with ``val`` (repeated
    cyclically), in place. For a tall matrix, ``wrap=True`` starts the diagonal again every
    ``ncols + 1`` rows, as NumPy's flat stepping does.

    Examples
    --------
    >>> import strided
    >>> a = strided.zeros((3, 3), dtype=strided.int64)
    >>> strided.fill_diagonal(a, [1, 2, 3])
    >>> a
    tensor([[1, 0, 0],
            [0, 2, 0],
            [0, 0, 3]])
    """
    a = _target(a, "fill_diagonal")
    if a.ndim < 2:
        raise ValueError(f"fill_diagonal: a must be at least 2-d, got {a.ndim} dims")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = a.numel() if wrap else min(a.numel(), a.shape[1] * a.shape[1])
    else:
        if len(set(a.shape)) != 1:
            raise ValueError(
                f"fill_diagonal: all dims of a must have equal length, got {tuple(a.shape)}"
            )
        step = 1 + sum(a.shape[0] ** k for k in range(1, a.ndim))
        end = a.numel()
    pos = _cr.arange(0, end, step, device=a.device)
    if pos.shape[0] and _check.tensor(val, like=a).numel():
        _flat_write(a, pos, _cycled(val, pos.shape[0], a, a.dtype))
    return None


def select(condlist, choicelist=None, default=0, *, dim=None, index=None):
    """NumPy's ``select``: each element from the first choice whose condition holds there,
    ``default`` where none does. PyTorch's ``select(x, dim, index)`` (a view) when the second
    argument is an int or ``dim=``/``index=`` are given (Note [Two selects]).

    Conditions must be boolean; conditions, choices and ``default`` broadcast together; the
    dtype is that of the choices and ``default`` (a Python scalar ``default`` is weak).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6)
    >>> strided.select([x < 3, x > 4], [x, x**2], 42)
    tensor([ 0,  1,  2, 42, 42, 25])
    >>> strided.select(strided.arange(6).reshape(2, 3), 1, 0)
    tensor([0, 3])
    """
    if dim is not None or index is not None or hasattr(type(choicelist), "__index__"):
        d = choicelist if dim is None else dim
        i = default if index is None else index
        return _vops.select(condlist, d, i)
    if isinstance(condlist, _core.TensorBase):
        condlist = list(_views.unbind(condlist, 0))
    if choicelist is None or len(condlist) != len(choicelist):
        got = "none" if choicelist is None else len(choicelist)
        raise ValueError(
            f"select: condlist and choicelist must have the same length, got {len(condlist)} "
            f"and {got}"
        )
    if len(condlist) == 0:
        raise ValueError("select: condlist is empty; select needs at least one condition")
    choices = [_check.tensor(c) for c in choicelist]
    conds = [_check.tensor(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype is not bool_:
            raise TypeError(f"select: condlist[{i}] must be boolean, got dtype {c.dtype.name}")
    weak = isinstance(default, (bool, int, float, complex))
    dt = _result_type(*choices, default if weak else _check.tensor(default))
    out = _vops.astype(_check.tensor(default), dt, copy=False)
    for c, v in zip(
        reversed(conds), reversed(choices), strict=True
    ):  # the first true condition wins
        out = _ew.where(c, _vops.astype(v, dt, copy=False), out)
    shape = _vops.broadcast_shapes(*(t.shape for t in conds + choices), out.shape)
    if tuple(out.shape) != shape:  # only a 0-d default, or broadcasting choices, reach here
        out = _copy.contiguous_copy(_vops.broadcast_to(out, shape))
    return out


def choose(a, choices, out=None, mode="raise"):
    """``choices[a[i]][i]`` for every ``i``: ``a`` holds, per element, the number of the
    choice to take (``a`` and the choices broadcast together). ``mode`` as in ``put``,
    except that "raise" refuses negative numbers too.

    Examples
    --------
    >>> import strided
    >>> strided.choose([2, 0, 1], [[0, 1, 2], [10, 11, 12], [20, 21, 22]])
    tensor([20,  1, 12])
    """
    a = _int_tensor(a, "choose", "a", None)
    if isinstance(choices, _core.TensorBase):
        choices = list(_views.unbind(choices, 0))
    choices = [_check.tensor(c, like=a) for c in choices]
    if not choices:
        raise ValueError("choose: choices must hold at least one array")
    n = len(choices)
    if mode == "raise" and bool(_ew.logical_or(a < 0, a >= n).any()):
        raise ValueError(
            f"choose: a holds values outside [0, {n}), the choices' numbers (pass mode='wrap' "
            "or 'clip' to map them in)"
        )
    a = _index_mode(a, n, mode, "choose", "a")
    dt = _result_type(*choices)
    shape = _vops.broadcast_shapes(a.shape, *(c.shape for c in choices))
    stacked = stack([_vops.broadcast_to(_vops.astype(c, dt), shape) for c in choices])
    picked = take_along_axis(stacked, _vops.broadcast_to(a, shape)[None], axis=0)[0]
    if out is not None:
        _copy.copy_(out, picked)
        return out
    return picked


def compress(condition, a, axis=None, out=None):
    """The slices of ``a`` along ``axis`` (of the flattened ``a`` for ``axis=None``) where the
    1-D ``condition`` is True; ``condition`` may be shorter than the axis.

    Examples
    --------
    >>> import strided
    >>> strided.compress([False, True, True], strided.arange(6).reshape(3, 2), axis=0)
    tensor([[2, 3],
            [4, 5]])
    """
    c = _check.tensor(condition)
    if c.ndim != 1:
        raise ValueError(f"compress: condition must be 1-D, got {c.ndim} dims")
    (idx,) = nonzero(_vops.astype(c, bool_, copy=False))
    x = _check.tensor(a)
    res = take(ravel(x), idx) if axis is None else take(x, idx, axis=axis)
    if out is not None:
        _copy.copy_(out, res)
        return out
    return res


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is non-zero, flattened (row-major):
    ``compress(ravel(condition), ravel(arr))``.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape(2, 3)
    >>> strided.extract(x % 2 == 0, x)
    tensor([0, 2, 4])
    """
    x = ravel(_check.tensor(arr))
    (idx,) = nonzero(ravel(_check.tensor(condition, like=x)))
    return take(x, idx)
