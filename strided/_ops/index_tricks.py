"""NumPy's index tricks: the objects that build arrays from index expressions (``r_``, ``c_``,
``mgrid``, ``ogrid``, ``s_``, ``index_exp``) and the functions that make or convert indices
(``indices``, ``ix_``, ``ravel_multi_index``, ``unravel_index``, ``tril_indices``,
``triu_indices``, ``diag_indices`` and their ``_from`` forms), with NumPy's names, signatures and
results (int64 indices, NumPy's dtype for each grid).

None of them has a kernel. An index is arithmetic on ``arange``: ``unravel_index`` is a
``floor_divide`` and a ``remainder`` per dim, ``ravel_multi_index`` a dot product with the
row-major strides, ``tril_indices`` the ``nonzero`` of a ``tri`` mask, ``indices`` one broadcast
``arange`` per dim. The Python loops here run once per dim or per item of an index expression,
never per element.

Note [Index expressions as arrays]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``r_[1:4, 0, [7, 8]]`` uses ``__getitem__`` as a compact array literal: Python hands the object
the tuple ``(slice(1, 4), 0, [7, 8])`` and the object decides what each item means. As in NumPy:

- a slice ``a:b:s`` is ``arange(a, b, s)``; a complex step ``a:b:nj`` is ``linspace(a, b, n)``
  (n points, both ends included), the one place where a complex number means a count;
- a Python scalar is a one-element piece, *weak* in the result dtype (NEP 50: ``r_[int8s, 1]``
  stays int8) while a NumPy scalar or an array is strong;
- a leading string is a directive: ``"0"``/``"1"``/``"-1"`` picks the axis, ``"a,n"`` also asks
  for at least n dims, ``"a,n,t"`` also says where a lower-dim piece's own dims go among those n
  (``t`` = -1, the default, puts them last; ``c_`` is ``r_["-1,2,0"]``: 1-D pieces become
  columns). ``"r"``/``"c"`` make NumPy return a ``numpy.matrix`` row or column; strided has no
  matrix class and returns the same values as a 2-D tensor of shape (1, n) or (n, 1).

Every piece is brought to at least ``ndmin`` dims, cast to the one result dtype, and the pieces
are concatenated along the axis: one ``concatenate``, whatever the number of pieces.
"""

from __future__ import annotations

import math

import numpy as np

from strided import _check, _core, _views
from strided._dtype import as_dtype, int64
from strided._dtype import bool_ as _bool
from strided._dtype import result_type as _result_type
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import views as _vops
from strided._ops.arrays import _prepend_dims
from strided._ops.construction import tri
from strided._ops.indexing import nonzero
from strided._ops.joining import concatenate
from strided._ops.shape import stack

__all__ = [
    "r_",
    "c_",
    "mgrid",
    "ogrid",
    "s_",
    "index_exp",
    "indices",
    "fromfunction",
    "ix_",
    "ravel_multi_index",
    "unravel_index",
    "tril_indices",
    "triu_indices",
    "tril_indices_from",
    "triu_indices_from",
    "diag_indices",
    "diag_indices_from",
]

_PY_SCALARS = (bool, int, float, complex)

# ``s_`` and ``index_exp`` build plain Python slices and tuples, no arrays: NumPy's objects are
# the definition, shared as they are.
s_ = np.s_
index_exp = np.index_exp


def _is_complex_step(step):
    return isinstance(step, (complex, np.complexfloating))


def _slice_range(item, device):
    """A slice of an index expression as a tensor: ``arange``, or ``linspace`` for a complex
    step (the number of points, see Note [Index expressions as arrays])."""
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if item.stop is None:
        raise ValueError(f"r_: the slice {item!r} needs a stop value")
    if _is_complex_step(step):
        return _cr.linspace(start, item.stop, num=int(abs(step)), device=device)
    return _cr.arange(start, item.stop, step, device=device)


def _piece_dims(t, ndmin, trans1d):
    """``t`` with at least ``ndmin`` dims; its own dims moved to position ``trans1d`` among
    them, NumPy's third directive (a view)."""
    nd = t.ndim
    t = _prepend_dims(t, ndmin - nd)
    if trans1d != -1 and nd < ndmin:
        k2 = ndmin - nd
        k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
        dims = list(range(ndmin))
        t = _vops.permute_dims(t, tuple(dims[:k1] + dims[k2:] + dims[k1:k2]))
    return t


class AxisConcatenator:
    """The class of ``r_`` and ``c_``: ``obj[items]`` concatenates the items along an axis
    (see Note [Index expressions as arrays])."""

    def __init__(self, axis=0, matrix=False, ndmin=1, trans1d=-1, name="r_"):
        self.axis = axis
        self.matrix = matrix
        self.ndmin = ndmin
        self.trans1d = trans1d
        self._name = name

    def _directive(self, item, state):
        """Apply a leading string directive to ``state`` (axis, ndmin, trans1d, matrix)."""
        if item in ("r", "c"):
            state["matrix"] = item
            return
        try:
            parts = [int(p) for p in item.split(",")]
        except ValueError:
            parts = []
        if not 1 <= len(parts) <= 3:
            raise ValueError(
                f"{self._name}: unknown special directive {item!r} (expected 'r', 'c', or "
                "'axis', 'axis,ndmin' or 'axis,ndmin,trans1d' made of integers)"
            )
        state["axis"] = parts[0]
        if len(parts) > 1:
            state["ndmin"] = parts[1]
        if len(parts) > 2:
            state["trans1d"] = parts[2]

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        state = {"axis": self.axis, "ndmin": self.ndmin, "trans1d": self.trans1d}
        state["matrix"] = "r" if self.matrix else None
        device = next((k.device for k in key if isinstance(k, _core.TensorBase)), None)
        pieces, kinds = [], []
        for i, item in enumerate(key):
            if isinstance(item, str):
                if i != 0:
                    raise ValueError(
                        f"{self._name}: special directives must be the first entry, got "
                        f"{item!r} at position {i}"
                    )
                self._directive(item, state)
                continue
            ndmin, trans1d = state["ndmin"], state["trans1d"]
            if isinstance(item, slice):
                t = _prepend_dims(_slice_range(item, device), ndmin - 1)
                if ndmin > 1 and trans1d != -1:
                    t = _vops.swapaxes(t, -1, trans1d)  # NumPy swaps a range's dim into place
                kinds.append(t.dtype)
            elif type(item) in _PY_SCALARS:
                t = _piece_dims(_check.tensor(item, device=device), ndmin, trans1d)
                kinds.append(item)  # weak: see Note [Index expressions as arrays]
            else:
                t = _piece_dims(_check.tensor(item, device=device), ndmin, trans1d)
                kinds.append(t.dtype)
            pieces.append(t)
        if not pieces:
            return _cr.asarray([], device=device)
        dtype = _result_type(*kinds)
        pieces = [p if p.dtype is dtype else _vops.astype(p, dtype) for p in pieces]
        res = concatenate(pieces, axis=state["axis"])
        if state["matrix"] is not None:
            # NumPy's matrix row or column (see Note [Index expressions as arrays])
            res = _vops.reshape(res, (1, -1) if state["matrix"] == "r" else (-1, 1))
        return res

    def __len__(self):
        return 0


r_ = AxisConcatenator(0, name="r_")
r_.__doc__ = """Concatenate slices, scalars and arrays along the first axis (NumPy's ``r_``).

See Note [Index expressions as arrays] in strided/_ops/index_tricks.py.

Examples
--------
>>> import strided
>>> strided.r_[1:4, 0, [7, 8]]
tensor([1, 2, 3, 0, 7, 8])
>>> strided.r_[0:1:5j]
tensor([0.  , 0.25, 0.5 , 0.75, 1.  ])
>>> strided.r_["0,2", [1, 2], [3, 4]]
tensor([[1, 2],
        [3, 4]])
"""

c_ = AxisConcatenator(-1, ndmin=2, trans1d=0, name="c_")
c_.__doc__ = """Stack 1-D pieces as columns, concatenate the rest along the last axis (NumPy's
``c_``, which is ``r_["-1,2,0", ...]``).

Examples
--------
>>> import strided
>>> strided.c_[[1, 2, 3], [4, 5, 6]]
tensor([[1, 4],
        [2, 5],
        [3, 6]])
"""


class _Grid:
    """The class of ``mgrid`` (dense) and ``ogrid`` (sparse): ``obj[a:b:s, ...]`` gives the
    coordinates of a grid, one slice per dim, as ``r_`` reads a slice."""

    def __init__(self, sparse):
        self.sparse = sparse

    @staticmethod
    def _parts(item):
        if not isinstance(item, slice):
            raise TypeError(f"mgrid/ogrid: every index must be a slice, got {item!r}")
        start = 0 if item.start is None else item.start
        step = 1 if item.step is None else item.step
        if item.stop is None:
            raise ValueError(f"mgrid/ogrid: the slice {item!r} needs a stop value")
        if _is_complex_step(step):
            n = int(abs(step))
            return start, (item.stop - start) / float(n - 1) if n != 1 else 1, n, abs(step)
        return start, step, int(math.ceil((item.stop - start) / step)), step

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, step, n, raw = self._parts(key)
            if _is_complex_step(key.step):
                dt = _result_type(start, key.stop, raw)
                return _cr.arange(0, n, 1, dtype=dt) * step + start
            return _cr.arange(start, key.stop, step)
        parts = [self._parts(k) for k in key]
        dt = _result_type(
            *(v for p, k in zip(parts, key, strict=True) for v in (p[0], k.stop, p[3]))
        )
        sizes = tuple(max(p[2], 0) for p in parts)
        grids = []
        for d, (start, step, _, _) in enumerate(parts):
            g = _cr.arange(0, sizes[d], dtype=dt) * step + start
            g = _vops.astype(g, dt, copy=False)
            shape = [1] * len(parts)
            shape[d] = sizes[d]
            g = _vops.reshape(g, tuple(shape))
            grids.append(g if self.sparse else _vops.broadcast_to(g, sizes))
        if self.sparse:
            return tuple(grids)
        return stack(grids) if grids else _cr.empty((0,), dtype=dt)


mgrid = _Grid(sparse=False)
mgrid.__doc__ = """A dense grid: one coordinate tensor per slice, stacked (NumPy's ``mgrid``).

Examples
--------
>>> import strided
>>> strided.mgrid[0:2, 0:3]
tensor([[[0, 0, 0],
         [1, 1, 1]],
<BLANKLINE>
        [[0, 1, 2],
         [0, 1, 2]]])
"""
ogrid = _Grid(sparse=True)
ogrid.__doc__ = """An open grid: one coordinate tensor per slice, each broadcastable against the
others (NumPy's ``ogrid``).

Examples
--------
>>> import strided
>>> strided.ogrid[0:2, 0:3]
(tensor([[0],
        [1]]), tensor([[0, 1, 2]]))
"""


# -- indices ------------------------------------------------------------------------------------


def _shape_arg(shape, fn, name):
    """``shape`` (an int or a sequence of ints) as a tuple of non-negative ints."""
    dims = (shape,) if hasattr(type(shape), "__index__") else tuple(shape)
    dims = tuple(_check.integer(d, fn, name) for d in dims)
    if any(d < 0 for d in dims):
        raise ValueError(f"{fn}: {name} must not hold negative sizes, got {dims}")
    return dims


def indices(dimensions, dtype=int, sparse=False):
    """The index of every element of a grid of shape ``dimensions``: a tensor of shape
    ``(len(dimensions), *dimensions)`` whose slice ``i`` holds each element's index along dim
    ``i``; with ``sparse=True``, a tuple of one broadcastable ``arange`` per dim instead.

    Examples
    --------
    >>> import strided
    >>> strided.indices((2, 3))
    tensor([[[0, 0, 0],
             [1, 1, 1]],
    <BLANKLINE>
            [[0, 1, 2],
             [0, 1, 2]]])
    >>> strided.indices((2, 3), sparse=True)
    (tensor([[0],
            [1]]), tensor([[0, 1, 2]]))
    """
    dims = _shape_arg(dimensions, "indices", "dimensions")
    dt = as_dtype(dtype)
    grids = []
    for d, n in enumerate(dims):
        shape = (1,) * d + (n,) + (1,) * (len(dims) - d - 1)
        g = _vops.reshape(_cr.arange(n, dtype=dt), shape)
        grids.append(g if sparse else _vops.broadcast_to(g, dims))
    if sparse:
        return tuple(grids)
    return stack(grids) if grids else _cr.empty((0,), dtype=dt)


def fromfunction(function, shape, *, dtype=float, like=None, device=None, **kwargs):
    """``function(*indices(shape, dtype))``: an array built by calling ``function`` once, with
    one coordinate tensor per dim (each of ``shape``), not once per element. ``kwargs`` are
    passed on; ``like``/``device`` place the coordinates.

    Examples
    --------
    >>> import strided
    >>> strided.fromfunction(lambda i, j: i + 10 * j, (2, 3), dtype=int)
    tensor([[ 0, 10, 20],
            [ 1, 11, 21]])
    """
    if not callable(function):
        raise TypeError(f"fromfunction: function must be callable, got {type(function).__name__}")
    grids = indices(shape, dtype=dtype)
    target = like.device if like is not None else device
    if target is not None:
        grids = grids.to(device=target)
    return function(*_views.unbind(grids, 0), **kwargs)


def ix_(*args):
    """Open-mesh index arrays from 1-D sequences: ``x[ix_(rows, cols)]`` is the cross product
    of the rows and columns (a boolean sequence stands for its ``nonzero``).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(12).reshape(3, 4)
    >>> x[strided.ix_([0, 2], [1, 3])]
    tensor([[ 1,  3],
            [ 9, 11]])
    """
    out = []
    nd = len(args)
    for k, seq in enumerate(args):
        t = _check.tensor(seq)
        if t.ndim != 1:
            raise ValueError(f"ix_: argument {k} must be 1-D, got {t.ndim} dims")
        if t.dtype is _bool:
            (t,) = nonzero(t)
        elif t.shape[0] == 0:
            t = _vops.astype(t, int64)
        elif t.dtype.kind not in "iu":
            raise TypeError(
                f"ix_: argument {k} must hold integers or bools, got dtype {t.dtype.name}"
            )
        out.append(_vops.reshape(t, (1,) * k + (t.shape[0],) + (1,) * (nd - k - 1)))
    return tuple(out)


def _int_indices(x, fn, name):
    """``x`` as an int64 tensor, or a TypeError when it holds no integers (NumPy casts with
    'same_kind' to intp: floats are refused)."""
    t = _check.tensor(x)
    if t.dtype.kind not in "biu":
        raise TypeError(f"{fn}: {name} must hold integers, got dtype {t.dtype.name}")
    return t if t.dtype is int64 else _vops.astype(t, int64)


def _row_major_strides(dims, order, fn):
    """The element strides of a C (or F) ordered array of shape ``dims``, as Python ints."""
    if order not in ("C", "F"):
        raise ValueError(f"{fn}: order must be 'C' or 'F', got {order!r}")
    if math.prod(dims) > np.iinfo(np.int64).max:
        raise ValueError(f"{fn}: invalid dims {dims}: the array size is larger than int64")
    walk = dims[::-1] if order == "C" else dims
    strides, acc = [], 1
    for n in walk:
        strides.append(acc)
        acc *= n
    return strides[::-1] if order == "C" else strides


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat index of each coordinate tuple in an array of shape ``dims``: the sum of the
    coordinates times the row-major (``order="C"``) or column-major (``"F"``) strides.

    ``mode`` (one for all dims, or a tuple of one per dim) says what a coordinate outside
    ``[0, dims[i])`` does: "raise" (ValueError), "wrap" (taken modulo the size) or "clip".

    Examples
    --------
    >>> import strided
    >>> strided.ravel_multi_index(([0, 1, 2], [3, 0, 1]), (3, 4))
    tensor([3, 4, 9])
    >>> strided.ravel_multi_index(([0, 1, 2], [3, 0, 1]), (3, 4), order="F")
    tensor([9, 1, 5])
    """
    fn = "ravel_multi_index"
    dims = _shape_arg(dims, fn, "dims")
    if isinstance(multi_index, _core.TensorBase):
        multi_index = list(_views.unbind(multi_index, 0)) if multi_index.ndim else [multi_index]
    multi_index = list(multi_index)
    if len(multi_index) != len(dims):
        raise ValueError(
            f"{fn}: multi_index must be a sequence of {len(dims)} index arrays (one per dim of "
            f"{dims}), got {len(multi_index)}"
        )
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in ("raise", "wrap", "clip") for m in modes):
        raise ValueError(
            f"{fn}: mode must be 'raise', 'wrap' or 'clip', or a tuple of one per dim, got {mode!r}"
        )
    strides = _row_major_strides(dims, order, fn)
    coords = [_int_indices(i, fn, f"multi_index[{d}]") for d, i in enumerate(multi_index)]
    coords = _vops.broadcast_arrays(*coords) if coords else coords
    total = None
    for d, (c, n, m, s) in enumerate(zip(coords, dims, modes, strides, strict=True)):
        if m == "wrap" and n:
            c = _ew.remainder(c, n)
        elif m == "clip" and n:
            c = _ew.clip(c, 0, n - 1)
        elif bool(_ew.logical_or(c < 0, c >= n).any()):
            raise ValueError(
                f"{fn}: invalid entry in coordinates array: multi_index[{d}] holds values "
                f"outside [0, {n}) (use mode='wrap' or 'clip' to map them in)"
            )
        term = c * s
        total = term if total is None else total + term
    if total is None:
        return _cr.asarray(0, dtype=int64)
    return total


def unravel_index(indices, shape, order="C"):
    """The coordinates, in an array of shape ``shape``, of each flat index in ``indices``: a
    tuple of int64 tensors shaped like ``indices``, one per dim.

    Examples
    --------
    >>> import strided
    >>> strided.unravel_index([3, 4, 9], (3, 4))
    (tensor([0, 1, 2]), tensor([3, 0, 1]))
    >>> strided.unravel_index(9, (3, 4), order="F")
    (tensor(0), tensor(3))
    """
    fn = "unravel_index"
    dims = _shape_arg(shape, fn, "shape")
    strides = _row_major_strides(dims, order, fn)
    idx = _int_indices(indices, fn, "indices")
    size = math.prod(dims)
    bad = _ew.logical_or(idx < 0, idx >= size)
    if bool(bad.any()):
        first = int(_views.getitem(idx, bad).reshape(-1)[0])
        raise ValueError(f"{fn}: index {first} is out of bounds for array with size {size}")
    out = []
    for n, s in zip(dims, strides, strict=True):
        c = _ew.floor_divide(idx, s) if s != 1 else idx
        out.append(_ew.remainder(c, n) if n > 1 else _ew.multiply(c, 0))
    return tuple(out)


# -- triangles and diagonals --------------------------------------------------------------------


def tril_indices(n, k=0, m=None):
    """The (row, column) indices of the lower triangle of an (n, m) matrix, on and below the
    ``k``-th diagonal, in row-major order (two int64 tensors).

    Examples
    --------
    >>> import strided
    >>> strided.tril_indices(3)
    (tensor([0, 1, 1, 2, 2, 2]), tensor([0, 0, 1, 0, 1, 2]))
    >>> x = strided.arange(9).reshape(3, 3)
    >>> x[strided.tril_indices(3, -1)]
    tensor([3, 6, 7])
    """
    return nonzero(tri(n, m, _check.integer(k, "tril_indices", "k"), dtype=_bool))


def triu_indices(n, k=0, m=None):
    """The (row, column) indices of the upper triangle of an (n, m) matrix, on and above the
    ``k``-th diagonal, in row-major order (two int64 tensors).

    Examples
    --------
    >>> import strided
    >>> strided.triu_indices(3, 1)
    (tensor([0, 0, 1]), tensor([1, 2, 2]))
    """
    k = _check.integer(k, "triu_indices", "k")
    return nonzero(_ew.logical_not(tri(n, m, k - 1, dtype=_bool)))


def _matrix_arg(arr, fn):
    t = _check.tensor(arr)
    if t.ndim != 2:
        raise ValueError(f"{fn}: arr must be 2-d, got shape {tuple(t.shape)}")
    return t


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-D ``arr``.

    Examples
    --------
    >>> import strided
    >>> strided.tril_indices_from(strided.zeros((2, 3)))
    (tensor([0, 1, 1]), tensor([0, 0, 1]))
    """
    t = _matrix_arg(arr, "tril_indices_from")
    return tril_indices(t.shape[0], k, t.shape[1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-D ``arr``.

    Examples
    --------
    >>> import strided
    >>> strided.triu_indices_from(strided.zeros((2, 3)), 1)
    (tensor([0, 0, 1]), tensor([1, 2, 2]))
    """
    t = _matrix_arg(arr, "triu_indices_from")
    return triu_indices(t.shape[0], k, t.shape[1])


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x n x ... array of ``ndim`` dims: the same
    ``arange(n)`` ``ndim`` times.

    Examples
    --------
    >>> import strided
    >>> x = strided.zeros((3, 3), dtype=strided.int64)
    >>> x[strided.diag_indices(3)] = 7
    >>> x
    tensor([[7, 0, 0],
            [0, 7, 0],
            [0, 0, 7]])
    """
    n = _check.integer(n, "diag_indices", "n")
    ndim = _check.integer(ndim, "diag_indices", "ndim")
    idx = _cr.arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    """``diag_indices`` for ``arr``, whose dims (at least two) must all have one length.

    Examples
    --------
    >>> import strided
    >>> strided.diag_indices_from(strided.zeros((2, 2)))
    (tensor([0, 1]), tensor([0, 1]))
    """
    t = _check.tensor(arr)
    if t.ndim < 2:
        raise ValueError(f"diag_indices_from: arr must be at least 2-d, got {t.ndim} dims")
    if len(set(t.shape)) != 1:
        raise ValueError(
            f"diag_indices_from: all dims of arr must have equal length, got shape {tuple(t.shape)}"
        )
    return diag_indices(t.shape[0], t.ndim)
