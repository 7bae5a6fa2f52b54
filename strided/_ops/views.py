"""Shape and view operators, the public functions (Array API names, with PyTorch's too).

Each is thin: it checks and names its arguments, then calls the metadata arithmetic in
``strided/_views.pyx``. Only ``reshape`` (when the strides cannot express the new shape),
``astype`` and ``contiguous`` ever copy, through the copy kernel in ``strided/_cpu/copy.pyx.tp``.
"""

from __future__ import annotations

import operator

from strided import _core, _views
from strided._dtype import as_dtype
from strided._ops import copying as _copying

__all__ = [
    "reshape",
    "view",
    "permute_dims",
    "permute",
    "transpose",
    "matrix_transpose",
    "movedim",
    "moveaxis",
    "swapaxes",
    "flatten",
    "unflatten",
    "squeeze",
    "unsqueeze",
    "expand_dims",
    "expand",
    "broadcast_to",
    "broadcast_arrays",
    "broadcast_shapes",
    "narrow",
    "select",
    "chunk",
    "unbind",
    "unstack",
    "diagonal",
    "flip",
    "as_strided",
    "contiguous",
    "clone",
    "astype",
]


def _tensor(x, fn):
    if not isinstance(x, _core.TensorBase):
        raise TypeError(
            f"{fn}: expected a strided tensor, got {type(x).__name__}; "
            "convert it with strided.asarray(x)"
        )
    return x


def _shape_args(shape):
    """``x.view(2, 3)`` and ``x.view((2, 3))`` alike."""
    if len(shape) == 1 and not isinstance(shape[0], int) and not hasattr(shape[0], "__index__"):
        return tuple(shape[0])
    return tuple(shape)


def view(x, shape):
    """``x`` seen with another shape, never copying. See Note [view versus reshape].

    Examples
    --------
    >>> import strided
    >>> strided.arange(6).view((2, 3)).stride()
    (3, 1)
    """
    return _views.view(_tensor(x, "view"), tuple(shape))


def reshape(x, /, shape, order="C", *, copy=None):
    """``x`` with a new shape: a view when the strides allow it, else a copy (Array API:
    ``copy=False`` forbids the copy, ``copy=True`` forces one). NumPy's ``order="F"`` reads and
    writes the elements first index fastest (the reshape of the reversed dims, reversed back);
    ``order="A"`` is "F" for a tensor that is Fortran-contiguous only, else "C".

    A copied result remembers why in ``explain()``.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(6).reshape((2, 3))
    >>> x.reshape((3, 2)).untyped_storage() is x.untyped_storage()  # a view
    True
    >>> x.T.reshape((6,)).untyped_storage() is x.untyped_storage()  # had to copy
    False
    """
    x = _tensor(x, "reshape")
    if isinstance(shape, int):
        shape = (shape,)
    if order != "C":
        if order not in ("F", "A"):
            raise ValueError(f"reshape: order must be 'C', 'F' or 'A', got {order!r}")
        if order == "F" or (not x.is_contiguous() and _views.reverse_dims(x).is_contiguous()):
            flipped = reshape(_views.reverse_dims(x), tuple(reversed(tuple(shape))), copy=copy)
            return _views.reverse_dims(flipped)
    if copy:
        return _views.view(_copying.contiguous_copy(x), tuple(shape))
    out, reason, resolved = _views.reshape_view(x, tuple(shape))
    if out is not None:
        return out
    if copy is False:
        raise ValueError(
            f"reshape: shape {tuple(shape)} needs a copy of a tensor of shape "
            f"{x.shape} and strides {x.stride()} ({reason}), and copy=False "
            "forbids it"
        )
    out = _views.view(_copying.contiguous_copy(x), resolved)
    out._provenance = (
        f"reshape{resolved} of a tensor with shape {x.shape} and strides "
        f"{x.stride()} had to copy: {reason}"
    )
    return out


def permute_dims(x, /, axes=None):
    """The Array API's name for ``permute``; without ``axes`` it reverses the dims, as NumPy's
    ``np.permute_dims(a)``.

    Examples
    --------
    >>> import strided
    >>> strided.permute_dims(strided.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    x = _tensor(x, "permute_dims")
    if axes is None:
        return _views.reverse_dims(x)
    return _views.permute(x, tuple(axes))


def permute(x, dims):
    """``x`` with its dims in the order ``dims`` (a view)."""
    return _views.permute(_tensor(x, "permute"), tuple(dims))


def transpose(x, /, axes=None, *dims, dim0=None, dim1=None):
    """``x`` with its dims permuted (a view): NumPy's ``transpose(a, axes=None)``, and
    PyTorch's ``transpose(x, dim0, dim1)`` where NumPy would refuse the call.

    Note [Two transposes]
    ~~~~~~~~~~~~~~~~~~~~~
    ``numpy.transpose(a)`` reverses the dims and ``numpy.transpose(a, (1, 0, 2))`` permutes
    them; ``torch.transpose(x, 0, 2)`` swaps two dims. The call with an axes argument is valid
    in both and means different things (``transpose(x, (1, 0))`` would be a swap of dims 1 and
    0 in neither), so NumPy's reading wins (Note [NumPy first] in DESIGN.md): one argument
    after ``x`` is NumPy's ``axes``. Two dims after ``x``, which NumPy refuses (it takes at most
    two arguments), are PyTorch's swap, and so are the keywords ``dim0=``/``dim1=``. The method
    ``Tensor.transpose`` reads its arguments the same way, except that there NumPy's own
    ``a.transpose(1, 0, 2)`` spreads the axes over the arguments.

    Examples
    --------
    >>> import strided
    >>> x = strided.zeros((2, 3, 4))
    >>> strided.transpose(x).shape, strided.transpose(x, (1, 0, 2)).shape
    ((4, 3, 2), (3, 2, 4))
    >>> strided.transpose(x, 0, 2).shape            # PyTorch's swap
    (4, 3, 2)
    >>> strided.transpose(strided.zeros((2, 3)), dim0=0, dim1=1).stride()
    (1, 3)
    """
    x = _tensor(x, "transpose")
    if dim0 is not None or dim1 is not None:
        if dim0 is None or dim1 is None or axes is not None or dims:
            raise TypeError("transpose: give both dim0= and dim1=, and no axes")
        return _views.transpose(x, dim0, dim1)
    if dims:
        if len(dims) != 1:
            raise TypeError(
                f"transpose: takes axes (NumPy's) or two dims to swap (PyTorch's), got "
                f"{1 + len(dims)} arguments after the tensor"
            )
        return _views.transpose(x, axes, dims[0])
    if axes is None:
        return _views.reverse_dims(x)
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)  # NumPy takes a single int for a 1-D tensor
    return _views.permute(x, tuple(axes))


def swapaxes(x, axis1, axis2):
    """NumPy's name for ``transpose``."""
    return _views.transpose(_tensor(x, "swapaxes"), axis1, axis2)


def matrix_transpose(x, /):
    """The last two dims swapped: a stack of transposed matrices (a view)."""
    return _views.matrix_transpose(_tensor(x, "matrix_transpose"))


def movedim(x, source, destination):
    """Move dims to new positions, the others keeping their order (a view)."""
    return _views.movedim(_tensor(x, "movedim"), source, destination)


moveaxis = movedim


def flatten(x, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a view when possible, like reshape)."""
    x = _tensor(x, "flatten")
    return reshape(x, _views.flatten_shape(x, start_dim, end_dim))


def unflatten(x, dim, sizes):
    """Split one dim into several (always a view)."""
    return _views.unflatten(_tensor(x, "unflatten"), dim, sizes)


def squeeze(x, /, axis=None):
    """Remove size-1 dims: all of them, or those in ``axis`` (each must have size 1)."""
    return _views.squeeze(_tensor(x, "squeeze"), axis)


def unsqueeze(x, dim):
    """Insert a size-1 dim at ``dim``."""
    return _views.unsqueeze(_tensor(x, "unsqueeze"), dim)


def expand_dims(x, /, axis=0):
    """``x`` with a size-1 dim inserted at ``axis``, or at each position of a tuple ``axis``
    (a view). See Note [expand_dims with a tuple].

    Examples
    --------
    >>> import strided
    >>> strided.expand_dims(strided.zeros((2, 3)), axis=(0, -1)).shape
    (1, 2, 3, 1)
    """
    t = _tensor(x, "expand_dims")
    if not isinstance(axis, (tuple, list)):
        return _views.unsqueeze(t, axis)
    # Note [expand_dims with a tuple]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # The Array API 2025.12 (and NumPy) number the positions in the *result*, which has
    # M = x.ndim + len(axis) dims: a negative position counts back from M, not from x.ndim.
    # Once every position is made non-negative and sorted, inserting one size-1 dim at a time
    # in ascending order puts each where it was asked for (an earlier insertion only shifts
    # positions above it, and those are inserted later). A position out of [-M, M) is an
    # IndexError, as everywhere in strided; a position named twice is NumPy's ValueError.
    m = t.ndim + len(axis)
    positions = []
    for a in axis:
        a = operator.index(a)
        if not -m <= a < m:
            raise IndexError(
                f"expand_dims: axis {a} is out of range for a result with {m} dims "
                f"(expected a value in [{-m}, {m - 1}])"
            )
        positions.append(a + m if a < 0 else a)
    if len(set(positions)) != len(positions):
        raise ValueError(f"expand_dims: axis {tuple(axis)} names a position twice")
    for p in sorted(positions):
        t = _views.unsqueeze(t, p)
    return t if positions else _views.getitem(t, Ellipsis)  # a view, as NumPy returns


def expand(x, *shape):
    """Broadcast to ``shape`` with stride 0 in the stretched dims (-1 keeps a size)."""
    return _views.expand(_tensor(x, "expand"), _shape_args(shape))


def broadcast_to(x, /, shape):
    """Broadcast ``x`` to ``shape`` (a read-only-for-writes, stride-0 view).

    Examples
    --------
    >>> import strided
    >>> strided.broadcast_to(strided.arange(3), (2, 3)).stride()
    (0, 1)
    """
    if isinstance(shape, int):
        shape = (shape,)
    return _views.broadcast_to(_tensor(x, "broadcast_to"), tuple(shape))


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to, or a ValueError naming the clash.

    Examples
    --------
    >>> import strided
    >>> strided.broadcast_shapes((4, 1), (3,))
    (4, 3)
    """
    return _views.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes])


def broadcast_arrays(*arrays):
    """Views of ``arrays`` broadcast to one common shape, as a tuple (NumPy 2's result and the
    Array API 2025.12's; 2024.12 and before said a list).

    Examples
    --------
    >>> import strided
    >>> a, b = strided.broadcast_arrays(strided.zeros((2, 1)), strided.zeros(3))
    >>> a.shape, b.stride()
    ((2, 3), (0, 1))
    """
    shape = broadcast_shapes(*[_tensor(a, "broadcast_arrays").shape for a in arrays])
    return tuple(_views.broadcast_to(a, shape) for a in arrays)


def narrow(x, dim, start, length):
    """``length`` elements of ``dim`` from ``start`` (a view)."""
    return _views.narrow(_tensor(x, "narrow"), dim, start, length)


def select(x, dim, index):
    """The slice at ``index`` of ``dim``, that dim removed (a view)."""
    return _views.select(_tensor(x, "select"), dim, index)


def chunk(x, chunks, dim=0):
    """``chunks`` nearly equal pieces along ``dim`` (views)."""
    return _views.chunk(_tensor(x, "chunk"), chunks, dim)


def unbind(x, dim=0):
    """Every slice along ``dim`` (views)."""
    return _views.unbind(_tensor(x, "unbind"), dim)


def unstack(x, /, *, axis=0):
    """The Array API's name for ``unbind``."""
    return _views.unbind(_tensor(x, "unstack"), axis)


def diagonal(x, offset=0, axis1=0, axis2=1, *, dim1=None, dim2=None):
    """The diagonal of the (axis1, axis2) planes as the last dim (a view); NumPy's names, or
    PyTorch's ``dim1=``/``dim2=`` (the positions mean the same in both).

    Examples
    --------
    >>> import strided
    >>> strided.diagonal(strided.arange(8).reshape(2, 2, 2), axis1=1, axis2=2)
    tensor([[0, 3],
            [4, 7]])
    """
    axis1 = axis1 if dim1 is None else dim1
    axis2 = axis2 if dim2 is None else dim2
    return _views.diagonal(_tensor(x, "diagonal"), offset, axis1, axis2)


def flip(x, /, axis=None, *, dims=None):
    """Reverse the order of elements along ``axis`` (all by default): a negative-stride view.

    Examples
    --------
    >>> import strided
    >>> strided.flip(strided.arange(4)).stride()
    (-1,)
    """
    x = _tensor(x, "flip")
    return _views.flip(x, dims if dims is not None else axis)


def as_strided(x, size, stride, storage_offset=None):
    """Any view of ``x``'s storage, checked to stay inside it."""
    return _views.as_strided(_tensor(x, "as_strided"), tuple(size), tuple(stride), storage_offset)


def contiguous(x):
    """``x`` itself if it is row-major contiguous, else a row-major copy."""
    x = _tensor(x, "contiguous")
    return x if x.is_contiguous() else _copying.contiguous_copy(x)


def clone(x):
    """A row-major copy of ``x`` that shares nothing with it."""
    return _copying.contiguous_copy(_tensor(x, "clone"))


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype`` (Array API): a copy unless ``copy=False`` and nothing changes.

    Examples
    --------
    >>> import strided
    >>> strided.astype(strided.asarray([1.7, -1.7]), "int32")
    tensor([ 1, -1], dtype=strided.int32)
    """
    x = _tensor(x, "astype")
    d = as_dtype(dtype)
    if device is not None and _core.as_device(device) != x.device:
        raise NotImplementedError("astype: moving between devices needs the CUDA backend")
    if not copy and d is x.dtype:
        return x
    return _copying.contiguous_copy(x, d)
