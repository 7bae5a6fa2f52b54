"""Indexing: ``x[idx]`` and ``x[idx] = v`` with NumPy's rules for integer arrays and boolean
masks, and the indexing functions: ``take``, ``take_along_axis``, ``nonzero``, ``searchsorted``
and one-argument ``where`` (Array API 2025.12), ``index_select``, ``gather``, ``scatter``,
``scatter_add``, ``index_add`` and ``masked_fill`` (PyTorch).

Basic indices (ints, slices, None, ``...``) make views and never come here: ``_views.getitem``
handles them, and hands any index holding an integer array, a mask or a bool to ``getitem``
below (registered with it at import, so that basic indexing pays nothing for this module). Every
function here is thin: it checks its arguments, then three kernels do the work:
``index_offsets`` (``_cpu/offsets.pyx``) checks the indices once and turns them into byte
offsets, then ``index_get`` gathers or ``index_put`` scatters (``_cpu/index.pyx.tp``; see Note
[Advanced indexing is a gather over offsets] and Note [Duplicate indices] there).

Note [NumPy's advanced indexing rules]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An index is *advanced* when one of its items is an integer array (a tensor, a NumPy array, a
list, or a tuple inside the index tuple), a boolean mask, or a bool. Then, as in NumPy:

1. A boolean mask with k dims covers k dims of x, whose sizes it must equal, and stands for its
   ``nonzero()``: k integer arrays. A bare ``True``/``False`` is a 0-d mask: it adds a new dim of
   size 1 (or 0), as ``None`` would, indexed by ``[0]`` (or ``[]``). A mask dim of size 0
   matches a dim of x of any size (the mask selects nothing), as in NumPy and the Array API.
2. Plain ints become 0-d integer arrays, so they count in rule 4.
3. All the integer arrays broadcast together to one shape B, the *index shape*.
4. The result is x with the indexed dims replaced by B: where the first of them was if the
   advanced items stand next to each other in the index (``x[:, i, j]``), else at the front
   (``x[i, :, j]`` has no natural place for B). A None or an Ellipsis between two advanced
   items separates them, even when the Ellipsis stands for no dims.
5. Slices, None and Ellipsis work on the other dims as in basic indexing.

A get returns a copy (the picked elements are not on a stride grid); a set writes through, with
the value broadcast to the result's shape and cast to x's dtype. ``x[i] += 1`` is a get, an add
and a set, so an index repeated in ``i`` is incremented once, as in NumPy; ``index_add``,
``scatter_add`` and ``x.index_put_(i, v, accumulate=True)`` are the accumulating forms.

Note [Two nonzeros]
~~~~~~~~~~~~~~~~~~~
The Array API's ``strided.nonzero(x)`` (NumPy's ``np.nonzero``) returns a tuple of ``x.ndim``
int64 tensors, one per dim: ready to index with, ``x[strided.nonzero(x)]``; so does NumPy's
method ``a.nonzero()``, and so does ``x.nonzero()`` here (NumPy first). PyTorch's ``x.nonzero()``
returns one (n, ndim) tensor, a row of coordinates per hit (``argwhere``): here that is
``x.nonzero(as_tuple=False)``, the call in PyTorch's keyword (``torch_nonzero``). Both come from
one kernel that writes either layout.
"""

from __future__ import annotations

import operator

import numpy as np

from strided import _check, _core, _dispatch, _views
from strided._cpu import index as _index
from strided._cpu import mask as _mask
from strided._cpu import offsets as _offsets
from strided._cpu import search as _search
from strided._dtype import bool_, int64
from strided._dtype import result_type as _result_type
from strided._ops import copying as _copy  # device-generic: CPU and CUDA tensors
from strided._ops import elementwise as _ew
from strided._ops import views as _vops
from strided._ops.creation import asarray

__all__ = [
    "gather",
    "index_add",
    "index_select",
    "masked_fill",
    "nonzero",
    "scatter",
    "scatter_add",
    "searchsorted",
    "take",
    "take_along_axis",
]

_SCALARS = (bool, int, float, complex)
_VALID = (
    "only integers, slices (`:`), ellipsis (`...`), None and integer or boolean arrays are "
    "valid indices"
)


def _dispatched(name, kernel, *args, **kwargs):
    """Run ``kernel`` directly on the fast path, else through the dispatcher (Note [The fast
    path] in _dispatch.py)."""
    if _dispatch.possible[0] == _dispatch.CPU:
        return kernel(*args, **kwargs)
    return _dispatch.call(name, *args, **kwargs)


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


def _int64(t):
    """An integer tensor as int64 (a cast copy if needed; uint64 wraps, as in NumPy)."""
    return t if t.dtype is int64 else _copy.contiguous_copy(t, int64)


def _int_tensor(x, fn, name):
    """``x`` as an int64 tensor, or a TypeError naming the argument."""
    t = _tensor(x)
    if t.dtype.kind not in "iu":
        raise TypeError(f"{fn}: {name} must hold integers, got dtype {t.dtype.name}")
    return _int64(t)


_axis = _check.axis


def _scalar_tensor(value, like):
    """``value`` as a 0-d tensor of ``like``'s dtype, converted as ``fill_`` converts."""
    t = _core._empty((), like.dtype, like.device)
    _copy.fill_(t, value)
    return t


def _as_values(value, like, shape, what):
    """``value`` cast to ``like``'s dtype and broadcast to ``shape`` (a view; leading
    size-1 dims beyond ``shape`` are dropped, as NumPy does in assignments)."""
    if isinstance(value, _SCALARS) or isinstance(value, np.generic):
        t = _scalar_tensor(value, like)
    else:
        t = _tensor(value)
        if t.dtype is not like.dtype:
            t = _copy.contiguous_copy(t, like.dtype)
    given = t.shape
    while t.ndim > len(shape) and t.shape[0] == 1:
        t = _views.getitem(t, 0)
    try:
        return _views.expand(t, shape)
    except ValueError:
        raise ValueError(
            f"shape mismatch: value array of shape {given} could not be broadcast to {what} of "
            f"shape {tuple(shape)}"
        ) from None


# =============================================================================================
# x[index] and x[index] = value. See Note [NumPy's advanced indexing rules].
# =============================================================================================


is_advanced = _index.is_advanced  # compiled: every ``x[i] = v`` asks


def _as_int(item):
    """``item`` as a Python int when it is an integer scalar (not a bool), else None."""
    if type(item) is int:
        return item
    if isinstance(item, (_core.TensorBase, np.ndarray)):
        return int(item) if item.ndim == 0 and item.dtype.kind in "iu" else None
    if isinstance(item, (bool, np.bool_)) or not hasattr(type(item), "__index__"):
        return None
    return operator.index(item)


def _index_tensor(item):
    """An array-like index item as a bool or integer tensor, or IndexError."""
    if isinstance(item, _core.TensorBase):
        t = item
    elif isinstance(item, np.ndarray):
        if item.dtype.kind not in "biu":
            raise IndexError(f"{_VALID}; got an array of dtype {item.dtype}")
        t = asarray(item)
    elif isinstance(item, (list, tuple)):
        try:
            arr = np.asarray(item)  # NumPy reads nested lists fastest
        except (TypeError, ValueError, OverflowError):
            raise IndexError(f"{_VALID}; got {item!r}") from None
        if arr.size == 0:
            arr = arr.astype(np.int64)  # an empty list indexes as integers, as in NumPy
        if arr.dtype.kind not in "biu":
            raise IndexError(f"{_VALID}; got {item!r}")
        t = asarray(arr)
    else:
        raise IndexError(f"{_VALID}; got {type(item).__name__} {item!r}")
    if t.dtype.kind not in "biu":
        raise IndexError(f"{_VALID}; got an array of dtype {t.dtype.name}")
    return t


def _classify(x, items):
    """First pass: each item as (kind, value), and how many dims of x the items consume."""
    parsed = []
    consumed = 0
    ellipsis = False
    for item in items:
        if item is None:
            parsed.append(("none", None))
        elif item is Ellipsis:
            if ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis = True
            parsed.append(("ellipsis", None))
        elif type(item) is slice:
            parsed.append(("slice", item))
            consumed += 1
        elif type(item) is bool or isinstance(item, np.bool_):
            parsed.append(("bool", bool(item)))
        elif (i := _as_int(item)) is not None:
            parsed.append(("int", i))
            consumed += 1
        else:
            t = _index_tensor(item)
            if t.dtype is bool_ and t.ndim == 0:
                parsed.append(("bool", bool(t)))
            elif t.dtype is bool_:
                parsed.append(("mask", t))
                consumed += t.ndim
            else:
                parsed.append(("array", t))
                consumed += 1
    if consumed > x.ndim:
        raise IndexError(f"too many indices for a tensor of shape {x.shape}: {consumed} were given")
    return parsed, consumed


def _broadcast_indices(tensors):
    shapes = [t.shape for t in tensors]
    if shapes.count(shapes[0]) == len(shapes):
        return shapes[0], tuple(tensors)
    try:
        shape = _views.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(s) for s in shapes)
        ) from None
    return shape, tuple(_views.expand(t, shape) for t in tensors)


def _plan(x, index, check):
    """Apply NumPy's rules to ``x[index]``: (v, offsets, dim_map, pos, result shape).

    ``v`` is x after the basic items (the advanced dims kept whole); the offsets are for v's
    advanced dims (checked now, or by the gather as it goes if not ``check``); the kernels'
    loop runs over the result shape, whose dim s walks dim ``dim_map[s]`` of v (-1: an index
    dim), the index dims starting at ``pos``.
    """
    if x.ndim and isinstance(index, (_core.TensorBase, np.ndarray, list)):
        # the most common advanced index, x[i] with one integer array: take along dim 0
        t = _index_tensor(index)
        if t.dtype is not bool_:
            t = _int64(t)
            offsets = _offsets.index_offsets(x, (0,), (t,), (0,), check)
            dim_map = (-1,) * t.ndim + tuple(range(1, x.ndim))
            return x, offsets, dim_map, 0, t.shape + x.shape[1:]
        index = t
    v, adv, lone_mask = _parse(x, index)
    if lone_mask is not None:  # one mask, nothing else advanced: byte offsets in one pass
        offsets = _offsets.mask_offsets(lone_mask[1], v, lone_mask[0])
        vdims = offsets.dims
        index_shape = offsets.offsets.shape
        adjacent = True
    else:
        index_shape, tensors = _broadcast_indices([a[2] for a in adv])
        vdims = tuple(a[1] for a in adv)
        offsets = _offsets.index_offsets(v, vdims, tensors, tuple(a[3] for a in adv), check)
        adjacent = _adjacent(adv)
    return (v, offsets, *_layout(v, vdims, index_shape, adjacent))


def _adjacent(adv):
    """Whether the advanced items stand next to each other in the index (rule 4)."""
    positions = sorted({a[0] for a in adv})
    return positions[-1] - positions[0] == len(positions) - 1


def _parse(x, index):
    """NumPy's rules, the device-independent part: (v, adv, lone_mask).

    ``v`` is x after the basic items; ``adv`` lists the advanced items as (position in the
    index, dim of v, int64 index tensor, dim of x for error messages or None for a bool);
    ``lone_mask`` is (dim of v, contiguous mask) when a mask is the only advanced item (then
    ``adv`` is empty), which a kernel may handle without its nonzero().
    """
    items = index if type(index) is tuple else (index,)
    parsed, consumed = _classify(x, items)
    basic = []
    adv = []  # (item position, dim of v, index tensor, dim of x for error messages)
    vdim = xdim = 0
    advanced = [kind for kind, _ in parsed if kind in ("int", "array", "mask", "bool")]
    lone_mask = None  # (dim of v, mask) when a mask is the only advanced item
    for pos, (kind, val) in enumerate(parsed):
        if kind == "slice":
            basic.append(val)
            vdim += 1
            xdim += 1
        elif kind == "none":
            basic.append(None)
            vdim += 1
        elif kind == "ellipsis":
            n = x.ndim - consumed
            basic.extend([slice(None)] * n)
            vdim += n
            xdim += n
        elif kind == "bool":  # a new dim of size 1, indexed by [0] (True) or [] (False)
            basic.append(None)
            adv.append((pos, vdim, asarray([0] if val else [], dtype=int64), None))
            vdim += 1
        elif kind == "mask":
            k = val.ndim
            covered = x.shape[xdim : xdim + k]
            if val.shape != covered and len(covered) == k and 0 in val.shape:
                # a mask dim of size 0 stands against a dim of any size (rule 1 above)
                if all(m in (c, 0) for m, c in zip(val.shape, covered, strict=True)):
                    val = _core._empty(covered, bool_, val.device, True)  # selects nothing
            if val.shape != covered:
                raise IndexError(
                    f"boolean index of shape {val.shape} does not match the indexed dims "
                    f"{xdim}..{xdim + k - 1} of shape {covered} (of a tensor of shape {x.shape})"
                )
            val = val if val.is_contiguous() else _copy.contiguous_copy(val)
            if advanced == ["mask"]:
                lone_mask = (vdim, val)
                basic.extend([slice(None)] * k)
                vdim += k
                xdim += k
                continue
            # (k, n): one row of coordinates per dim, on the mask's device
            coords = _dispatched("nonzero", _nonzero_cpu, val, False)
            for j in range(k):
                basic.append(slice(None))
                adv.append((pos, vdim, _views.getitem(coords, j), xdim))
                vdim += 1
                xdim += 1
        else:  # "int" or "array"
            if kind == "int":  # checked now, as NumPy does, even if B turns out empty
                n = x.shape[xdim]
                if not -n <= val < n:
                    raise IndexError(f"index {val} is out of bounds for dim {xdim} with size {n}")
                val = asarray(val, dtype=int64)
            basic.append(slice(None))
            adv.append((pos, vdim, _int64(val), xdim))
            vdim += 1
            xdim += 1
    return _views.getitem(x, tuple(basic)), adv, lone_mask


def _layout(v, vdims, index_shape, adjacent):
    """Where the index dims go in the result (rule 4): (dim_map, pos, result shape)."""
    rest = [d for d in range(v.ndim) if d not in vdims]
    nb = len(index_shape)
    if adjacent:  # the index dims replace the indexed ones in place
        before = [d for d in rest if d < vdims[0]]
        after = [d for d in rest if d > vdims[0]]
    else:  # no natural place: the index dims go first
        before, after = [], rest
    dim_map = (*before, *([-1] * nb), *after)
    shape = tuple(v.shape[d] for d in before) + index_shape + tuple(v.shape[d] for d in after)
    return dim_map, len(before), shape


def _index_cpu(x, index):
    v, offsets, dim_map, pos, shape = _plan(x, index, False)
    out = _core._empty(shape, x.dtype, x.device)
    return _index.index_get(v, offsets, dim_map, pos, out)


def _index_put_cpu(x, index, value, accumulate=False):
    v, offsets, dim_map, pos, shape = _plan(x, index, True)
    values = _as_values(value, x, shape, "indexing result")
    _index.index_put(v, offsets, dim_map, pos, values, accumulate)
    return x


_dispatch.register("index", "CPU", _index_cpu)
_dispatch.register("index_put_", "CPU", _index_put_cpu)


def getitem(x, index):
    """``x[index]`` for an advanced index: a new tensor (see Note [NumPy's advanced indexing
    rules]). ``_views.getitem`` calls it for any index that is not basic.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(12).reshape(3, 4)
    >>> x[[2, 0]]                       # rows 2 and 0
    tensor([[ 8,  9, 10, 11],
            [ 0,  1,  2,  3]])
    >>> x[[0, 2], [1, 3]]               # elements (0, 1) and (2, 3)
    tensor([ 1, 11])
    >>> x[x % 5 == 0]                   # a mask: its nonzero() coordinates
    tensor([ 0,  5, 10])
    >>> x[:, [0]].shape, x[[0], :, None].shape
    ((3, 1), (1, 4, 1))
    """
    return _dispatched("index", _index_cpu, x, index)


def setitem(x, index, value):
    """``x[index] = value`` for an advanced index: ``value`` broadcast to the indexing result's
    shape and cast to x's dtype; with repeated indices the last write wins (Note [Duplicate
    indices] in _cpu/index.pyx.tp).

    Examples
    --------
    >>> import strided
    >>> x = strided.zeros(5, dtype="int64")
    >>> x[[0, 3, 0]] = strided.asarray([1, 2, 3])
    >>> x
    tensor([3, 0, 0, 2, 0])
    """
    _dispatched("index_put_", _index_put_cpu, x, index, value)


def index_put(x, indices, values, accumulate=False, *, inplace=False):
    """PyTorch's ``index_put``: ``x[indices] = values`` (``accumulate``: ``+=`` that adds
    every repeated index, as ``np.add.at``), on a copy unless ``inplace``."""
    if not isinstance(x, _core.TensorBase):
        raise TypeError(f"index_put: x must be a tensor, got {type(x).__name__}")
    target = x if inplace else x.clone()
    index = tuple(indices) if isinstance(indices, (list, tuple)) else (indices,)
    if all(i is None or i is Ellipsis or isinstance(i, slice) or type(i) is int for i in index):
        # no array part (ints, slices, ...): a view that holds every element once, so the
        # accumulating form is a plain +=
        if accumulate:
            view = target[index]
            view += values
        else:
            target[index] = values
        return target
    return _dispatched("index_put_", _index_put_cpu, target, index, values, bool(accumulate))


_views._register_advanced_indexing(getitem)


# =============================================================================================
# take, take_along_axis, index_select, gather
# =============================================================================================


def _take_cpu(x, indices, axis):
    off = _offsets.index_offsets(x, (axis,), (indices,), (axis,), False)
    dim_map = (*range(axis), *([-1] * indices.ndim), *range(axis + 1, x.ndim))
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1 :]
    return _index.index_get(x, off, dim_map, axis, _core._empty(shape, x.dtype, x.device))


_dispatch.register("take", "CPU", _take_cpu)
_dispatch.register("index_select", "CPU", _take_cpu)


def take(x, indices, /, axis=None, out=None, mode="raise"):
    """Elements of ``x`` at ``indices`` along ``axis``: ``x[..., indices, ...]`` with the index
    at dim ``axis``; with ``axis=None``, of the flattened ``x`` (as NumPy and ``torch.take``;
    the Array API asks for ``axis`` when x has 2+ dims). Negative indices count from the end.
    NumPy's ``mode``: "raise" refuses an index out of range, "wrap" takes it modulo the dim's
    length, "clip" moves it to the nearest end (a negative one to 0); ``out=`` receives it.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[1, 2, 3], [4, 5, 6]])
    >>> strided.take(x, strided.asarray([2, 0]), axis=1)
    tensor([[3, 1],
            [6, 4]])
    >>> strided.take(x, [-1, 0])
    tensor([6, 1])
    """
    x = _tensor(x)
    idx = _int_tensor(indices, "take", "indices")
    if axis is None:
        x = _vops.reshape(x, (-1,))
        axis = 0
    else:
        axis = _axis(axis, x.ndim, "take")
    if mode != "raise":
        from strided._ops.placing import _index_mode  # put's rule (placing imports this module)

        n = x.shape[axis]
        if n == 0 and idx.numel() and mode in ("wrap", "clip"):
            raise IndexError(f"take: cannot take from axis {axis} of length 0 (mode={mode!r})")
        idx = _index_mode(idx, n, mode, "take", "indices")
    r = _dispatched("take", _take_cpu, x, idx, axis)
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        raise ValueError(f"take: out has shape {tuple(out.shape)}, the result {tuple(r.shape)}")
    out.copy_(r)
    return out


def index_select(x, dim, index):
    """PyTorch's ``index_select``: the slices of ``x`` along ``dim`` at the 1-D ``index``.

    Examples
    --------
    >>> import strided
    >>> strided.index_select(strided.arange(6).reshape(2, 3), 1, strided.asarray([2, 2]))
    tensor([[2, 2],
            [5, 5]])
    """
    x = _tensor(x)
    idx = _int_tensor(index, "index_select", "index")
    if idx.ndim > 1:
        raise ValueError(f"index_select: index must be 1-D, got shape {idx.shape}")
    if x.ndim == 0:
        x = _vops.reshape(x, (1,))
    dim = _axis(dim, x.ndim, "index_select", "dim")
    return _dispatched("index_select", _take_cpu, x, _vops.reshape(idx, (-1,)), dim)


def _gather_cpu(x, dim, index):
    off = _offsets.index_offsets(x, (dim,), (index,), (dim,), False)
    dim_map = tuple(-1 if d == dim else d for d in range(x.ndim))
    return _index.index_get(x, off, dim_map, 0, _core._empty(index.shape, x.dtype, x.device))


_dispatch.register("gather", "CPU", _gather_cpu)
_dispatch.register("take_along_axis", "CPU", _gather_cpu)


def _along_args(x, dim, index, fn):
    """x and an int64 index of as many dims, dim normalised (0-d inputs become 1-D)."""
    x = _tensor(x)
    idx = _int_tensor(index, fn, "index")
    if idx.ndim != x.ndim:
        raise ValueError(
            f"{fn}: index must have as many dims as x ({x.ndim}), got shape {idx.shape}"
        )
    if x.ndim == 0:
        _axis(dim, 1, fn, "dim")
        return _vops.reshape(x, (1,)), 0, _vops.reshape(idx, (1,))
    return x, _axis(dim, x.ndim, fn, "dim"), idx


def _check_not_larger(fn, small, big, dim, what_small, what_big):
    for d in range(big.ndim):
        if d != dim and small.shape[d] > big.shape[d]:
            raise ValueError(
                f"{fn}: {what_small} of shape {small.shape} is larger than {what_big} of shape "
                f"{big.shape} at dim {d} (only dim {dim} may be larger)"
            )


def gather(x, dim, index):
    """PyTorch's ``gather``: ``out[i][j][k] = x[index[i][j][k]][j][k]`` (for dim 0), with
    ``out`` of ``index``'s shape, which may be smaller than ``x``'s in the other dims.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[1, 2], [3, 4]])
    >>> strided.gather(x, 1, strided.asarray([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
    """
    shape = _tensor(index).shape
    x, dim, idx = _along_args(x, dim, index, "gather")
    _check_not_larger("gather", idx, x, dim, "index", "x")
    return _vops.reshape(_dispatched("gather", _gather_cpu, x, dim, idx), shape)


def take_along_axis(x, indices, /, axis=-1):
    """Elements of ``x`` at ``indices`` along ``axis``, matching positions in the other dims
    (which broadcast): ``out[i, j] = x[i, indices[i, j]]`` for ``axis=1``. The result of
    ``argsort`` or ``argmax(keepdims=True)`` picks values this way.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[10, 30, 20], [60, 50, 40]])
    >>> strided.take_along_axis(x, strided.asarray([[0, 2, 1], [2, 1, 0]]), axis=1)
    tensor([[10, 20, 30],
            [40, 50, 60]])
    """
    x = _tensor(x)
    idx = _int_tensor(indices, "take_along_axis", "indices")
    if x.ndim != idx.ndim or x.ndim == 0:
        raise ValueError(
            "take_along_axis: x and indices must have the same number of dims (at least 1), "
            f"got shapes {x.shape} and {idx.shape}"
        )
    axis = _axis(axis, x.ndim, "take_along_axis")
    xs, js = list(x.shape), list(idx.shape)
    xs[axis] = js[axis] = 1
    try:
        common = list(_views.broadcast_shapes(xs, js))
    except ValueError:
        raise ValueError(
            f"take_along_axis: x of shape {x.shape} and indices of shape {idx.shape} do not "
            f"broadcast together outside axis {axis}"
        ) from None
    # expanded only where broadcasting changes a shape: an expand to the same shape would still
    # be a view, and under autograd a node of the graph
    x_shape = (*common[:axis], x.shape[axis], *common[axis + 1 :])
    idx_shape = (*common[:axis], idx.shape[axis], *common[axis + 1 :])
    if x.shape != x_shape:
        x = _views.expand(x, x_shape)
    if idx.shape != idx_shape:
        idx = _views.expand(idx, idx_shape)
    return _dispatched("take_along_axis", _gather_cpu, x, axis, idx)


# =============================================================================================
# scatter, scatter_add, index_add: writes. See Note [Duplicate indices] in _cpu/index.pyx.tp.
# =============================================================================================


def _scatter_cpu(x, dim, index, src, accumulate):
    off = _offsets.index_offsets(x, (dim,), (index,), (dim,))
    dim_map = tuple(-1 if d == dim else d for d in range(x.ndim))
    return _index.index_put(x, off, dim_map, 0, src, accumulate)


def _scatter_assign_cpu(x, dim, index, src):
    return _scatter_cpu(x, dim, index, src, False)


def _scatter_add_cpu(x, dim, index, src):
    return _scatter_cpu(x, dim, index, src, True)


_dispatch.register("scatter_", "CPU", _scatter_assign_cpu)
_dispatch.register("scatter_add_", "CPU", _scatter_add_cpu)


def _scatter(x, dim, index, src, fn, accumulate, inplace):
    x = _tensor(x)
    target, dim, idx = _along_args(x if inplace else x.clone(), dim, index, fn)
    _check_not_larger(fn, idx, target, dim, "index", "x")
    if isinstance(src, _SCALARS) or isinstance(src, np.generic):
        values = _views.expand(_scalar_tensor(src, target), idx.shape)
    else:
        s = _tensor(src)
        if s.ndim == 0 and target.ndim == 1 and x.ndim == 0:
            s = _vops.reshape(s, (1,))
        if s.ndim != idx.ndim or any(a > b for a, b in zip(idx.shape, s.shape, strict=True)):
            raise ValueError(
                f"{fn}: src of shape {s.shape} must have index's dims and be at least as large "
                f"in each (index has shape {idx.shape})"
            )
        s = _views.getitem(s, tuple(slice(0, n) for n in idx.shape))
        values = s if s.dtype is x.dtype else _copy.contiguous_copy(s, x.dtype)
    if accumulate:
        _dispatched("scatter_add_", _scatter_add_cpu, target, dim, idx, values)
    else:
        _dispatched("scatter_", _scatter_assign_cpu, target, dim, idx, values)
    return x if inplace else target.reshape(x.shape)


def scatter(x, dim, index, src, *, inplace=False):
    """PyTorch's ``scatter``: a copy of ``x`` with ``x[index[i][j]][j] = src[i][j]`` (for dim
    0); ``src`` may be a scalar. Where ``index`` repeats a position, the last write in
    row-major order of ``index`` wins (deterministic here; undefined in PyTorch).

    Examples
    --------
    >>> import strided
    >>> strided.scatter(strided.zeros((2, 3), dtype="int64"), 1,
    ...                 strided.asarray([[2], [0]]), strided.asarray([[7], [8]]))
    tensor([[0, 0, 7],
            [8, 0, 0]])
    """
    return _scatter(x, dim, index, src, "scatter", False, inplace)


def scatter_add(x, dim, index, src, *, inplace=False):
    """PyTorch's ``scatter_add``: a copy of ``x`` with ``x[index[i][j]][j] += src[i][j]`` (for
    dim 0), every repeated position adding, in row-major order of ``index``, so that results do
    not depend on the thread count.

    Examples
    --------
    >>> import strided
    >>> strided.scatter_add(strided.zeros(3, dtype="int64"), 0,
    ...                     strided.asarray([0, 2, 0, 0]), strided.asarray([1, 2, 3, 4]))
    tensor([8, 0, 2])
    """
    return _scatter(x, dim, index, src, "scatter_add", True, inplace)


def _index_add_cpu(x, dim, index, source):
    off = _offsets.index_offsets(x, (dim,), (index,), (dim,))
    dim_map = tuple(-1 if d == dim else d for d in range(x.ndim))
    return _index.index_put(x, off, dim_map, dim, source, True)


_dispatch.register("index_add_", "CPU", _index_add_cpu)


def index_add(x, dim, index, source, *, alpha=1, inplace=False):
    """PyTorch's ``index_add``: a copy of ``x`` with ``x[..., index[i], ...] += alpha *
    source[..., i, ...]`` along ``dim``; repeated indices all add, in order (the same sums
    with any number of threads).

    Examples
    --------
    >>> import strided
    >>> strided.index_add(strided.zeros((3, 2)), 0, strided.asarray([0, 2, 0]),
    ...                   strided.ones((3, 2)), alpha=10)
    tensor([[20., 20.],
            [ 0.,  0.],
            [10., 10.]])
    """
    x = _tensor(x)
    idx = _int_tensor(index, "index_add", "index")
    if idx.ndim > 1:
        raise ValueError(f"index_add: index must be 1-D, got shape {idx.shape}")
    idx = _vops.reshape(idx, (-1,))
    target = x if inplace else x.clone()
    if target.ndim == 0:
        target = _vops.reshape(target, (1,))
    dim = _axis(dim, target.ndim, "index_add", "dim")
    src = _tensor(source)
    if x.ndim == 0 and src.ndim == 0:
        src = _vops.reshape(src, (1,))
    expected = target.shape[:dim] + (idx.shape[0],) + target.shape[dim + 1 :]
    if src.shape != expected:
        raise ValueError(
            f"index_add: source must have shape {expected} (x's shape with dim {dim} as long as "
            f"index), got {src.shape}"
        )
    if alpha != 1:
        if x.dtype.kind in "biu" and not isinstance(alpha, (int, np.integer)):
            raise TypeError(f"index_add: alpha must be an integer for {x.dtype.name} x")
        src = _ew.multiply(src, alpha)
    if src.dtype is not x.dtype:
        src = _copy.contiguous_copy(src, x.dtype)
    _dispatched("index_add_", _index_add_cpu, target, dim, idx, src)
    return x if inplace else target.reshape(x.shape)


# =============================================================================================
# masked_fill, nonzero, searchsorted
# =============================================================================================


def _masked_fill_cpu(x, mask, value, out=None):
    return _ew.where(mask, value, x, out=out)


_dispatch.register("masked_fill", "CPU", _masked_fill_cpu)


def masked_fill(x, mask, value, *, inplace=False):
    """PyTorch's ``masked_fill``: ``x`` with ``value`` where the bool ``mask`` (broadcast to
    x's shape) is true; ``value`` (a scalar or 0-d tensor) is cast to x's dtype.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(4)
    >>> strided.masked_fill(x, x > 1, -1)
    tensor([ 0,  1, -1, -1])
    """
    x = _tensor(x)
    mask = _tensor(mask)
    if mask.dtype is not bool_:
        raise TypeError(f"masked_fill: mask must be a bool tensor, got {mask.dtype.name}")
    try:
        fits = _views.broadcast_shapes(x.shape, mask.shape) == x.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"masked_fill: mask of shape {mask.shape} does not broadcast to x's shape {x.shape}"
        )
    if isinstance(value, _core.TensorBase):
        if value.ndim != 0:
            raise ValueError(f"masked_fill: value must be a scalar or 0-d, got shape {value.shape}")
        v = value if value.dtype is x.dtype else _copy.contiguous_copy(value, x.dtype)
    else:
        v = _scalar_tensor(value, x)
    return _dispatched("masked_fill", _masked_fill_cpu, x, mask, v, x if inplace else None)


def _nonzero_cpu(x, coords_last):
    m = x if x.dtype is bool_ and x.is_contiguous() else _copy.contiguous_copy(x, bool_)
    return _mask.nonzero(m, coords_last)


_dispatch.register("nonzero", "CPU", _nonzero_cpu)


def nonzero(x, /):
    """The indices of the non-zero elements of ``x``, one int64 tensor per dim, in row-major
    order (the Array API's and NumPy's form; see Note [Two nonzeros] for PyTorch's). NaN and
    -0.0 count as they compare: NaN is non-zero, -0.0 is zero.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[0, 7], [3, 0]])
    >>> strided.nonzero(x)
    (tensor([0, 1]), tensor([1, 0]))
    >>> x[strided.nonzero(x)]
    tensor([7, 3])
    """
    x = _tensor(x)
    if x.ndim == 0:
        raise ValueError(
            "nonzero: x must have at least one dim (the Array API and NumPy 2 refuse 0-d "
            "input); use strided.nonzero(x.reshape(1))"
        )
    rows = _dispatched("nonzero", _nonzero_cpu, x, False)
    return tuple(_views.getitem(rows, k) for k in range(x.ndim))


def torch_nonzero(x, *, as_tuple=False):
    """PyTorch's ``x.nonzero()``: an (n, ndim) int64 tensor of coordinates, one row per
    non-zero element (``as_tuple=True``: the tuple of ``strided.nonzero``). See Note [Two
    nonzeros]."""
    x = _tensor(x)
    if x.ndim == 0:
        if as_tuple:
            return nonzero(_vops.reshape(x, (1,)))
        return _core._empty((1 if bool(x) else 0, 0), int64, x.device)
    if as_tuple:
        return nonzero(x)
    return _dispatched("nonzero", _nonzero_cpu, x, True)


def _searchsorted_cpu(x1, x2, right):
    out = _core._empty(x2.shape, int64, x2.device)
    return _search.searchsorted(x1, x2, out, right)


_dispatch.register("searchsorted", "CPU", _searchsorted_cpu)


def searchsorted(x1, x2, /, side="left", sorter=None):
    """Where each element of ``x2`` would go in the sorted 1-D ``x1`` to keep it sorted: the
    first position ``i`` with ``x2 <= x1[i]`` (``side="left"``) or ``x2 < x1[i]``
    (``side="right"``), as int64 of ``x2``'s shape. Both compare in their promoted dtype (x2's
    Python scalars too, as NumPy); NaN sorts after every number, as in NumPy's ``sort``.
    ``sorter`` holds the indices that sort ``x1`` when x1 itself is not sorted. Complex numbers
    follow NumPy's sort order (real part, then imaginary part; NaNs last).

    Examples
    --------
    >>> import strided
    >>> x1 = strided.asarray([1.0, 2.0, 2.0, 3.0, float("nan")])
    >>> strided.searchsorted(x1, strided.asarray([2.0, 2.5, float("nan")]))
    tensor([1, 3, 4])
    >>> strided.searchsorted(x1, 2.0, side="right")
    tensor(3)
    """
    x1 = _tensor(x1)
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {x1.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if sorter is not None:
        order = _int_tensor(sorter, "searchsorted", "sorter")
        if order.shape != x1.shape:
            raise ValueError(
                f"searchsorted: sorter must have x1's shape {x1.shape}, got {order.shape}"
            )
        try:
            x1 = take(x1, order)
        except IndexError as e:
            raise ValueError(f"searchsorted: sorter index out of range: {e}") from None
    x2 = _tensor(x2)
    dtype = _result_type(x1.dtype, x2.dtype)
    if dtype.kind == "c":  # NumPy's sort order (Note [The extremes of complex numbers])
        from strided._ops import complex_order

        return complex_order.searchsorted(x1.astype(dtype), x2.astype(dtype), side == "right")
    if x1.dtype is not dtype or not x1.is_contiguous():
        x1 = _copy.contiguous_copy(x1, dtype)
    if x2.dtype is not dtype:
        x2 = _copy.contiguous_copy(x2, dtype)
    return _dispatched("searchsorted", _searchsorted_cpu, x1, x2, side == "right")


# The CUDA kernels of these ops, the same compositions over the CUDA backend's index kernels.
from strided._ops import indexing_cuda as _indexing_cuda  # noqa: E402, F401
