"""NumPy's array manipulation and creation routines that the Array API leaves out: ``insert``,
``rot90``, ``diag``, ``trace``, ``ravel``, ``logspace``, ``copyto`` and friends, with NumPy's
names, signatures and semantics (NumPy 2.x, NEP 50 promotion). The joins and splits
(``hstack``, ``array_split``, ...) are in joining.py, the creation routines in construction.py;
both follow the conventions below.

None of them has a kernel. Each is a few calls to ops strided already has, so it runs on every
device those ops run on (a CUDA tensor stays on its device, the inputs made from lists follow
it) and autograd differentiates it through its parts. Which parts decides what comes back:

- *views*, as NumPy returns them: ``fliplr``/``flipud``/``rot90`` (a ``flip`` is a negative
  stride and a quarter turn is a flip plus a transpose, so no element moves), ``array_split``
  and the ``*split`` family (narrows along the axis), ``atleast_*d`` (size-1 dims added),
  ``diag`` of a matrix (``diagonal``: one stride that steps along a row and down a column at
  once), and ``ravel`` when the elements already lie one after the other in memory (NumPy's
  ravel is always contiguous, so it copies where ``reshape`` could still make a view);
- *copies*, where NumPy copies: the stacks are ``concat``; ``insert`` and ``delete`` are a
  ``take`` with an index built on the host (see Note [insert and delete are takes]);
  ``resize`` is a ``tile``; ``diag`` of a vector is a ``where`` over an ``eye`` mask (see
  Note [diag of a vector is a where]).

Axes out of range raise ``IndexError`` as in the rest of strided (NumPy's ``AxisError`` is both
an ``IndexError`` and a ``ValueError``); everything else raises NumPy's exception type with a
message that names the argument, its shape or dtype and what would work.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from strided import _check, _core, _views
from strided._dtype import as_dtype
from strided._ops import copying as _copy
from strided._ops import elementwise as _E
from strided._ops import views as _vops
from strided._ops.creation import asarray, eye, zeros
from strided._ops.indexing import take
from strided._ops.padding import pad_pairs
from strided._ops.reduction import sum as _sum
from strided._ops.shape import concat, tile

__all__ = [
    "ravel",
    "insert",
    "delete",
    "rot90",
    "fliplr",
    "flipud",
    "resize",
    "diag",
    "diagflat",
    "trace",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
]

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


# =============================================================================================
# Helpers
# =============================================================================================


def _is_tensor(x):
    return isinstance(x, _core.TensorBase)


def _tensor(x, device=None):
    return _check.tensor(x, device=device)


def _sequence(arrays, fn):
    """The tensors of a NumPy-style sequence argument, non-tensors put on the first tensor's
    device (so that ``hstack([cuda_tensor, [1, 2]])`` stays on the GPU)."""
    if _is_tensor(arrays) or isinstance(arrays, np.ndarray):
        if arrays.ndim == 0:
            raise TypeError(
                f"{fn}: arrays to stack must be a list or tuple of arrays, got a 0-d tensor"
            )
        arrays = list(arrays)  # NumPy iterates an array argument along its first axis
    elif not isinstance(arrays, (list, tuple)):
        raise TypeError(
            f"{fn}: arrays to stack must be passed as a list or tuple, got {type(arrays).__name__}"
        )
    if not arrays:
        raise ValueError(f"{fn}: need at least one array to concatenate, got an empty sequence")
    device = next((a.device for a in arrays if _is_tensor(a)), None)
    return [_tensor(a, device) for a in arrays]


_int = _check.integer
_axis = _check.axis


def _numpy_dtype(dtype):
    return np.dtype(as_dtype(dtype).numpy)


def _check_cast(src, dst, casting, fn, what="input"):
    """A TypeError unless NumPy's ``can_cast(src, dst, casting)`` allows it."""
    if casting not in _CASTINGS:
        raise ValueError(f"{fn}: casting must be one of {_CASTINGS}, got {casting!r}")
    if not np.can_cast(_numpy_dtype(src), _numpy_dtype(dst), casting):
        raise TypeError(
            f"{fn}: cannot cast {what} from {src.name} to {dst.name} according to the rule "
            f"{casting!r}; pass casting='unsafe' to allow it"
        )


def _slice_along(x, axis, start, stop):
    """``x[..., start:stop, ...]`` on ``axis``, with Python's slice rules (a view)."""
    return _views.getitem(x, (slice(None),) * axis + (slice(start, stop),))


def _prepend_dims(x, k):
    """``x`` with ``k`` leading size-1 dims (a view)."""
    return _views.getitem(x, (None,) * k + (Ellipsis,)) if k > 0 else x


def _f_contiguous(x):
    return _views.permute(x, tuple(range(x.ndim))[::-1]).is_contiguous()


# =============================================================================================
# Shape: ravel, atleast_*d
# =============================================================================================


def _memory_order(strides):
    """The dims by decreasing |stride|, as NumPy's iterator orders them for ``order="K"``: an
    insertion sort in which a stride 0 is ambiguous (it neither moves nor stops a dim)."""
    dims = []
    for d, s in enumerate(strides):
        pos = len(dims)
        for i in range(len(dims) - 1, -1, -1):
            t = strides[dims[i]]
            if s == 0 or t == 0:
                continue
            if abs(t) >= abs(s):
                break
            pos = i
        dims.insert(pos, d)
    return tuple(dims)


def ravel(a, order="C"):
    """``a`` flattened to one contiguous dim: a view when ``a``'s elements already lie in
    that order one after the other (NumPy's rule, stricter than ``reshape``), else a copy.

    ``order``: "C" (row-major), "F" (column-major), "A" ("F" for a Fortran-contiguous tensor,
    else "C") or "K" (the order the elements lie in memory, negative strides read as they
    are, as NumPy).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape(2, 3)
    >>> strided.ravel(x).untyped_storage() is x.untyped_storage()
    True
    >>> strided.ravel(x, order="F")
    tensor([0, 3, 1, 4, 2, 5])
    """
    x = _tensor(a)
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"ravel: order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    nd = x.ndim
    if order == "A":
        order = "F" if _f_contiguous(x) and not x.is_contiguous() else "C"
    if order == "F":
        x = _views.permute(x, tuple(range(nd))[::-1])
    elif order == "K" and nd > 1:
        x = _views.permute(x, _memory_order(x.stride()))
    flat = _vops.reshape(x, (-1,))
    if flat.shape[0] > 1 and flat.stride()[0] != 1:
        flat = _copy.contiguous_copy(flat)  # NumPy's ravel is always contiguous
    return flat


def _atleast(arys, nd):
    """``atleast_1d``/``atleast_2d``: leading size-1 dims up to ``nd``; one input, one result."""
    res = []
    for x in arys:
        t = _tensor(x)
        res.append(_prepend_dims(t, nd - t.ndim))
    return res[0] if len(res) == 1 else tuple(res)


def atleast_1d(*arys):
    """Each input with at least one dim (a 0-d tensor becomes shape (1,)); a view.

    One input gives one tensor, several a tuple, as NumPy.

    Examples
    --------
    >>> import strided
    >>> strided.atleast_1d(5)
    tensor([5])
    >>> [a.shape for a in strided.atleast_1d(1, [2, 3])]
    [(1,), (2,)]
    """
    return _atleast(arys, 1)


def atleast_2d(*arys):
    """Each input with at least two dims: 0-d becomes (1, 1), shape (n,) becomes (1, n).

    Examples
    --------
    >>> import strided
    >>> strided.atleast_2d([1, 2]).shape
    (1, 2)
    """
    return _atleast(arys, 2)


def atleast_3d(*arys):
    """Each input with at least three dims: 0-d becomes (1, 1, 1), (n,) becomes (1, n, 1) and
    (m, n) becomes (m, n, 1), as NumPy (not leading 1s only).

    Examples
    --------
    >>> import strided
    >>> strided.atleast_3d([1, 2]).shape, strided.atleast_3d([[1, 2]]).shape
    ((1, 2, 1), (1, 2, 1))
    """
    res = []
    for x in arys:
        a = _tensor(x)
        if a.ndim == 0:
            a = _views.view(a, (1, 1, 1))
        elif a.ndim == 1:
            a = _views.getitem(a, (None, slice(None), None))
        elif a.ndim == 2:
            a = _views.getitem(a, (Ellipsis, None))
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


# =============================================================================================
# insert, delete
# =============================================================================================


def _positions(obj, n, fn):
    """``obj`` (an int, a slice or a sequence of ints) as a 1-D int64 NumPy array of indices
    along an axis of length ``n``, and whether it was a scalar."""
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n), dtype=np.int64), False
    if _is_tensor(obj):
        obj = obj.tolist()
    idx = np.asarray(obj)
    if idx.dtype == bool:
        return idx, idx.ndim == 0
    if idx.size == 0:
        return idx.astype(np.int64).reshape(-1), False
    if idx.dtype.kind not in "iu":
        raise IndexError(
            f"{fn}: indices must be integers (or a slice), got {idx.dtype} values {obj!r}"
        )
    if idx.ndim > 1:
        raise ValueError(
            f"{fn}: indices must be an int, a slice or a 1-D sequence, got shape {idx.shape}"
        )
    return idx.astype(np.int64), idx.ndim == 0


def _index_tensor(idx, like):
    return asarray(np.ascontiguousarray(idx, dtype=np.int64), device=like.device)


def _flat_or_axis(x, axis, fn):
    """(x, axis) for delete/insert: the flattened tensor along 0 when ``axis`` is None."""
    if axis is None:
        return ravel(x), 0
    if x.ndim == 0:
        raise IndexError(f"{fn}: axis={axis} is out of range for a 0-d tensor; use axis=None")
    return x, _axis(axis, x.ndim, fn)


def delete(arr, obj, axis=None):
    """A copy of ``arr`` without the entries ``obj`` (an int, a slice, a sequence of ints or a
    boolean mask of the axis' length) along ``axis`` (the flattened tensor when None).

    Examples
    --------
    >>> import strided
    >>> strided.delete(strided.arange(6), [0, -1])
    tensor([1, 2, 3, 4])
    >>> strided.delete(strided.arange(6).reshape(2, 3), 1, axis=1)
    tensor([[0, 2],
            [3, 5]])
    """
    x, axis = _flat_or_axis(_tensor(arr), axis, "delete")
    n = x.shape[axis]
    idx, _ = _positions(obj, n, "delete")
    keep = np.ones(n, dtype=bool)
    if idx.dtype == bool:
        if idx.shape != (n,):
            raise ValueError(
                f"delete: a boolean obj must be one dimensional and match the axis length of "
                f"{n}, got shape {idx.shape}"
            )
        keep = ~idx
    else:
        bad = (idx < -n) | (idx >= n)
        if bad.any():
            raise IndexError(
                f"delete: index {int(idx[bad][0])} is out of bounds for axis {axis} with size {n}"
            )
        keep[idx] = False
    return take(x, _index_tensor(np.flatnonzero(keep), x), axis=axis)


def insert(arr, obj, values, axis=None):
    """A copy of ``arr`` with ``values`` inserted before the indices ``obj`` along ``axis``
    (the flattened tensor when None). ``values`` is cast to ``arr``'s dtype.

    An int ``obj`` inserts ``values`` as one block (``values`` may hold several slices along
    the axis); a sequence or a slice inserts one slice before each index, the values broadcast.

    Examples
    --------
    >>> import strided
    >>> strided.insert(strided.arange(4), 1, [8, 9])
    tensor([0, 8, 9, 1, 2, 3])
    >>> strided.insert(strided.arange(4), [0, 2], 7)
    tensor([7, 0, 1, 7, 2, 3])
    >>> strided.insert(strided.zeros((2, 2), dtype="int64"), 1, [5, 6], axis=1)
    tensor([[0, 5, 0],
            [0, 6, 0]])
    """
    x, axis = _flat_or_axis(_tensor(arr), axis, "insert")
    n = x.shape[axis]
    idx, scalar = _positions(obj, n, "insert")
    if idx.dtype == bool:
        raise IndexError("insert: obj must hold integer indices, not booleans")
    bad = (idx < -n) | (idx > n)
    if bad.any():
        raise IndexError(
            f"insert: index {int(idx[bad][0])} is out of bounds for axis {axis} with size {n}"
        )
    idx = np.where(idx < 0, idx + n, idx)
    vals = _tensor(values, x.device)
    if vals.dtype is not x.dtype:
        vals = _vops.astype(vals, x.dtype)
    vals = _prepend_dims(vals, x.ndim - vals.ndim)
    if idx.size == 1:
        # one block: values keep their own length along the axis (see NumPy's insert)
        if scalar:
            vals = _views.movedim(vals, 0, axis)
        shape = list(x.shape)
        shape[axis] = vals.shape[axis]
        vals = _broadcast(vals, tuple(shape), "insert", "values")
        i = int(idx.reshape(-1)[0])
        return concat([_slice_along(x, axis, 0, i), vals, _slice_along(x, axis, i, n)], axis=axis)
    shape = list(x.shape)
    shape[axis] = idx.size
    vals = _broadcast(vals, tuple(shape), "insert", "values")
    # Note [insert and delete are takes]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # The indices are host data (NumPy's are too), so where each output slice comes from is
    # worked out on the host in O(n) integer steps: output position p holds either slice j of
    # ``x`` or slice i of ``values``. Joining x and values into one tensor (``concat``) and
    # reading it through that map (``take``) is then one gather on the device, differentiated
    # by take's backward (a scatter-add). ``delete`` is the same take with the kept positions.
    order = np.argsort(idx, kind="stable")
    new_pos = np.empty_like(idx)
    new_pos[order] = idx[order] + np.arange(idx.size)
    source = np.empty(n + idx.size, dtype=np.int64)
    is_new = np.zeros(n + idx.size, dtype=bool)
    is_new[new_pos] = True
    source[new_pos] = n + np.arange(idx.size)
    source[~is_new] = np.arange(n)
    return take(concat([x, vals], axis=axis), _index_tensor(source, x), axis=axis)


def _broadcast(x, shape, fn, name):
    try:
        return _views.broadcast_to(x, shape)
    except ValueError:
        raise ValueError(
            f"{fn}: could not broadcast {name} of shape {x.shape} into shape {shape}"
        ) from None


# =============================================================================================
# Flips and turns (views)
# =============================================================================================


def fliplr(m):
    """``m`` with the columns (axis 1) reversed: a negative-stride view. Needs 2 or more dims.

    Examples
    --------
    >>> import strided
    >>> strided.fliplr(strided.arange(4).reshape(2, 2))
    tensor([[1, 0],
            [3, 2]])
    """
    x = _tensor(m)
    if x.ndim < 2:
        raise ValueError(f"fliplr: Input must be >= 2-d, got shape {x.shape}; use flip(x)")
    return _views.flip(x, 1)


def flipud(m):
    """``m`` with the rows (axis 0) reversed: a negative-stride view. Needs 1 or more dims.

    Examples
    --------
    >>> import strided
    >>> strided.flipud(strided.arange(3))
    tensor([2, 1, 0])
    """
    x = _tensor(m)
    if x.ndim < 1:
        raise ValueError("flipud: Input must be >= 1-d, got a 0-d tensor")
    return _views.flip(x, 0)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` turned by 90 degrees ``k`` times in the plane ``axes``, from the first axis
    towards the second: a view (a flip and a transpose), never a copy.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(4).reshape(2, 2)
    >>> strided.rot90(x)
    tensor([[1, 3],
            [0, 2]])
    >>> strided.rot90(x).untyped_storage() is x.untyped_storage()
    True
    """
    x = _tensor(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: len(axes) must be 2, got axes={axes}")
    a0 = _int(axes[0], "rot90", "axes")
    a1 = _int(axes[1], "rot90", "axes")
    nd = x.ndim
    if a0 == a1 or abs(a0 - a1) == nd:
        raise ValueError(f"rot90: Axes must be different, got axes={axes} for {nd} dims")
    if not (-nd <= a0 < nd and -nd <= a1 < nd):
        raise ValueError(f"rot90: Axes={axes} out of range for array of dimension {nd}")
    a0, a1 = a0 % nd, a1 % nd
    k = _int(k, "rot90", "k") % 4
    if k == 0:
        return _views.getitem(x, (Ellipsis,))
    if k == 2:
        return _views.flip(x, (a0, a1))
    perm = list(range(nd))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _views.permute(_views.flip(x, a1), tuple(perm))
    return _views.flip(_views.permute(x, tuple(perm)), a1)


# =============================================================================================
# resize
# =============================================================================================


def resize(a, new_shape):
    """A new tensor of ``new_shape`` filled with ``a``'s elements (row-major), repeated as
    often as needed (NumPy's function, not the in-place method). A fresh tensor.

    Examples
    --------
    >>> import strided
    >>> strided.resize(strided.arange(3), (2, 4))
    tensor([[0, 1, 2, 0],
            [1, 2, 0, 1]])
    """
    x = _tensor(a)
    if (_is_tensor(new_shape) or isinstance(new_shape, np.ndarray)) and new_shape.ndim:
        new_shape = new_shape.tolist()
    if isinstance(new_shape, (list, tuple)):
        shape = tuple(_int(s, "resize", "new_shape") for s in new_shape)
    elif hasattr(type(new_shape), "__index__") and not isinstance(new_shape, bool):
        shape = (operator.index(new_shape),)
    else:
        raise TypeError(
            f"resize: new_shape must be an int or a sequence of ints, got {new_shape!r}"
        )
    if any(s < 0 for s in shape):
        raise ValueError(f"resize: all elements of `new_shape` must be non-negative, got {shape}")
    size = math.prod(shape)
    flat = ravel(x)
    if flat.shape[0] == 0 or size == 0:
        return zeros(shape, dtype=x.dtype, device=x.device)
    reps = -(-size // flat.shape[0])
    return _vops.reshape(_views.narrow(tile(flat, (reps,)), 0, 0, size), shape)


# =============================================================================================
# Diagonals and triangles
# =============================================================================================


def diag(v, k=0):
    """The ``k``-th diagonal of a matrix (a view), or a square matrix with the vector ``v`` on
    its ``k``-th diagonal (a fresh tensor, zeros elsewhere).

    Examples
    --------
    >>> import strided
    >>> strided.diag([1, 2], k=1)
    tensor([[0, 1, 0],
            [0, 0, 2],
            [0, 0, 0]])
    >>> strided.diag(strided.arange(9).reshape(3, 3), k=-1)
    tensor([3, 7])
    """
    x = _tensor(v)
    k = _int(k, "diag", "k")
    if x.ndim == 2:
        return _views.diagonal(x, k, 0, 1)
    if x.ndim != 1:
        raise ValueError(f"diag: Input must be 1- or 2-d, got shape {x.shape}")
    # Note [diag of a vector is a where]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # In the (N, N) result, N = n + |k|, element (i, i + k) is v[i] for k >= 0: along the
    # diagonal the value depends on the row only. So v padded with |k| zeros to length N and
    # seen as a column, broadcast across the rows, holds the right value at every diagonal
    # position; for k < 0 the value depends on the column (element (j - k, j) is v[j]), so
    # the padded v is a row instead. ``where`` with the mask ``eye(N, k=k)`` keeps those and
    # puts zeros elsewhere: no scatter, and differentiable through pad and where.
    n = x.shape[0]
    size = n + abs(k)
    padded = pad_pairs(x, [(0, abs(k))]) if k else x
    values = _views.unsqueeze(padded, 1 if k >= 0 else 0)
    mask = eye(size, k=k, dtype="bool", device=x.device)
    return _E.where(mask, values, zeros((), dtype=x.dtype, device=x.device))


def diagflat(v, k=0):
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal (a fresh tensor).

    Examples
    --------
    >>> import strided
    >>> strided.diagflat([[1, 2]], k=-1)
    tensor([[0, 0, 0],
            [1, 0, 0],
            [0, 2, 0]])
    """
    return diag(ravel(_tensor(v)), k)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along the ``offset`` diagonal of the planes (``axis1``, ``axis2``) (NumPy's
    ``trace``; ``strided.linalg.trace`` is the Array API's, over the last two axes).

    Small integer and bool inputs are summed in int64, as ``sum`` does; an offset past the
    edge gives 0.

    Examples
    --------
    >>> import strided
    >>> strided.trace(strided.arange(9).reshape(3, 3))
    tensor(12)
    >>> strided.trace(strided.ones((2, 3, 3)), offset=1, axis1=1, axis2=2)
    tensor([2., 2.])
    """
    x = _tensor(a)
    if x.ndim < 2:
        raise ValueError(
            f"trace: diag requires an array of at least two dimensions, got shape {x.shape}"
        )
    offset = _int(offset, "trace", "offset")
    d1 = _axis(axis1, x.ndim, "trace", "axis1")
    d2 = _axis(axis2, x.ndim, "trace", "axis2")
    if d1 == d2:
        raise ValueError(f"trace: axis1 and axis2 cannot be the same, got {axis1} and {axis2}")
    d = _views.diagonal(x, offset, d1, d2)
    return _sum(d, axis=-1, dtype=None if dtype is None else as_dtype(dtype), out=out)


# =============================================================================================
# Creation from data
# =============================================================================================
