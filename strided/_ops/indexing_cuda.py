"""The CUDA kernels of the indexing ops, registered under the dispatcher's CUDA key.

Each has the signature and meaning of its CPU twin in strided/_ops/indexing.py and is the same
composition, with the CUDA backend's index kernels (strided/cuda/_index.py: ``index_offsets``,
``index_get``, ``index_put``, ``nonzero``, ``searchsorted``) in place of the CPU's. NumPy's
indexing rules are applied once, by ``indexing._parse`` and ``indexing._layout``, for both
devices. See Note [CUDA indexing is a gather over byte offsets], Note [Checking indices on the
device] (bad indices raise at the next synchronisation; no op here waits for the GPU except
boolean-mask indexing, whose result size depends on the data) and Note [Duplicate indices on a
GPU] in strided/cuda/_index.py.

Index tensors may live on the host while the indexed tensor is on the device (``x[[0, 2]]``
makes its index on the CPU; PyTorch accepts CPU indices for CUDA tensors too): they are copied
to the device first. The indexed tensor itself is never moved.
"""

from __future__ import annotations

from strided import _core, _dispatch, _views
from strided._dtype import bool_
from strided._ops import copying as _copy
from strided._ops import indexing as _ix

__all__: list[str] = []


def _cuda():
    from strided.cuda import _index  # loaded with the first CUDA tensor

    return _index


def _on(t, ref):
    """``t`` on ``ref``'s device (a copy if it is elsewhere)."""
    if t.device is ref.device:
        return t
    if not ref.device.is_cuda:
        raise ValueError(
            f"an index or value tensor is on {t.device}, but the indexed tensor is on "
            f"{ref.device}; move them to one device first"
        )
    out = _core._empty(t.shape, t.dtype, ref.device)
    return _copy.copy_(out, t)


def _coords(mask):
    """The (k, n) nonzero coordinates of a bool mask, on the mask's device."""
    m = mask if mask.is_contiguous() else _copy.contiguous_copy(mask)
    if m.device.is_cuda:
        return _cuda().nonzero(m, False)
    return _ix._nonzero_cpu(m, False)


def _parsed(x, index):
    """NumPy's rules applied to ``x[index]`` on a CUDA tensor: (v, indexed dims, index tensors
    broadcast and on v's device, their names, (dim_map, pos, result shape))."""
    v, adv, lone_mask = _ix._parse(x, index)
    if lone_mask is not None:  # a lone mask is its nonzero(): k index tensors side by side
        vdim, mask = lone_mask
        coords = _coords(mask)
        adv = [(0, vdim + j, _views.getitem(coords, j), None) for j in range(mask.ndim)]
        adjacent = True
    else:
        adjacent = _ix._adjacent(adv)
    index_shape, tensors = _ix._broadcast_indices([_on(a[2], v) for a in adv])
    vdims = tuple(a[1] for a in adv)
    names = tuple(a[3] for a in adv)
    return v, vdims, tensors, names, _ix._layout(v, vdims, index_shape, adjacent)


def _plan(x, index):
    """``indexing._plan`` for a CUDA tensor: (v, offsets, dim_map, pos, result shape)."""
    v, vdims, tensors, names, layout = _parsed(x, index)
    offsets = _cuda().index_offsets(v, vdims, tensors, names, "an advanced index")
    return (v, offsets, *layout)


def _index_cuda(x, index):
    v, vdims, tensors, names, (dim_map, pos, shape) = _parsed(x, index)
    out = _core._empty(shape, x.dtype, x.device)
    k = _cuda()
    # one index picking whole rows: one launch (Note [Gathering whole rows])
    if len(tensors) == 1:
        what = "an advanced index"
        if k.index_rows(v, vdims[0], tensors[0], dim_map, pos, out, names[0], what):
            return out
    offsets = k.index_offsets(v, vdims, tensors, names, "an advanced index")
    return k.index_get(v, offsets, dim_map, pos, out)


def _index_put_cuda(x, index, value, accumulate=False):
    v, offsets, dim_map, pos, shape = _plan(x, index)
    values = _on(_ix._as_values(value, x, shape, "indexing result"), x)
    _cuda().index_put(v, offsets, dim_map, pos, values, accumulate)
    return x


def _take_cuda(x, indices, axis):
    k = _cuda()
    indices = _on(indices, x)
    dim_map = (*range(axis), *([-1] * indices.ndim), *range(axis + 1, x.ndim))
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1 :]
    out = _core._empty(shape, x.dtype, x.device)
    if k.index_rows(x, axis, indices, dim_map, axis, out, axis, "take"):
        return out
    off = k.index_offsets(x, (axis,), (indices,), (axis,), "take")
    return k.index_get(x, off, dim_map, axis, out)


def _along(x, dim, index, what):
    """The offsets of a gather/scatter along ``dim`` and its loop's dim_map."""
    off = _cuda().index_offsets(x, (dim,), (_on(index, x),), (dim,), what)
    return off, tuple(-1 if d == dim else d for d in range(x.ndim))


def _gather_cuda(x, dim, index):
    off, dim_map = _along(x, dim, index, "gather")
    out = _core._empty(index.shape, x.dtype, x.device)
    return _cuda().index_get(x, off, dim_map, 0, out)


def _scatter_assign_cuda(x, dim, index, src):
    off, dim_map = _along(x, dim, index, "scatter_")
    return _cuda().index_put(x, off, dim_map, 0, _on(src, x), False)


def _scatter_add_cuda(x, dim, index, src):
    off, dim_map = _along(x, dim, index, "scatter_add_")
    return _cuda().index_put(x, off, dim_map, 0, _on(src, x), True)


def _index_add_cuda(x, dim, index, source):
    off, dim_map = _along(x, dim, index, "index_add_")
    return _cuda().index_put(x, off, dim_map, dim, _on(source, x), True)


def _masked_fill_cuda(x, mask, value, out=None):
    return _ix._masked_fill_cpu(x, _on(mask, x), _on(value, x), out)  # a device-generic where


def _nonzero_cuda(x, coords_last):
    m = x if x.dtype is bool_ and x.is_contiguous() else _copy.contiguous_copy(x, bool_)
    return _cuda().nonzero(m, coords_last)


def _searchsorted_cuda(x1, x2, right):
    ref = x1 if x1.device.is_cuda else x2
    x1 = _on(x1, ref)
    x2 = _on(x2, ref)
    out = _core._empty(x2.shape, _ix.int64, ref.device)
    return _cuda().searchsorted(x1, x2, out, right)


for _name, _kernel in (
    ("index", _index_cuda),
    ("index_put_", _index_put_cuda),
    ("take", _take_cuda),
    ("index_select", _take_cuda),
    ("gather", _gather_cuda),
    ("take_along_axis", _gather_cuda),
    ("scatter_", _scatter_assign_cuda),
    ("scatter_add_", _scatter_add_cuda),
    ("index_add_", _index_add_cuda),
    ("masked_fill", _masked_fill_cuda),
    ("nonzero", _nonzero_cuda),
    ("searchsorted", _searchsorted_cuda),
):
    _dispatch.register(_name, "CUDA", _kernel)
