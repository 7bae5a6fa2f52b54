"""Shape manipulation that has to copy: concat, stack, tile, repeat, roll, tril/triu and
meshgrid (Array API 2024.12 names, with PyTorch's aliases); ``pad`` is in padding.py, built the
same way.

None of these has a kernel of its own. Each allocates its output and fills regions of it with the
one strided copy kernel (``copy_`` in ``_cpu/copy.pyx.tp``, which broadcasts, casts and survives
overlap), seen through views (``narrow``, ``select``, ``flip``, ``unsqueeze``, ``expand``): the
view ops of ``_views.pyx`` say *where*, the copy kernel moves the bytes. No Python loop here
runs once per element: they run once per input tensor, per block of a roll, per padded dim, or
per run of equal counts in ``repeat``.
``tril``/``triu`` are an elementwise ``where`` on a broadcast index comparison.

The copies, fills and views are device-generic (``strided/_ops/copying.py``), so every
composition here is also the op's CUDA kernel: registered under both keys, it runs the CUDA
copy kernel on CUDA tensors and never moves data between devices.

Every op is registered with the dispatcher under its name, with the CPU "kernel" being the
composition below (see Note [Shape ops on the dispatcher]); the public function checks and
normalises its arguments, then calls it. Arguments the Array API makes keyword-only (``axis``,
``k``) may also be given by position, in NumPy's order (``roll(x, 1, 0)``, ``tril(x, 1)``,
``stack(arrays, 1)``), as NumPy code writes them (Note [NumPy's positions] in reduction.py).

Note [Shape ops on the dispatcher]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A kernel takes its tensors as *positional* arguments (``concat`` is called as
``call("concat", *arrays, axis=0)``, not with a list): the dispatcher looks for the dispatch key
(an argument on a GPU, an argument that requires grad) among the positional arguments, so a
tensor hidden in a list would be invisible to it. Everything else (axes, sizes, modes) is
normalised before the call, so that a kernel registered later for another key (Autograd, CUDA)
sees the same simple arguments.
"""

from __future__ import annotations

import itertools

import numpy as np

from strided import _check, _core, _dispatch, _views
from strided._dtype import result_type as _result_type
from strided._ops import copying as _copy  # device-generic: CPU and CUDA tensors
from strided._ops import views as _vops
from strided._ops.creation import arange
from strided._ops.elementwise import where

__all__ = [
    "concat",
    "cat",
    "stack",
    "tile",
    "repeat",
    "repeat_interleave",
    "roll",
    "tril",
    "triu",
    "meshgrid",
]

_MAX_DIMS = 64  # _core.MAX_DIMS, which is C-only


# =============================================================================================
# Helpers
# =============================================================================================


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


_int = _check.integer
_axis = _check.axis


def _ints(values, fn, name):
    """An int or a sequence of ints, as a tuple."""
    if isinstance(values, (_core.TensorBase, np.ndarray)):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        return (_int(values, fn, name),)
    return tuple(_int(v, fn, name) for v in values)


def _empty(shape, dtype, like):
    return _core._empty(tuple(shape), dtype, like.device)


def _dispatched(name, kernel, *args, **kwargs):
    """Run ``kernel`` directly on the fast path, else through the dispatcher (Note [The fast
    path] in _dispatch.py)."""
    if _dispatch.possible[0] == _dispatch.CPU:
        return kernel(*args, **kwargs)
    return _dispatch.call(name, *args, **kwargs)


def _tensors(arrays, fn):
    if isinstance(arrays, _core.TensorBase) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{fn}: expected a list or tuple of tensors, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"{fn}: needs at least one tensor, got an empty sequence")
    return [_tensor(a) for a in arrays]


# =============================================================================================
# concat, stack
# =============================================================================================


def _concat_cpu(*arrays, axis):
    """Copy each input into its slice of a fresh output (axis None: of the flat output).

    Note [concat is copies into narrows]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    The output is allocated once, then each input is copied into ``out.narrow(axis, start, n)``:
    a view of the output with the input's shape, whose strides are the output's. The copy
    kernel casts each input to the result dtype on the way, so no input is converted first.
    With ``axis=None`` the pieces are ``flat_out.narrow(0, start, n).view(x.shape)``: a
    contiguous slice can take any shape, so each input (of any strides) is copied into its place
    in the flattened output directly, never flattened (maybe copied) itself.
    """
    dtype = _result_type(*arrays)
    first = arrays[0]
    if axis is None:
        out = _empty((sum(a.numel() for a in arrays),), dtype, first)
        start = 0
        for a in arrays:
            n = a.numel()
            _copy.copy_(_views.view(_views.narrow(out, 0, start, n), a.shape), a)
            start += n
        return out
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = _empty(shape, dtype, first)
    start = 0
    for a in arrays:
        n = a.shape[axis]
        _copy.copy_(_views.narrow(out, axis, start, n), a)
        start += n
    return out


_dispatch.register("concat", "CPU", _concat_cpu)
_dispatch.register("concat", "CUDA", _concat_cpu)  # device-generic: see above


def concat(arrays, /, axis=0):
    """Join tensors along an existing axis (Array API; PyTorch's ``cat``).

    The inputs must have the same number of dims and the same sizes except along ``axis``;
    ``axis=None`` flattens each input (row-major) first. The result's dtype is ``result_type``
    of all the inputs (``int8`` with ``float32`` gives ``float32``, as NumPy). The result is a
    fresh contiguous tensor (see Note [concat is copies into narrows]).

    Examples
    --------
    >>> import strided
    >>> a = strided.zeros((2, 2), dtype="int8")
    >>> strided.concat([a, strided.ones((2, 1), dtype="float32")], axis=1)
    tensor([[0., 0., 1.],
            [0., 0., 1.]], dtype=strided.float32)
    >>> strided.concat([a, strided.arange(3)], axis=None)
    tensor([0, 0, 0, 0, 0, 1, 2])
    """
    arrays = _tensors(arrays, "concat")
    if axis is None:
        return _dispatched("concat", _concat_cpu, *arrays, axis=None)
    first = arrays[0]
    nd = first.ndim
    if nd == 0:
        raise ValueError(
            "concat: 0-d tensors cannot be joined along an axis (they have none); use "
            "axis=None, or stack"
        )
    axis = _axis(axis, nd, "concat")
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != nd:
            raise ValueError(
                f"concat: input {i} has {a.ndim} dims (shape {a.shape}) but input 0 has {nd} "
                f"(shape {first.shape}); all inputs need the same number of dims"
            )
        for d in range(nd):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError(
                    f"concat: input {i} has shape {a.shape}, which differs from input 0's "
                    f"shape {first.shape} at dim {d} ({a.shape[d]} != {first.shape[d]}); "
                    f"all dims but the concatenation axis {axis} must match"
                )
        if a.device != first.device:
            raise ValueError(f"concat: input {i} is on {a.device}, input 0 on {first.device}")
    return _dispatched("concat", _concat_cpu, *arrays, axis=axis)


def cat(tensors, dim=0):
    """PyTorch's name for ``concat`` (``dim`` for ``axis``).

    Examples
    --------
    >>> import strided
    >>> strided.cat([strided.arange(2), strided.arange(3)]).shape
    (5,)
    """
    return concat(tensors, axis=dim)


def _stack_cpu(*arrays, axis):
    """Copy input i into ``out.select(axis, i)``: stack is concat into a new axis."""
    first = arrays[0]
    shape = list(first.shape)
    shape.insert(axis, len(arrays))
    out = _empty(shape, _result_type(*arrays), first)
    for i, a in enumerate(arrays):
        _copy.copy_(_views.select(out, axis, i), a)
    return out


_dispatch.register("stack", "CPU", _stack_cpu)
_dispatch.register("stack", "CUDA", _stack_cpu)  # device-generic: see above


def stack(arrays, /, axis=0, *, dim=None):
    """Join tensors of one shape along a new axis (``dim`` is PyTorch's spelling of ``axis``).

    ``axis`` counts in the result, so it ranges over [-(ndim + 1), ndim]. The dtype is
    ``result_type`` of the inputs; the result is fresh and contiguous.

    Examples
    --------
    >>> import strided
    >>> strided.stack([strided.arange(3), strided.arange(3) * 10], axis=1)
    tensor([[ 0,  0],
            [ 1, 10],
            [ 2, 20]])
    """
    arrays = _tensors(arrays, "stack")
    if dim is not None:
        axis = dim
    first = arrays[0]
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != first.shape:
            raise ValueError(
                f"stack: input {i} has shape {a.shape} but input 0 has shape {first.shape}; "
                "stack needs tensors of one shape (concat joins along an existing axis)"
            )
        if a.device != first.device:
            raise ValueError(f"stack: input {i} is on {a.device}, input 0 on {first.device}")
    axis = _axis(axis, first.ndim + 1, "stack")
    return _dispatched("stack", _stack_cpu, *arrays, axis=axis)


# =============================================================================================
# tile and repeat: copies of expanded views
# =============================================================================================


def _tile_cpu(x, repetitions):
    """See Note [A tile is an expand]."""
    k = len(repetitions)
    sizes = (1,) * (k - x.ndim) + x.shape
    # Note [A tile is an expand]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~
    # tile((2, 3), reps=(2, 4)) lays out rows r, columns c of the result as
    # x[r % 2, c % 3]: along each dim, the input repeats as a whole block. Insert a new axis in
    # front of every repeated dim, giving shape (1, 2, 1, 3), and expand the new axes to the
    # repetition counts, giving (2, 2, 4, 3) with stride 0 on the new axes: every block is the
    # same memory. A contiguous copy of that view lays the blocks out in row-major order, and
    # merging each (repetition, size) pair, (2*2, 4*3), is then a view. No index arithmetic:
    # the zero strides do the repeating, and the copy kernel's broadcast loop (one load, many
    # stores) does the work. ``repeat`` with an int is the same trick with the new axis *after*
    # the dim: each element, not each block, is repeated.
    index, expanded, final = [], [], []
    for d in range(k):
        r = repetitions[d]
        if r != 1:
            index.append(None)
            expanded.append(r)
        index.append(None if d < k - x.ndim else slice(None))
        expanded.append(sizes[d])
        final.append(r * sizes[d])
    if len(expanded) > _MAX_DIMS:
        raise ValueError(
            f"tile: repeating {len(expanded) - k} dims of a {k}-dim tensor needs "
            f"{len(expanded)} dims on the way, more than the {_MAX_DIMS} supported"
        )
    view = _views.expand(_views.getitem(x, tuple(index)), tuple(expanded))
    out = _empty(expanded, x.dtype, x)
    _copy.copy_(out, view)
    return _views.view(out, tuple(final))


_dispatch.register("tile", "CPU", _tile_cpu)
_dispatch.register("tile", "CUDA", _tile_cpu)  # device-generic: see above


def tile(x, repetitions, /):
    """``x`` repeated as a whole block ``repetitions[d]`` times along each dim (Array API,
    NumPy's ``tile``).

    With more repetitions than dims, ``x`` gains leading size-1 dims; with fewer, the
    repetitions gain leading 1s. A fresh contiguous tensor (see Note [A tile is an expand]).

    Examples
    --------
    >>> import strided
    >>> strided.tile(strided.asarray([1, 2]), (2, 3))
    tensor([[1, 2, 1, 2, 1, 2],
            [1, 2, 1, 2, 1, 2]])
    """
    x = _tensor(x)
    reps = _ints(repetitions, "tile", "repetitions")
    for r in reps:
        if r < 0:
            raise ValueError(f"tile: repetitions must be >= 0, got {reps}")
    reps = (1,) * (x.ndim - len(reps)) + reps
    return _dispatched("tile", _tile_cpu, x, reps)


def torch_repeat(x, *sizes):
    """PyTorch's ``Tensor.repeat(*sizes)``: ``tile`` that needs a size for every dim.

    ``x.repeat(...)`` reaches it only where NumPy's ``a.repeat(repeats, axis)`` would refuse
    the call (three sizes or more, or a second size that is no axis of ``x``): see
    ``Tensor.repeat``. It is *not* the function ``strided.repeat``, the Array API's (NumPy's)
    element-wise repeat, PyTorch's ``repeat_interleave``: for ``[a, b]``, ``torch_repeat(x, 2)``
    gives ``[a, b, a, b]``, ``strided.repeat(x, 2)`` gives ``[a, a, b, b]``.

    Examples
    --------
    >>> import strided
    >>> from strided._ops.shape import torch_repeat
    >>> x = strided.asarray([1, 2])
    >>> torch_repeat(x, 2), strided.repeat(x, 2), x.repeat(2)
    (tensor([1, 2, 1, 2]), tensor([1, 1, 2, 2]), tensor([1, 1, 2, 2]))
    """
    x = _tensor(x)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    sizes = _ints(sizes, "repeat", "sizes")
    if len(sizes) < x.ndim:
        raise ValueError(
            f"repeat: {len(sizes)} sizes {sizes} for a tensor with {x.ndim} dims (shape "
            f"{x.shape}); Tensor.repeat (PyTorch's) needs at least one size per dim. For "
            "element-wise repetition use strided.repeat or repeat_interleave"
        )
    return tile(x, sizes)


_SHORT_REPEAT = 4


def _copy_repeated(out, x, new_axis):
    """Fill ``out`` with ``x`` repeated along ``out``'s new axis ``new_axis``.

    Note [Short repeats along the last axis]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    One copy of ``x.unsqueeze(new_axis)`` broadcast into ``out`` is the whole trick, but when
    the new axis is ``out``'s last, the copy's inner loop runs along it: r elements, then a
    jump, a million times over for ``repeat(x, 2)`` of a million elements (measured, one
    thread, 1000x1000 float64: 7 ms against NumPy's 1.4 ms; the source's stride 0 there stops
    the plan from merging that dim with the next). For such short repeats, r copies of ``x``
    into ``out.select(-1, j)`` each run one long inner loop instead (0.8 ms for r = 2, 4.3 ms
    against 7.8 ms for r = 4); from about r = 6 the strided stores of those copies cost
    more than the short loops, and the single broadcast copy wins.
    """
    r = out.shape[new_axis]
    if new_axis == out.ndim - 1 and 1 < r <= _SHORT_REPEAT:
        for j in range(r):
            _copy.copy_(_views.select(out, new_axis, j), x)
    else:
        _copy.copy_(out, _views.unsqueeze(x, new_axis))


def _repeat_cpu(x, repeats, axis):
    """Each slice along ``axis`` (each element, for axis None) repeated ``repeats`` times.

    ``repeats`` is an int, or a tuple of ints with one count per slice. Note [A tile is an
    expand] explains the int case. With counts, consecutive slices that share a count form one
    run, and each run is the int case on a narrow of ``x``: one copy per run, not per element.
    (PyTorch instead builds a gather index with a cumulative sum and calls ``index_select``;
    strided has neither kernel yet. With them, the worst case here, every count different and
    so one copy per slice, would become a single gather.)
    """
    if axis is None:
        if isinstance(repeats, int):
            # x[..., None] broadcast over a trailing axis of length r, read back flat: each
            # element r times, and x itself is never flattened.
            out = _empty(x.shape + (repeats,), x.dtype, x)
            _copy_repeated(out, x, x.ndim)
            return _views.view(out, (-1,))
        x = _vops.reshape(x, (-1,))  # a view when the strides allow it, else a copy
        axis = 0
    elif x.ndim == 0:
        x = _views.view(x, (1,))
    shape = x.shape
    if isinstance(repeats, int):
        out = _empty(shape[: axis + 1] + (repeats,) + shape[axis + 1 :], x.dtype, x)
        _copy_repeated(out, x, axis + 1)
        return _views.view(out, shape[:axis] + (shape[axis] * repeats,) + shape[axis + 1 :])
    out = _empty(shape[:axis] + (sum(repeats),) + shape[axis + 1 :], x.dtype, x)
    src = dst = 0
    for count, run in itertools.groupby(repeats):
        n = len(list(run))
        if count:
            piece = _views.unflatten(_views.narrow(out, axis, dst, n * count), axis, (n, count))
            _copy.copy_(piece, _views.unsqueeze(_views.narrow(x, axis, src, n), axis + 1))
        src += n
        dst += n * count
    return out


_dispatch.register("repeat", "CPU", _repeat_cpu)
_dispatch.register("repeat", "CUDA", _repeat_cpu)  # device-generic: see above


def repeat(x, repeats, /, axis=None):
    """Each element of ``x`` repeated (Array API 2024.12, NumPy's ``repeat``).

    ``repeats`` is an int (every element the same number of times) or a 1-D integer tensor or
    list with one count per slice along ``axis`` (or one count for all). ``axis=None`` works on
    the flattened ``x`` and gives a 1-D result. A fresh contiguous tensor.

    Not ``Tensor.repeat``: that method is PyTorch's, which tiles (see ``torch_repeat``).

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[1, 2], [3, 4]])
    >>> strided.repeat(x, 2)
    tensor([1, 1, 2, 2, 3, 3, 4, 4])
    >>> strided.repeat(x, [1, 2], axis=0)
    tensor([[1, 2],
            [3, 4],
            [3, 4]])
    """
    x = _tensor(x)
    if axis is not None:
        axis = _axis(axis, max(x.ndim, 1), "repeat")
    n = x.numel() if axis is None else (x.shape[axis] if x.ndim else 1)
    if isinstance(repeats, bool):
        raise TypeError("repeat: repeats must be an int or hold integers, got a bool")
    if isinstance(repeats, (int, np.integer)):
        repeats = int(repeats)
    else:
        counts = _tensor(repeats)
        if counts.dtype.kind not in "iu" and counts.numel() > 0:
            raise TypeError(
                f"repeat: repeats must be an int or hold integers, got {counts.dtype.name}"
            )
        if counts.ndim > 1:
            raise ValueError(f"repeat: repeats must be an int or 1-D, got shape {counts.shape}")
        counts = counts.tolist()
        if isinstance(counts, int) or len(counts) == 1:
            repeats = counts if isinstance(counts, int) else counts[0]
        elif len(counts) != n:
            where = "elements" if axis is None else f"slices along axis {axis}"
            raise ValueError(
                f"repeat: {len(counts)} counts in repeats for {n} {where} of a tensor of "
                f"shape {x.shape}; give one count per slice, or one count for all"
            )
        else:
            repeats = tuple(counts)
    bad = [r for r in ((repeats,) if isinstance(repeats, int) else repeats) if r < 0]
    if bad:
        raise ValueError(f"repeat: repeats must be >= 0, got {bad[0]}")
    return _dispatched("repeat", _repeat_cpu, x, repeats, axis)


def repeat_interleave(input, repeats, dim=None):
    """PyTorch's name for ``repeat`` (``dim`` for ``axis``).

    Examples
    --------
    >>> import strided
    >>> strided.repeat_interleave(strided.asarray([1, 2]), 3)
    tensor([1, 1, 1, 2, 2, 2])
    """
    return repeat(input, repeats, axis=dim)


# =============================================================================================
# roll
# =============================================================================================


def _roll_cpu(x, shifts):
    """``shifts`` is a tuple of (axis, shift) with 0 <= shift < size, one per axis.

    Note [roll is two copies per axis]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Rolling a dim of size n by s moves ``x[:n-s]`` to ``out[s:]`` and ``x[n-s:]`` to
    ``out[:s]``: two narrows of the input copied into two narrows of the output. Rolling k dims
    at once cuts the tensor into 2**k blocks, each of which moves as a whole, so the result is
    2**k copies (fewer when a shift is 0), each a strided copy of a block, and no temporary.
    """
    out = _empty(x.shape, x.dtype, x)
    pieces = []
    for axis, s in shifts:
        n = x.shape[axis]
        # (source start, destination start, length) of the blocks along this axis
        moves = [(0, s, n - s), (n - s, 0, s)] if s else [(0, 0, n)]
        pieces.append([(axis, *m) for m in moves if m[2]])
    for combo in itertools.product(*pieces):
        src, dst = x, out
        for axis, s0, d0, length in combo:
            src = _views.narrow(src, axis, s0, length)
            dst = _views.narrow(dst, axis, d0, length)
        _copy.copy_(dst, src)
    return out


_dispatch.register("roll", "CPU", _roll_cpu)
_dispatch.register("roll", "CUDA", _roll_cpu)  # device-generic: see above


def roll(x, /, shift, axis=None):
    """Elements shifted along ``axis`` with wrap-around (Array API, NumPy's ``roll``).

    ``shift`` and ``axis`` are ints or tuples (an int shift applies to every axis of a tuple;
    an axis named twice shifts by the sum). ``axis=None`` rolls the flattened tensor and
    restores the shape. A fresh contiguous tensor (see Note [roll is two copies per axis]).

    Examples
    --------
    >>> import strided
    >>> strided.roll(strided.arange(5), 2)
    tensor([3, 4, 0, 1, 2])
    >>> strided.roll(strided.arange(6).reshape(2, 3), -1, axis=1)
    tensor([[1, 2, 0],
            [4, 5, 3]])
    """
    x = _tensor(x)
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise ValueError("roll: shift must be an int when axis is None (the flat roll)")
        s = _int(shift, "roll", "shift")
        n = x.numel()
        flat = _vops.reshape(x, (n,))  # a view when the strides allow it, else a copy
        out = _dispatched("roll", _roll_cpu, flat, ((0, s % n if n else 0),))
        return _views.view(out, x.shape)
    shifts = _ints(shift, "roll", "shift")
    axes = _ints(axis, "roll", "axis")
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(
            f"roll: shift {shifts} and axis {axes} differ in length; give one shift per axis"
        )
    total = {}
    for a, s in zip(axes, shifts, strict=True):
        a = _axis(a, x.ndim, "roll")
        total[a] = total.get(a, 0) + s
    norm = tuple((a, s % x.shape[a] if x.shape[a] else 0) for a, s in sorted(total.items()))
    return _dispatched("roll", _roll_cpu, x, norm)


# =============================================================================================
# tril, triu
# =============================================================================================


def _triangle_cpu(x, k, lower):
    """Note [tril is a where]
    ~~~~~~~~~~~~~~~~~~~~~~~~~
    Element (i, j) of each matrix is kept by ``tril`` when ``j <= i + k`` and by ``triu`` when
    ``j >= i + k``. ``arange(n)[:, None] + k`` is a column and ``arange(m)`` a row; comparing
    them broadcasts to the (n, m) mask without any loop, and ``where(mask, x, 0)`` broadcasts
    the mask again over the batch dims of x. Elementwise and vectorised, with n + m integers of
    setup. The result is written into a fresh contiguous tensor through ``out=``, like every
    other op in this file (left to itself, the iterator would pick a memory order from x and
    the mask together).
    """
    n, m = x.shape[-2:]
    k = max(-n - 1, min(k, m + 1))  # beyond these, every k gives the same mask (no overflow)
    rows = _views.unsqueeze(arange(n, device=x.device), 1) + k
    cols = arange(m, device=x.device)
    mask = (rows >= cols) if lower else (rows <= cols)
    zero = _core._empty((), x.dtype, x.device, True)
    return where(mask, x, zero, out=_empty(x.shape, x.dtype, x))


def _tril_cpu(x, k):
    return _triangle_cpu(x, k, True)


def _triu_cpu(x, k):
    return _triangle_cpu(x, k, False)


_dispatch.register("tril", "CPU", _tril_cpu)
_dispatch.register("tril", "CUDA", _tril_cpu)  # device-generic: see above
_dispatch.register("triu", "CPU", _triu_cpu)
_dispatch.register("triu", "CUDA", _triu_cpu)  # device-generic: see above


def _matrix(x, fn):
    x = _tensor(x)
    if x.ndim < 2:
        raise ValueError(
            f"{fn}: needs a matrix or a stack of matrices (at least 2 dims), got shape {x.shape}"
        )
    return x


def tril(x, /, k=0):
    """The lower triangle of each matrix in ``x`` (the last two dims): elements with
    ``j <= i + k`` kept, the others 0 (Array API; PyTorch's ``diagonal`` is ``k``).

    A fresh contiguous tensor (see Note [tril is a where]).

    Examples
    --------
    >>> import strided
    >>> strided.tril(strided.ones((3, 3), dtype="int8"))
    tensor([[1, 0, 0],
            [1, 1, 0],
            [1, 1, 1]], dtype=strided.int8)
    """
    x = _matrix(x, "tril")
    return _dispatched("tril", _tril_cpu, x, _int(k, "tril", "k"))


def triu(x, /, k=0):
    """The upper triangle of each matrix in ``x``: elements with ``j >= i + k`` kept, the
    others 0 (Array API). A fresh contiguous tensor (see Note [tril is a where]).

    Examples
    --------
    >>> import strided
    >>> strided.triu(strided.ones((2, 3), dtype="int8"), k=1)
    tensor([[0, 1, 1],
            [0, 0, 1]], dtype=strided.int8)
    """
    x = _matrix(x, "triu")
    return _dispatched("triu", _triu_cpu, x, _int(k, "triu", "k"))


# =============================================================================================
# meshgrid
# =============================================================================================


def _meshgrid_cpu(*arrays, indexing, copy):
    """Note [meshgrid is expanded views]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Grid i holds ``arrays[i][index_i]`` at every point: it varies along one axis only. So it
    is ``arrays[i]`` seen with size-1 dims everywhere else, expanded (stride 0) to the grid's
    shape. With ``copy=False`` those views are the result, as PyTorch returns them: no memory
    at all, but they share the inputs' memory and cannot be written to. With ``copy=True``
    (NumPy's default, and ours) each is copied into a fresh contiguous tensor.
    """
    shape = [a.numel() for a in arrays]
    order = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) >= 2:
        # Cartesian indexing: the first input varies along the columns (axis 1)
        shape[0], shape[1] = shape[1], shape[0]
        order[0], order[1] = 1, 0
    outs = []
    for a, pos in zip(arrays, order, strict=True):
        flat = _views.view(a, (-1,)) if a.ndim == 0 else a
        index = tuple(slice(None) if j == pos else None for j in range(len(arrays)))
        grid = _views.expand(_views.getitem(flat, index), tuple(shape))
        outs.append(_copy.contiguous_copy(grid) if copy else grid)
    return outs


_dispatch.register("meshgrid", "CPU", _meshgrid_cpu)
_dispatch.register("meshgrid", "CUDA", _meshgrid_cpu)  # device-generic: see above


def meshgrid(*arrays, indexing="xy", copy=True):
    """Coordinate grids from 1-D tensors (Array API; a 0-d tensor counts as one element).

    With N inputs of lengths n0, n1, ..., each result has shape (n0, n1, ...) for
    ``indexing="ij"`` (matrix indexing) and (n1, n0, ...) for ``"xy"`` (Cartesian, the
    default). Each keeps its input's dtype. ``copy=False`` returns stride-0 views instead of
    fresh tensors (see Note [meshgrid is expanded views]). PyTorch's ``meshgrid([a, b])`` with
    one list works too.

    Examples
    --------
    >>> import strided
    >>> xs, ys = strided.meshgrid(strided.arange(3), strided.arange(2))
    >>> xs
    tensor([[0, 1, 2],
            [0, 1, 2]])
    >>> ys.shape
    (2, 3)
    """
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    arrays = [_tensor(a) for a in arrays]
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for i, a in enumerate(arrays):
        if a.ndim > 1:
            raise ValueError(
                f"meshgrid: input {i} has shape {a.shape}; inputs must be 1-D (or 0-d), "
                "flatten it with reshape(-1)"
            )
    # A tuple, as NumPy 2 and the Array API 2025.12 return (2024.12 and before said a list).
    return tuple(
        _dispatched("meshgrid", _meshgrid_cpu, *arrays, indexing=indexing, copy=bool(copy))
    )
