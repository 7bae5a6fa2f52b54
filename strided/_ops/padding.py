"""Padding: NumPy's ``pad`` (the ``strided.pad`` of the namespace) and the kernel under it and
under PyTorch's ``F.pad`` (``strided.nn.functional.pad``).

The kernel is composed like the shape ops of shape.py: a fresh output whose regions are filled
with the one strided copy kernel through views (the centre is the input, each border a narrowed,
flipped or broadcast view of it), so it runs on every device and registers the same composition
under both keys (Note [Shape ops on the dispatcher] in shape.py). What the kernel cannot do in one
pass (NumPy's odd reflections, ramps, statistics, pads wider than the input) is composed of
differentiable ops above it, so every mode keeps gradients.

Note [Two pads]
~~~~~~~~~~~~~~~
NumPy and PyTorch both have a ``pad``, and the same call means different things in each:

- ``numpy.pad(a, (1, 2))`` pads *every* axis, 1 before and 2 after: a (2, 3) array becomes
  (5, 6). Its widths are one (before, after) pair per axis, first axis first, broadcast NumPy's
  way (an int, one pair, or a pair per axis), and its modes are NumPy's ("edge", "wrap", ...);
- ``torch.nn.functional.pad(t, (1, 2))`` pads only the *last* dim: (2, 3) becomes (2, 6). Its
  widths are a flat tuple of (left, right) pairs starting from the last dim and going backward,
  may be negative (a crop), and its modes are PyTorch's ("replicate", "circular", ...).

NumPy code must get NumPy's answer (Note [NumPy first] in DESIGN.md), so ``strided.pad`` is
``numpy.pad``; PyTorch's lives where PyTorch keeps it, ``strided.nn.functional.pad``. Both
translate their arguments into the one spelling nothing can misread, a (before, after) pair for
every dim, first dim first, and call ``pad_pairs`` (the kernel's front door). Code inside strided
calls ``pad_pairs`` too, so no internal caller depends on which of the two public meanings a
reader has in mind.
"""

from __future__ import annotations

import numpy as np

from strided import _check, _core, _dispatch, _views
from strided._dtype import complex128, float64
from strided._ops import copying as _copy  # device-generic: CPU and CUDA tensors
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import quantiles as _quantiles
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.shape import _dispatched, _empty, concat

__all__ = ["pad"]

_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors

# the kernel's modes: PyTorch's four and NumPy's "symmetric" (the mirror that repeats the edge)
_KERNEL_MODES = ("constant", "reflect", "replicate", "circular", "symmetric")


def _pad_cpu(x, pads, mode, value):
    """``pads`` holds one (left, right) pair per dim of x, first dim first (see ``pad_pairs``).

    Note [Padding with views]
    ~~~~~~~~~~~~~~~~~~~~~~~~~
    ``constant``: fill the whole output with the value, then copy ``x`` into the interior (a
    narrow per dim). A negative pad crops: the interior then starts inside ``x``.

    The other modes copy the interior first, then fill the borders *from the output itself*,
    one dim at a time. Along dim d, with left pad p and interior size n:

    - ``reflect``: ``out[p-1], ..., out[0]`` are ``out[p+1], ..., out[2p]``: the left border
      is ``flip(out[p+1 : 2p+1])``, a narrow seen backwards through a negative stride (a view,
      see ``flip``), so the mirror costs nothing but the copy itself;
    - ``symmetric`` (NumPy's): the mirror that includes the edge, ``flip(out[p : 2p])``;
    - ``replicate``: the border is the edge slice ``out[p : p+1]``, broadcast by the copy;
    - ``circular``: the left border is the interior's last p slices, ``out[n : n+p]``.

    Going dim by dim makes the corners right for free: when dim d is padded, the borders of
    the dims padded before it are already filled, and the narrows along d span them, so a
    corner is the reflection (replica, wrap) of a border. Source and destination are disjoint
    parts of one storage; when their address ranges interleave, ``copy_`` copies the source
    aside first (its overlap rule), which costs a temporary but never a wrong value.
    """
    new = [n + lo + hi for n, (lo, hi) in zip(x.shape, pads, strict=True)]
    out = _empty(new, x.dtype, x)
    if mode == "constant":
        _copy.fill_(out, value)
        dst, src = out, x
        for d, (lo, hi) in enumerate(pads):
            n = x.shape[d] - max(-lo, 0) - max(-hi, 0)
            if n <= 0:
                return out  # cropped away entirely: only the fill is left
            dst = _views.narrow(dst, d, max(lo, 0), n)
            src = _views.narrow(src, d, max(-lo, 0), n)
        _copy.copy_(dst, src)
        return out
    interior = out
    for d, (lo, _) in enumerate(pads):
        interior = _views.narrow(interior, d, lo, x.shape[d])
    _copy.copy_(interior, x)
    padded = [d for d, (lo, hi) in enumerate(pads) if lo or hi]
    for i, d in enumerate(padded):
        slab = out
        for e in padded[i + 1 :]:  # dims not padded yet: only their interior holds values
            slab = _views.narrow(slab, e, pads[e][0], x.shape[e])
        lo, hi = pads[d]
        n = x.shape[d]
        if mode == "reflect":
            left = _views.flip(_views.narrow(slab, d, lo + 1, lo), (d,))
            right = _views.flip(_views.narrow(slab, d, lo + n - 1 - hi, hi), (d,))
        elif mode == "symmetric":
            left = _views.flip(_views.narrow(slab, d, lo, lo), (d,))
            right = _views.flip(_views.narrow(slab, d, lo + n - hi, hi), (d,))
        elif mode == "replicate":
            left = _views.narrow(slab, d, lo, 1)
            right = _views.narrow(slab, d, lo + n - 1, 1)
        else:  # circular
            left = _views.narrow(slab, d, n, lo)
            right = _views.narrow(slab, d, lo, hi)
        if lo:
            _copy.copy_(_views.narrow(slab, d, 0, lo), left)
        if hi:
            _copy.copy_(_views.narrow(slab, d, lo + n, hi), right)
    return out


_dispatch.register("pad", "CPU", _pad_cpu)
_dispatch.register("pad", "CUDA", _pad_cpu)  # device-generic: see above


def pad_pairs(x, pairs, mode="constant", value=0, fn="pad"):
    """``x`` padded by ``pairs``, one (before, after) pair for every dim, first dim first: the
    kernel's front door, under both public pads and every internal caller (Note [Two pads]).

    ``mode`` is one of the kernel's: "constant" (``value``; a negative pad crops), "reflect"
    (each pad smaller than its dim), "symmetric" and "circular" (each pad at most its dim),
    "replicate" (the dim must not be empty). ``fn`` names the caller in error messages.
    """
    pairs = tuple((int(lo), int(hi)) for lo, hi in pairs)
    if len(pairs) != x.ndim:
        raise ValueError(f"{fn}: {len(pairs)} (before, after) pairs for {x.ndim} dims")
    if mode not in _KERNEL_MODES:
        raise ValueError(f"{fn}: mode must be one of {_KERNEL_MODES}, got {mode!r}")
    for d, (lo, hi) in enumerate(pairs):
        n = x.shape[d]
        if n + lo + hi < 0:
            raise ValueError(
                f"{fn}: pads ({lo}, {hi}) on dim {d} of size {n} give a negative size {n + lo + hi}"
            )
        if mode == "constant" or (lo == 0 and hi == 0):
            continue
        if lo < 0 or hi < 0:
            raise ValueError(
                f"{fn}: negative pads ({lo}, {hi}) on dim {d} crop, which only mode='constant' "
                f"does; mode={mode!r} needs pads >= 0"
            )
        if mode == "reflect" and max(lo, hi) >= n:
            raise ValueError(
                f"{fn}: reflect pads ({lo}, {hi}) on dim {d} of size {n} (shape {x.shape}); "
                "each must be smaller than the dim's size (the mirror excludes the edge)"
            )
        if mode == "replicate" and n == 0:
            raise ValueError(f"{fn}: replicate has no edge to repeat on the empty dim {d}")
        if mode in ("circular", "symmetric") and max(lo, hi) > n:
            raise ValueError(
                f"{fn}: {mode} pads ({lo}, {hi}) on dim {d} of size {n} (shape {x.shape}); "
                "each must be at most the dim's size (it would wrap more than once)"
            )
    if isinstance(value, (_core.TensorBase, np.generic)):
        value = value.item()
    return _dispatched("pad", _pad_cpu, x, pairs, mode, value)


# =============================================================================================
# NumPy's pad
# =============================================================================================

# NumPy's modes, each with the keywords it takes (NumPy refuses any other keyword)
_NUMPY_MODES = {
    "constant": ("constant_values",),
    "edge": (),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",),
    "mean": ("stat_length",),
    "median": ("stat_length",),
    "minimum": ("stat_length",),
    "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
    "wrap": (),
    "empty": (),
}
_TORCH_MODES = {"replicate": "edge", "circular": "wrap"}  # F.pad's names NumPy spells otherwise


def _only(ndim, d, pair):
    """Pairs that pad dim ``d`` by ``pair`` and no other dim."""
    return [pair if e == d else (0, 0) for e in range(ndim)]


def _as_pairs(value, ndim, name, as_index=False):
    """``value`` broadcast NumPy's way to one (before, after) pair per dim, as Python scalars.

    Note [NumPy's pad widths]
    ~~~~~~~~~~~~~~~~~~~~~~~~~
    ``numpy.pad`` reads ``pad_width`` (and ``constant_values``, ``end_values``,
    ``stat_length``) as an array broadcast to shape (ndim, 2): an int pads every side of every
    axis; one pair ``(before, after)`` is used for every axis; ``((b0, a0), (b1, a1), ...)``
    gives each axis its own; ``((w0,), (w1,))`` (shape (ndim, 1)) gives each axis one width for
    both sides. A pair of two values is a (before, after) pair, never two axes' widths: NumPy
    reads ``(1, 2)`` on a 2-D array as "1 before, 2 after, on both axes". These are host-side
    arguments, so NumPy's own broadcasting reads them (a tensor argument comes over by
    ``tolist``).
    """
    if value is None:
        return [(None, None)] * ndim
    if isinstance(value, _core.TensorBase):
        value = value.tolist()
    a = np.asarray(value)
    if as_index:
        if a.dtype.kind not in "iu":
            raise TypeError(f"pad: {name} must hold integers, got {value!r}")
        a = a.astype(np.int64)
        if a.size and a.min() < 0:
            raise ValueError(f"pad: {name} must be >= 0 (NumPy's pad never crops), got {value!r}")
    if a.ndim < 3 and a.size == 1:
        v = a.reshape(-1)[0].item()
        return [(v, v)] * ndim
    if a.ndim < 3 and a.size == 2 and a.shape != (2, 1):
        v = tuple(a.reshape(-1).tolist())
        return [v] * ndim
    try:
        return [tuple(p) for p in np.broadcast_to(a, (ndim, 2)).tolist()]
    except ValueError:
        raise ValueError(
            f"pad: {name} of shape {a.shape} does not broadcast to one (before, after) pair per "
            f"dim, shape ({ndim}, 2)"
        ) from None


def _pad_width(pad_width, ndim):
    """NumPy's ``pad_width``, a dict ``{axis: width or (before, after)}`` included."""
    if isinstance(pad_width, dict):
        pairs = [(0, 0)] * ndim
        for axis, w in pad_width.items():
            d = _check.axis(axis, ndim, "pad")
            pairs[d] = _as_pairs(w, 1, "pad_width", as_index=True)[0]
        return pairs
    return _as_pairs(pad_width, ndim, "pad_width", as_index=True)


def _same(a, b):
    """a == b, NaN equal to NaN (constant values)."""
    return a == b or (a != a and b != b)


def _pad_constant(x, pairs, values):
    """Constant padding with a (before, after) value per dim: later dims win the corners, as
    NumPy fills one axis at a time across the axes filled before it."""
    first = values[0][0] if values else 0  # a 0-d x has no pairs: a copy
    if all(_same(v, first) for pair in values for v in pair):
        return pad_pairs(x, pairs, "constant", first)
    out = x
    for d, ((lo, hi), (v_lo, v_hi)) in enumerate(zip(pairs, values, strict=True)):
        if _same(v_lo, v_hi) and (lo or hi):
            out = pad_pairs(out, _only(x.ndim, d, (lo, hi)), "constant", v_lo)
            continue
        if lo:
            out = pad_pairs(out, _only(x.ndim, d, (lo, 0)), "constant", v_lo)
        if hi:
            out = pad_pairs(out, _only(x.ndim, d, (0, hi)), "constant", v_hi)
    return out if out is not x else pad_pairs(x, pairs, "constant", first)


def _pad_far(out, d, lo, hi, mode, odd):
    """Dim ``d`` of ``out`` padded by (lo, hi) in NumPy's steps (mode reflect, symmetric or wrap).

    Note [Pads wider than the input]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A mirror (or a wrap) of n values gives at most n - 1 (n) new values on a side. NumPy pads
    further by repeating: each step mirrors what is there *so far*, the pads added by the
    earlier steps included, in chunks of at most ``room`` values, where ``room`` is the part of
    the current length that is a whole number of periods (of n - 1 values for reflect, n for
    symmetric and wrap), so that a chunk never starts part-way through a period. For the even
    mirrors and wrap the result is the periodic extension; ``reflect_type="odd"`` (each chunk
    is ``2 * edge - mirror``, the edge being the current one) is not periodic, which is why we
    repeat NumPy's steps exactly, each a narrow, a flip and a concat.
    """
    n = out.shape[d]
    dtype = out.dtype
    while lo or hi:
        size = out.shape[d]
        if mode == "reflect":
            room = (size - 1) // (n - 1) * (n - 1)
        else:
            room = size // n * n
        a, b = min(room, lo), min(room, hi)
        if mode == "wrap":
            left = _vops.narrow(out, d, room - a, a)
            right = _vops.narrow(out, d, size - room, b)
        else:
            skip = 1 if mode == "reflect" else 0  # reflect leaves out the edge
            left = _vops.flip(_vops.narrow(out, d, skip, a), d)
            right = _vops.flip(_vops.narrow(out, d, size - skip - b, b), d)
            if odd:
                left = _ew.subtract(_ew.multiply(_vops.narrow(out, d, 0, 1), 2), left)
                right = _ew.subtract(_ew.multiply(_vops.narrow(out, d, size - 1, 1), 2), right)
                left, right = _vops.astype(left, dtype), _vops.astype(right, dtype)
        out = concat([left, out, right], axis=d)
        lo, hi = lo - a, hi - b
    return out


def _pad_periodic(x, pairs, mode, odd):
    """Modes reflect, symmetric and wrap (Note [Pads wider than the input])."""
    ndim = x.ndim
    far = []  # dims the kernel cannot pad in one pass
    for d, ((lo, hi), n) in enumerate(zip(pairs, x.shape, strict=True)):
        limit = n - 1 if mode == "reflect" else n
        if (lo or hi) and (odd or max(lo, hi) > limit):
            far.append(d)
    out, pairs = x, list(pairs)
    for d in far:  # in axis order, as NumPy: odd mirrors of later dims see earlier pads
        lo, hi = pairs[d]
        pairs[d] = (0, 0)
        if mode == "reflect" and x.shape[d] == 1:  # NumPy: one value mirrors as itself
            out = pad_pairs(out, _only(ndim, d, (lo, hi)), "replicate")
        else:
            out = _pad_far(out, d, lo, hi, mode, odd)
    if out is x or any(lo or hi for lo, hi in pairs):  # the even pads left: one kernel pass
        out = pad_pairs(out, pairs, "circular" if mode == "wrap" else mode)
    return out


def _ramp(edge, end, width, d, dtype):
    """NumPy's ``linspace(end, edge, width, endpoint=False)`` along dim ``d``: computed in
    float64 (complex128), floored for an integer dtype, cast to ``dtype``, as NumPy does."""
    wide = complex128 if dtype.kind == "c" or isinstance(end, complex) else float64
    delta = _ew.subtract(_vops.astype(edge, wide), end)
    shape = [width if e == d else 1 for e in range(edge.ndim)]
    k = _vops.reshape(_cr.arange(width, dtype=float64, device=edge.device), shape)
    step = _ew.divide(delta, width)
    if _red.any(_ew.equal(step, 0)).item():  # NumPy's order of operations when a step is 0
        y = _ew.multiply(_ew.divide(k, width), delta)
    else:
        y = _ew.multiply(k, step)
    y = _ew.add(y, end)
    if dtype.kind in "iu":
        y = _ew.floor(y)
    return _vops.astype(y, dtype)


def _pad_ramp(x, pairs, ends):
    """Mode linear_ramp: one dim at a time, each ramp from its end value to the edge."""
    out = x
    for d, ((lo, hi), (e_lo, e_hi)) in enumerate(zip(pairs, ends, strict=True)):
        if not (lo or hi):
            continue
        size = out.shape[d]
        parts = []
        if lo:
            parts.append(_ramp(_vops.narrow(out, d, 0, 1), e_lo, lo, d, x.dtype))
        parts.append(out)
        if hi:
            ramp = _ramp(_vops.narrow(out, d, size - 1, 1), e_hi, hi, d, x.dtype)
            parts.append(_vops.flip(ramp, d))
        out = concat(parts, axis=d)
    return out


_STATS = {
    "maximum": _red.max,
    "minimum": _red.min,
    "mean": _red.mean,
    "median": _quantiles.median,
}


def _pad_stat(x, pairs, lengths, mode):
    """Modes maximum, minimum, mean and median: each side holds the statistic of the
    ``stat_length`` values nearest it (all of them by default), one dim at a time (a dim's
    statistics see the pads of the dims before it, as NumPy's do)."""
    func = _STATS[mode]
    out = x
    for d, ((lo, hi), (l_lo, l_hi)) in enumerate(zip(pairs, lengths, strict=True)):
        n = x.shape[d]
        l_lo = n if l_lo is None or l_lo > n else l_lo
        l_hi = n if l_hi is None or l_hi > n else l_hi
        if (l_lo == 0 or l_hi == 0) and mode in ("maximum", "minimum"):
            raise ValueError(f"pad: stat_length 0 on axis {d} leaves no value for mode {mode!r}")
        if not (lo or hi):
            continue
        stats = []
        for start, length in ((0, l_lo), (n - l_hi, l_hi)):
            s = func(_vops.narrow(out, d, start, length), axis=d, keepdims=True)
            if x.dtype.kind in "iu" and s.dtype.kind not in "iu":
                s = _ew.round(s)  # NumPy rounds a mean or median half to even for integers
            stats.append(_vops.astype(s, x.dtype))
        shape = list(out.shape)
        parts = []
        if lo:
            shape[d] = lo
            parts.append(_vops.broadcast_to(stats[0], tuple(shape)))
        parts.append(out)
        if hi:
            shape[d] = hi
            parts.append(_vops.broadcast_to(stats[1], tuple(shape)))
        out = concat(parts, axis=d)
    return out


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` with borders added, as NumPy's ``numpy.pad`` (Note [Two pads]).

    PyTorch's ``torch.nn.functional.pad``, with its last-dim-first widths, is
    ``strided.nn.functional.pad``.

    Parameters
    ----------
    array : tensor or array_like
        The input.
    pad_width : int, (before, after), or ((before_0, after_0), ..., (before_n, after_n))
        How many values to add before and after each axis, broadcast to one pair per axis
        (Note [NumPy's pad widths]); also a dict ``{axis: width or (before, after)}``. Widths
        are integers >= 0.
    mode : str
        What the borders hold:

        - ``"constant"`` (default): ``constant_values`` (0), one value, a (before, after) pair,
          or a pair per axis;
        - ``"edge"``: the edge value repeated;
        - ``"reflect"``: the mirror image without the edge; ``"symmetric"``: with it
          (``reflect_type="odd"`` mirrors through the edge value instead: ``2 * edge - mirror``);
        - ``"wrap"``: the other end of the axis;
        - ``"linear_ramp"``: a ramp from ``end_values`` (0) to the edge;
        - ``"maximum"``, ``"minimum"``, ``"mean"``, ``"median"``: that statistic of the
          ``stat_length`` values nearest each side (all of the axis by default);
        - ``"empty"``: unspecified values (zeros here).
    **kwargs
        The keyword of the mode, as above; any other keyword is refused with a ValueError, as
        NumPy refuses it.

    Returns
    -------
    Tensor
        A fresh contiguous tensor of ``array``'s dtype. Gradients flow through every mode.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[1, 2, 3], [4, 5, 6]])
    >>> strided.pad(x, (1, 2)).shape          # every axis: 1 before, 2 after
    (5, 6)
    >>> strided.pad(x, ((0, 0), (2, 1)), constant_values=9)
    tensor([[9, 9, 1, 2, 3, 9],
            [9, 9, 4, 5, 6, 9]])
    >>> strided.pad(strided.asarray([1, 2, 3]), 2, mode="reflect")
    tensor([3, 2, 1, 2, 3, 2, 1])
    >>> strided.pad(strided.asarray([1, 2, 3]), (2, 4), mode="wrap")
    tensor([2, 3, 1, 2, 3, 1, 2, 3, 1])
    """
    x = _tensor(array)
    if callable(mode):
        raise NotImplementedError(
            "pad: a function as mode (NumPy's per-vector padding callback) is not supported; "
            "use one of NumPy's named modes"
        )
    if not isinstance(mode, str) or mode not in _NUMPY_MODES:
        hint = ""
        if mode in _TORCH_MODES:
            hint = (
                f" ({mode!r} is PyTorch's name: NumPy's is {_TORCH_MODES[mode]!r}; PyTorch's pad "
                "is strided.nn.functional.pad)"
            )
        raise ValueError(f"pad: mode {mode!r} is not one of {tuple(_NUMPY_MODES)}{hint}")
    unknown = sorted(set(kwargs) - set(_NUMPY_MODES[mode]))
    if unknown:
        hint = ""
        if "value" in unknown:
            hint = (
                "; NumPy's pad takes constant_values= (value= is PyTorch's, in "
                "strided.nn.functional.pad)"
            )
        raise ValueError(f"pad: unsupported keyword arguments for mode {mode!r}: {unknown}{hint}")
    pairs = _pad_width(pad_width, x.ndim)
    if mode in ("constant", "empty"):
        values = _as_pairs(kwargs.get("constant_values", 0), x.ndim, "constant_values")
        return _pad_constant(x, pairs, values)
    if x.size == 0:  # nothing to copy from: an empty axis can only stay empty
        for d, (n, (lo, hi)) in enumerate(zip(x.shape, pairs, strict=True)):
            if n == 0 and (lo or hi):
                raise ValueError(
                    f"pad: cannot extend the empty axis {d} (shape {x.shape}) with mode "
                    f"{mode!r}; only 'constant' and 'empty' can"
                )
        return _empty([n + lo + hi for n, (lo, hi) in zip(x.shape, pairs, strict=True)], x.dtype, x)
    if mode == "edge":
        return pad_pairs(x, pairs, "replicate")
    if mode in ("reflect", "symmetric", "wrap"):
        kind = kwargs.get("reflect_type", "even")
        if kind not in ("even", "odd"):
            raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {kind!r}")
        return _pad_periodic(x, pairs, mode, kind == "odd")
    if mode == "linear_ramp":
        ends = _as_pairs(kwargs.get("end_values", 0), x.ndim, "end_values")
        out = _pad_ramp(x, pairs, ends)
    else:
        lengths = _as_pairs(kwargs.get("stat_length"), x.ndim, "stat_length", as_index=True)
        out = _pad_stat(x, pairs, lengths, mode)
    return out if out is not x else _vops.clone(x)
