"""Histograms, differences and interpolation: NumPy's ``histogram``, ``bincount``,
``digitize``, ``diff``, ``ediff1d`` and ``interp``, each composed of existing ops, so it runs on
every device and autograd differentiates it through its parts; ``histogram`` and ``bincount``
also have a CPU counting kernel (Note [Counting kernels]).

A histogram is a search and a count: ``digitize`` is ``searchsorted`` of the values among the
bin edges; ``histogram`` finds each value's bin the same way (on the CPU, for equal-width bins,
by arithmetic, as NumPy does) and ``bincount`` counts the bin numbers with a scatter-add of ones
(or of the weights) into a zeroed tensor, or on the CPU with one counting pass. ``diff`` is a
subtraction of two shifted views of the same tensor, repeated n times; ``interp`` finds each x's
interval among the sample points with ``searchsorted`` and interpolates linearly between the two
ends, which keeps it differentiable in ``x`` and ``fp``. The host reads a value back only where
Note [Host reads in statistics] (in stats.py) allows: ``bincount``'s length, ``histogram``'s range
when none is given, and the checks NumPy makes on the data.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from strided import _check, _core
from strided._cpu import count as _count
from strided._dtype import bool_, can_cast, float32, float64, int64, promote_types
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import reduction as _red
from strided._ops import shape as _shape
from strided._ops import sorting as _sort
from strided._ops import views as _views

__all__ = [
    "histogram",
    "histogram_bin_edges",
    "histogram2d",
    "histogramdd",
    "bincount",
    "digitize",
    "diff",
    "ediff1d",
    "interp",
]

_tensor = _check.tensor  # on ``like``'s device when given


def _axis(name, x, axis):
    return _check.axis(axis, x.ndim, name)


# -- histograms ---------------------------------------------------------------------------------


# Note [Counting kernels]
# ~~~~~~~~~~~~~~~~~~~~~~~
# Composed of existing ops, a count is a scatter-add of ones into zeros (``_counts``) after
# elementwise passes that find each value's bin: for a histogram of 1e6 values, eight passes
# over the data and a binary search each, 3x slower than NumPy. On the CPU one pass does it all:
# ``_cpu/count.pyx`` finds each value's bin (for equal bins by NumPy's own arithmetic, Note
# [Histogram bins by arithmetic] there, so the counts are NumPy's bit for bit) and counts it in
# the same step, on private tables per thread (Note [Private histograms] there); the bin count
# and the range come from one ``minmax`` pass, not separate ``min`` and ``max`` reductions. The
# kernels run when the tensors are on the CPU, the values are real and the weights need no
# gradient (``_kernel_ok``); elsewhere, on the CUDA devices and when autograd must see the
# weights, the composed path runs and gives the same counts (a float weight sum may differ from
# the kernel's in its last bits: another order of additions).


def _kernel_ok(x, w):
    """Whether the CPU counting kernels may run: see Note [Counting kernels]."""
    return x.device.is_cpu and (w is None or (w.dtype.kind != "c" and not w.requires_grad))


def _minmax(x):
    """``(min, max)`` of the non-empty 1-D ``x`` as Python numbers, in one host read."""
    if x.device.is_cpu and x.dtype in (int64, float32, float64):
        return _count.minmax(x)
    lo, hi = _shape.stack([_red.min(x), _red.max(x)]).tolist()
    return lo, hi


def _counts(index, nbins, weights, device):
    """How many (or how much weight) of ``index``'s entries fall in each of ``nbins`` bins."""
    if weights is None:
        base = _cr.zeros(nbins, dtype=int64, device=device)
        ones = _cr.ones(index.shape, dtype=int64, device=device)
        return _ix.index_add(base, 0, index, ones)
    base = _cr.zeros(nbins, dtype=weights.dtype, device=device)
    return _ix.index_add(base, 0, index, weights)


def _histogram_cpu(flat, edges, uniform, denom, w):
    """The CPU kernel's histogram (Note [Counting kernels]), or None where it does not apply."""
    dt = edges.dtype if uniform else promote_types(flat.dtype, edges.dtype)
    if dt not in (float32, float64) or edges.shape[0] < 2:
        return None
    x = flat.astype(dt, copy=False)
    e = edges.astype(dt, copy=False).contiguous()
    hist = _count.histogram(x, e, uniform, denom, None if w is None else w.astype(float64))
    return hist if w is None or w.dtype is float64 else hist.astype(w.dtype)


def _histogram_composed(flat, edges, w):
    """The histogram of existing ops, for every device: a search among the edges, then a count
    (Note [Counting kernels])."""
    nb = edges.shape[0] - 1
    lo, hi = _views.select(edges, 0, 0), _views.select(edges, 0, nb)
    inside = _ew.logical_and(_ew.greater_equal(flat, lo), _ew.less_equal(flat, hi))
    idx = _ew.subtract(_ix.searchsorted(edges, flat, side="right"), 1)
    idx = _ew.where(_ew.equal(flat, hi), nb - 1, idx)  # the last bin holds its right edge
    idx = _ew.where(inside, idx, nb)  # outside: a spill bin, dropped below
    return _counts(idx, nb + 1, None if w is None else _ew.where(inside, w, 0), flat.device)[:nb]


def _bin_edges(name, a, flat, bins, range):
    """``(edges, uniform, denom)`` of ``histogram(a, bins, range)``: NumPy's edges for a number
    of bins (equal widths over ``range`` or a's min to max, in a's float dtype), or the given
    increasing edges; ``uniform`` and ``denom`` tell the counting kernel how to find a bin."""
    if isinstance(bins, str):
        raise NotImplementedError(
            f"{name}: bins={bins!r} (an estimator name) is not supported; pass a number of "
            "bins or the bin edges"
        )
    if (
        isinstance(bins, (int, np.integer))
        and not isinstance(bins, bool)
        or (isinstance(bins, _core.TensorBase) and bins.ndim == 0)
    ):
        nb = operator.index(bins if not isinstance(bins, _core.TensorBase) else int(bins))
        if nb < 1:
            raise ValueError(f"{name}: bins must be a positive integer, got {nb}")
        if range is not None:
            first, last = (float(v) for v in range)
            if first > last:
                raise ValueError(f"{name}: range=({first}, {last}): max must be larger than min")
            if not (math.isfinite(first) and math.isfinite(last)):
                raise ValueError(f"{name}: supplied range of [{first}, {last}] is not finite")
        elif flat.numel() == 0:
            first, last = 0.0, 1.0
        else:
            # a host read: the edges depend on the data (Note [Host reads in statistics])
            first, last = _minmax(flat)
            if a.dtype.kind == "f":  # NumPy computes the edges from a's own scalars
                first, last = a.dtype.numpy.type(first), a.dtype.numpy.type(last)
            if not (math.isfinite(first) and math.isfinite(last)):
                raise ValueError(
                    f"{name}: autodetected range of [{first}, {last}] is not finite; pass "
                    "range= or remove the NaN/inf values"
                )
        if first == last:
            first, last = first - 0.5, last + 0.5
        uniform, denom = True, float(last - first)  # NumPy's norm_denom, in first's type
        edge_np = a.dtype.numpy if a.dtype.kind == "f" else np.float64
        edges = _cr.asarray(
            np.linspace(first, last, nb + 1, dtype=edge_np), device=a.device
        )  # as NumPy computes them, in a's float dtype
    else:
        edges = _tensor(bins, a)
        if edges.ndim != 1:
            raise ValueError(f"{name}: bins must be an int or 1-D edges, got shape {edges.shape}")
        if edges.shape[0] < 1:
            raise ValueError(f"{name}: bins must hold at least one edge")
        # a host read (Note [Host reads in statistics]): NumPy refuses decreasing edges
        if edges.shape[0] > 1 and bool(_red.any(_ew.greater(edges[:-1], edges[1:]))):
            raise ValueError(f"{name}: bins must increase monotonically, when an array")
        uniform, denom = False, 1.0
    return edges, uniform, denom


def histogram(a, bins=10, range=None, density=None, weights=None):
    """``(hist, bin_edges)``: how many elements of ``a`` (flattened) fall in each bin.

    ``bins`` is a number of equal bins over ``range`` (default: a's min to max; a host read of
    the data, Note [Host reads in statistics]) or the increasing bin edges. Bin i holds
    ``edges[i] <= x < edges[i + 1]``, the last bin also its right edge; values outside are not
    counted. ``weights`` (a's shape) counts weight instead of 1; ``density`` normalises to a
    probability density. Bin-selection strings ("auto", ...) are not supported.

    Examples
    --------
    >>> import strided
    >>> hist, edges = strided.histogram(strided.asarray([1, 2, 1, 4]), bins=3)
    >>> hist
    tensor([2, 1, 1])
    >>> edges
    tensor([1., 2., 3., 4.])
    """
    a = _tensor(a)
    if a.dtype.kind == "c":
        raise TypeError("histogram: a must be real (complex numbers have no order)")
    flat = _views.reshape(a, (-1,))
    w = None
    if weights is not None:
        w = _tensor(weights, a)
        if w.shape != a.shape:
            raise ValueError(
                f"histogram: weights should have the same shape as a: got {w.shape} and {a.shape}"
            )
        w = _views.reshape(w, (-1,))
    edges, uniform, denom = _bin_edges("histogram", a, flat, bins, range)
    nb = edges.shape[0] - 1
    if weights is None and nb == 0:
        return _cr.zeros(0, dtype=int64, device=a.device), edges
    hist = _histogram_cpu(flat, edges, uniform, denom, w) if _kernel_ok(a, w) else None
    if hist is None:
        hist = _histogram_composed(flat, edges, w)
    if density:
        widths = _ew.subtract(edges[1:], edges[:-1]).astype(float64)
        hist = _ew.divide(_ew.divide(hist, widths), _red.sum(hist))
    return hist, edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges ``histogram(a, bins, range)`` would use (``weights`` is accepted, as NumPy's,
    and does not change them).

    Examples
    --------
    >>> import strided
    >>> strided.histogram_bin_edges(strided.asarray([1, 2, 1, 4]), bins=3)
    tensor([1., 2., 3., 4.])
    """
    a = _tensor(a)
    if a.dtype.kind == "c":
        raise TypeError("histogram_bin_edges: a must be real (complex numbers have no order)")
    return _bin_edges("histogram_bin_edges", a, _views.reshape(a, (-1,)), bins, range)[0]


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """``(hist, edges)``: the D-dimensional histogram of ``sample``, an (N, D) tensor (or D
    tensors of N values), as NumPy's ``histogramdd``: per dim, ``bins`` is a number of equal
    bins (float64 edges over ``range`` or the dim's min to max) or the increasing edges; a
    sample falls in bin ``(i, j, ...)`` when it is in each dim's bin, the last bin of a dim also
    holding its right edge; a sample outside any dim's edges is not counted. ``hist`` is
    float64, as NumPy's, and the counting is one ``index_add`` over the samples' flat bin
    numbers (no loop over samples). Edges computed from the data are in the sample's float
    dtype (float64 for integers, or with ``range=``), as NumPy's.

    Examples
    --------
    >>> import strided
    >>> xy = strided.asarray([[0.0, 0.0], [1.0, 1.0], [1.0, 0.2]])
    >>> hist, edges = strided.histogramdd(xy, bins=2)
    >>> hist
    tensor([[1., 0.],
            [1., 1.]])
    """
    if isinstance(sample, (list, tuple)):
        cols = [_views.reshape(_tensor(c), (-1,)) for c in sample]
        n = {c.shape[0] for c in cols}
        if len(n) > 1:
            raise ValueError(f"histogramdd: the sample's dims have different lengths: {sorted(n)}")
        sample = _shape.stack(cols, axis=1) if cols else _cr.zeros((0, 0))
    sample = _tensor(sample)
    if sample.ndim == 1:
        sample = _views.reshape(sample, (-1, 1))
    if sample.ndim != 2:
        raise ValueError(f"histogramdd: sample must be (N, D), got shape {sample.shape}")
    if sample.dtype.kind == "c":
        raise TypeError("histogramdd: sample must be real (complex numbers have no order)")
    npts, ndim = sample.shape
    seq = isinstance(bins, (list, tuple)) or (
        isinstance(bins, _core.TensorBase) and bins.ndim == 1 and ndim > 1
    )
    if seq and len(bins) != ndim:
        raise ValueError(
            f"histogramdd: bins has {len(bins)} entries for a sample of {ndim} dims; give one "
            "per dim, or one for all"
        )
    if range is not None and len(range) != ndim:
        raise ValueError(f"histogramdd: range has {len(range)} entries for {ndim} dims")
    x = sample.astype(float64, copy=False)
    edges, flat_bin, keep, nbins = [], None, None, []
    for d in builtins.range(ndim):
        col = x[:, d]
        b = bins[d] if seq else bins
        r = None if range is None else range[d]
        src = sample[:, d] if r is None else col  # NumPy: range='s floats make float64 edges
        own = _bin_edges("histogramdd", src, src, b, r)[0]
        e = own.astype(float64, copy=False)  # compared in float64, which is exact
        nb = e.shape[0] - 1
        idx = _ew.subtract(_ix.searchsorted(e, col, side="right"), 1)
        if nb > 0:  # the last bin holds its right edge
            idx = _ew.where(_ew.equal(col, e[nb]), nb - 1, idx)
        inside = _ew.logical_and(_ew.greater_equal(idx, 0), _ew.less(idx, nb))
        idx = _ew.where(inside, idx, 0)
        flat_bin = idx if flat_bin is None else _ew.add(_ew.multiply(flat_bin, nb), idx)
        keep = inside if keep is None else _ew.logical_and(keep, inside)
        edges.append(own)
        nbins.append(nb)
    total = math.prod(nbins)
    if ndim == 0:
        flat_bin, keep = _cr.zeros(npts, dtype=int64), _cr.ones(npts, dtype=bool_)
    flat_bin = _ew.where(keep, flat_bin, total)  # outside: a spill bin, dropped below
    w = None
    if weights is not None:
        w = _views.reshape(_tensor(weights), (-1,))
        if w.shape[0] != npts:
            raise ValueError(
                f"histogramdd: weights has {w.shape[0]} values for {npts} samples; give one each"
            )
        w = _ew.where(keep, w.astype(float64, copy=False), 0)
    hist = _counts(flat_bin, total + 1, w, x.device)[:total].astype(float64, copy=False)
    hist = _views.reshape(hist, tuple(nbins))
    if density:
        hist = _ew.divide(hist, _red.sum(hist))
        for d, e in enumerate(edges):
            shape = [1] * ndim
            shape[d] = nbins[d]
            width = _views.reshape(_ew.subtract(e[1:], e[:-1]), tuple(shape))
            hist = _ew.divide(hist, width)
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """``(hist, xedges, yedges)``: the 2-D histogram of the points ``(x[i], y[i])``, as NumPy's
    ``histogram2d`` (``histogramdd`` of the two; ``bins`` an int, a pair of ints, one edges
    array for both or a pair of edges arrays).

    Examples
    --------
    >>> import strided
    >>> h, xe, ye = strided.histogram2d(strided.asarray([0.0, 1.0]), strided.asarray([1.0, 1.0]), 2)
    >>> h
    tensor([[0., 1.],
            [0., 1.]])
    """
    x, y = _tensor(x), _tensor(y)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(
            f"histogram2d: x and y must be 1-D of one length, got shapes {x.shape} and {y.shape}"
        )
    try:  # NumPy's reading of bins: an int, a pair (one per dim), or one edges array for both
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def bincount(x, /, weights=None, minlength=0):
    """How often each value 0, 1, ..., max(x) occurs in the non-negative integers ``x`` (1-D),
    at least ``minlength`` bins; with ``weights``, their sums per value (float64). The length
    depends on the data: one host read (Note [Host reads in statistics]).

    Examples
    --------
    >>> import strided
    >>> strided.bincount(strided.asarray([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    >>> strided.bincount(strided.asarray([0, 1, 1]), weights=[0.5, 1.0, 2.0], minlength=3)
    tensor([0.5, 3. , 0. ])
    """
    x = _tensor(x)
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got shape {x.shape}")
    if x.dtype.kind not in "iub":
        raise TypeError(
            f"bincount: x must hold integers, got {x.dtype.name}; cast it, e.g. x.astype(int64)"
        )
    if minlength is None or isinstance(minlength, bool) or not hasattr(minlength, "__index__"):
        raise TypeError(f"bincount: minlength must be an int, got {minlength!r}")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
    w = None
    if weights is not None:
        w = _tensor(weights, x)
        if w.shape != x.shape:
            raise ValueError(f"bincount: weights must have x's shape {x.shape}, got {w.shape}")
        w = w.astype(float64, copy=False)
    x = x.astype(int64, copy=False)
    length = minlength
    if not x.numel():
        w = None  # NumPy counts nothing, as int64, whatever the weights
    else:
        lo, hi = _minmax(x)  # a host read: the length depends on x
        if lo < 0:
            raise ValueError(f"bincount: x must have no negative elements, got {lo}")
        length = max(hi + 1, minlength)
    if _kernel_ok(x, w):  # Note [Counting kernels]
        return _count.bincount(x, length, w)
    return _counts(x, length, w, x.device)


def digitize(x, bins, right=False):
    """The index (int64) of the bin each element of ``x`` falls in: with increasing ``bins``,
    i such that ``bins[i-1] <= x < bins[i]`` (``bins[i-1] < x <= bins[i]`` with ``right``);
    decreasing bins work too. Checking that bins are monotonic is a host read (Note [Host
    reads in statistics]).

    Examples
    --------
    >>> import strided
    >>> strided.digitize(strided.asarray([0.5, 1.0, 2.5, 9.0]), [1.0, 2.0, 3.0])
    tensor([0, 1, 2, 3])
    >>> strided.digitize(strided.asarray([0.5, 1.0, 2.5, 9.0]), [1.0, 2.0, 3.0], right=True)
    tensor([0, 0, 2, 3])
    """
    x = _tensor(x)
    b = _tensor(bins, x)
    if x.dtype.kind == "c":
        raise TypeError("digitize: x may not be complex")
    if b.ndim != 1:
        raise ValueError(f"digitize: bins must be 1-D, got shape {b.shape}")
    side = "left" if right else "right"
    if b.shape[0] > 1:
        up = bool(_red.all(_ew.less_equal(b[:-1], b[1:])))
        if not up:
            if not bool(_red.all(_ew.greater_equal(b[:-1], b[1:]))):
                raise ValueError("digitize: bins must be monotonically increasing or decreasing")
            return _ew.subtract(b.shape[0], _ix.searchsorted(_views.flip(b, 0), x, side=side))
    return _ix.searchsorted(b, x, side=side)


# -- differences and interpolation --------------------------------------------------------------


def _edge(name, what, v, a, axis):
    """prepend/append ``v`` as a tensor that concatenates to a along ``axis``."""
    v = _tensor(v, a)
    if v.ndim == 0:
        shape = list(a.shape)
        shape[axis] = 1
        v = _views.broadcast_to(v, tuple(shape))
    return v


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along ``axis``: ``a[1:] - a[:-1]``, n times (for bools,
    ``!=``). ``prepend``/``append`` are joined to ``a`` along ``axis`` first (scalars broadcast).
    Differentiable.

    Examples
    --------
    >>> import strided
    >>> strided.diff(strided.asarray([1, 4, 9, 16]))
    tensor([3, 5, 7])
    >>> strided.diff(strided.asarray([1, 4, 9, 16]), n=2, prepend=0)
    tensor([2, 2, 2])
    """
    a = _tensor(a)
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"diff: n must be an int, got {n!r}")
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    if a.ndim == 0:
        raise ValueError("diff: a must be at least 1-D, got a 0-d tensor")
    axis = _axis("diff", a, axis)
    parts = []
    if prepend is not None:
        parts.append(_edge("diff", "prepend", prepend, a, axis))
    parts.append(a)
    if append is not None:
        parts.append(_edge("diff", "append", append, a, axis))
    if len(parts) > 1:
        a = _shape.concat(parts, axis=axis)
    op = _ew.not_equal if a.dtype is bool_ else _ew.subtract
    for _ in range(n):
        length = a.shape[axis]
        if length == 0:
            break
        a = op(_views.narrow(a, axis, 1, length - 1), _views.narrow(a, axis, 0, length - 1))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of consecutive elements of the flattened ``ary``, with ``to_begin`` and
    ``to_end`` (cast to ary's dtype, NumPy's "same_kind" rule) around them.

    Examples
    --------
    >>> import strided
    >>> strided.ediff1d(strided.asarray([[1, 2], [4, 7]]), to_begin=-99)
    tensor([-99,   1,   2,   3])
    """
    a = _views.reshape(_tensor(ary), (-1,))
    if a.dtype is bool_:
        raise TypeError("ediff1d: bool input has no subtraction; cast it first")
    parts = []
    for what, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            parts.append(None)
            continue
        v = _tensor(v, a)
        if not can_cast(v.dtype, a.dtype, "same_kind"):
            raise TypeError(
                f"ediff1d: dtype of {what} ({v.dtype.name}) must be compatible with the input "
                f"ary ({a.dtype.name}) under the 'same_kind' rule"
            )
        parts.append(_views.reshape(v.astype(a.dtype), (-1,)))
    d = (
        _ew.subtract(a[1:], a[:-1])
        if a.shape[0] > 1
        else _cr.empty((0,), dtype=a.dtype, device=a.device)
    )
    pieces = [p for p in (parts[0], d, parts[1]) if p is not None]
    return _shape.concat(pieces, axis=0) if len(pieces) > 1 else d


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise-linear interpolant through the points ``(xp, fp)``, at ``x``: ``xp`` must
    increase (not checked, as in NumPy). Below ``xp[0]`` gives ``left`` (default ``fp[0]``),
    above ``xp[-1]`` gives ``right`` (default ``fp[-1]``); with ``period`` the points repeat
    (and left/right are ignored). float64 (complex128 for complex ``fp``). Differentiable in
    ``x`` and ``fp``.

    Examples
    --------
    >>> import strided
    >>> strided.interp(strided.asarray([0.5, 1.5, 5.0]), [0.0, 1.0, 2.0], [0.0, 10.0, 30.0])
    tensor([ 5., 20., 30.])
    """
    # the first tensor among the three decides the device (a Python x goes to xp's)
    like = next((v for v in (x, xp, fp) if isinstance(v, _core.TensorBase)), None)
    x = _tensor(x, like)
    xp = _tensor(xp, x)
    fp = _tensor(fp, x)
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError(f"interp: xp and fp must be 1-D, got shapes {xp.shape} and {fp.shape}")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError(
            f"interp: fp and xp are not of the same length ({fp.shape[0]} and {xp.shape[0]})"
        )
    if xp.shape[0] == 0:
        raise ValueError("interp: array of sample points (xp) is empty")
    if x.dtype.kind == "c" or xp.dtype.kind == "c":
        raise TypeError("interp: x and xp must be real; only fp may be complex")
    fdt = fp.dtype if fp.dtype.kind == "c" else float64
    x, xp, fp = x.astype(float64), xp.astype(float64), fp.astype(promote_types(fdt, float64))
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = abs(period)
        left = right = None
        x = _ew.remainder(x, period)
        xp = _ew.remainder(xp, period)
        order = _sort.argsort(xp)
        xp, fp = _ix.take(xp, order), _ix.take(fp, order)
        xp = _shape.concat([_ew.subtract(xp[-1:], period), xp, _ew.add(xp[0:1], period)])
        fp = _shape.concat([fp[-1:], fp, fp[0:1]])
    m = xp.shape[0]
    first_x, last_x = xp[0], xp[m - 1]
    first_f, last_f = fp[0], fp[m - 1]
    if m == 1:
        val = _views.broadcast_to(first_f, x.shape)
    else:
        j = _ew.subtract(_ix.searchsorted(xp, x, side="right"), 1)
        j = _ew.clip(j, 0, m - 2)
        # one slope per interval (m - 1 of them, as NumPy computes them), then per point
        # three lookups and f0 + slope * (x - x0)
        slopes = _ew.divide(_ew.subtract(fp[1:], fp[:-1]), _ew.subtract(xp[1:], xp[:-1]))
        x0, f0, slope = _ix.take(xp, j), _ix.take(fp, j), _ix.take(slopes, j)
        val = _ew.add(_ew.multiply(slope, _ew.subtract(x, x0)), f0)
        nan = _ew.isnan(val)
        if bool(_red.any(nan)):
            # NumPy: a NaN (an infinite slope, an inf in fp) is retried from the other end
            x1, f1 = _ix.take(xp, _ew.add(j, 1)), _ix.take(fp, _ew.add(j, 1))
            other = _ew.add(_ew.multiply(slope, _ew.subtract(x, x1)), f1)
            val = _ew.where(nan, other, val)
            val = _ew.where(_ew.logical_and(_ew.isnan(val), _ew.equal(f0, f1)), f0, val)
        val = _ew.where(_ew.equal(x, x0), f0, val)  # an exact hit gives fp itself
        val = _ew.where(_ew.equal(x, last_x), last_f, val)
    lo = first_f if left is None else _tensor(left, x).astype(fp.dtype)
    hi = last_f if right is None else _tensor(right, x).astype(fp.dtype)
    val = _ew.where(_ew.less(x, first_x), lo, val)
    val = _ew.where(_ew.greater(x, last_x), hi, val)
    if fp.dtype.kind != "c" and m > 1:  # NumPy: one point gives fp[0] even for a NaN x
        val = _ew.where(_ew.isnan(x), x, val)
    return val
