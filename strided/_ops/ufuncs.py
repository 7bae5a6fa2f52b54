"""NumPy's ufunc methods on strided's elementwise functions: ``strided.add.reduce(x, axis=0)``,
``strided.add.accumulate``, ``strided.add.outer``, ``strided.add.at`` and the attributes
``nin``, ``nout``, ``nargs``, ``identity`` and ``signature``, as ``numpy.add`` has them.

``UFUNCS`` maps every NumPy ufunc that strided computes to the strided function that computes
it. It is the one table of that correspondence: ``__array_ufunc__`` looks NumPy's ufuncs up in
it (strided/_numpy_protocols.py), and the attributes below are set from it.

Note [Ufunc methods on plain functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy's ``np.add`` is an object of class ``ufunc``: calling it runs the loop, and its methods
(``reduce``, ``accumulate``, ``outer``, ``at``) reuse the same loop in other patterns. The
obvious copy, a ``Ufunc`` class with a ``__call__``, would put a Python-level call in front of
every ``strided.add(a, b)``: the compiled front end of a binary op (Note [Compiled front ends]
in _cpu/binary.pyx.tp) is what keeps a small add near NumPy's cost. So strided's elementwise
functions stay what they are, and the methods are attributes set on the function objects at
import (Python functions and Cython's functions both carry a ``__dict__``). ``strided.add(a,
b)`` runs exactly the code it ran before; ``strided.add.reduce`` is one attribute lookup away.

The methods are compositions of strided's own ops, picked per ufunc:

- ``reduce``: the reduction kernel where strided has one (add -> ``sum``, multiply -> ``prod``,
  maximum -> ``max``, minimum -> ``min``, logical_and -> ``all``, logical_or -> ``any``).
  Otherwise a fold along the axis: for the ops that are exactly associative and commutative
  (max/min, logical and bitwise ops: any grouping gives the same bits) a pairwise tree, log2(n)
  calls on halves; for the rest (subtract, divide, hypot, logaddexp, ...) NumPy's own order,
  ``((x0 op x1) op x2) ...``, one call per slice, so floating-point results are NumPy's.
- ``accumulate``: ``cumulative_sum`` / ``cumulative_prod``; for the exactly associative ops a
  log-step scan (Hillis and Steele: log2(n) calls); otherwise one call per slice in order.
- ``outer``: ``op(a[..., None, ...], b)``, broadcasting does the rest.
- ``at`` (unbuffered, in place: a repeated index applies the op once per occurrence): add and
  subtract are ``index_put_(..., accumulate=True)``, which adds occurrences one after another in
  index order as NumPy does (subtracting ``y`` is adding ``-y``, bit for bit). Any other op runs
  in rounds: each round applies the op once to every position still pending, by an ordinary
  (buffered) gather, op and scatter; a position named k times is done after k rounds, so the
  number of rounds is the largest repeat count.

The attributes ``nin``, ``nout``, ``nargs``, ``identity`` and ``signature`` are copied from the
NumPy ufunc itself, so they cannot drift from NumPy's.
"""

from __future__ import annotations

import math

import numpy as np

from strided import _check
from strided._core import TensorBase
from strided._dtype import can_cast
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import indexing as _ix
from strided._ops import joining as _join
from strided._ops import linalg as _la
from strided._ops import mathfuncs as _mf
from strided._ops import reduction as _red
from strided._ops import scan as _scan
from strided._ops import ufunclike as _ufl
from strided._ops import views as _vops

__all__ = ["UFUNCS"]

_SCALARS = (bool, int, float, complex)
_NO_VALUE = object()  # "not given", where None is a value (initial=None is NumPy's error)
_BASIC = (int, np.integer, slice, type(Ellipsis), type(None))  # basic indices (a bool is not)

# Reductions and scans that strided has kernels for.
_REDUCTIONS = {
    "add": _red.sum,
    "multiply": _red.prod,
    "maximum": _red.max,
    "minimum": _red.min,
    "logical_and": _red.all,
    "logical_or": _red.any,
}
_SCANS = {"add": _scan.cumulative_sum, "multiply": _scan.cumulative_prod}
# Exactly associative and commutative: any grouping gives the same bits (a tree may fold them).
_EXACT = {
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
}
# Where NumPy lets ``reduce`` take several axes at once (its "reorderable" ufuncs).
_REORDERABLE = {"add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and"}
_REORDERABLE |= {"logical_or", "logical_xor", "hypot", "logaddexp"}
# A reduction of a comparison is not a reduction of values: these get outer and at only.
_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def _strided_functions():
    """name -> function for every public elementwise function of strided."""
    found = {}
    for module in (_ufl, _mf, _la, _ew):  # the elementwise module last: its names win
        found.update((name, getattr(module, name)) for name in module.__all__)
    return found


def _build_table():
    """NumPy ufunc -> strided function, under the ufunc's own name or any alias NumPy gives it
    (``np.acos`` is ``np.arccos``, so ``np.arccos`` finds ``strided.acos``); and every strided
    function that is one of those names, for the attributes (``strided.abs`` and
    ``strided.absolute`` both get ``nin``)."""
    ours = _strided_functions()
    names_of = {}
    for name, obj in vars(np).items():
        if isinstance(obj, np.ufunc):
            names_of.setdefault(obj, []).append(name)
    table, holders = {}, []
    for ufunc, names in names_of.items():
        names.sort(key=lambda n: n != ufunc.__name__)  # NumPy's own name first
        fns = [ours[n] for n in names if n in ours]
        if fns:
            table[ufunc] = fns[0]
            holders += [(ufunc, fn) for fn in fns]
    return table, holders


# -- the methods --------------------------------------------------------------------------------


def _index(axis, i):
    """The index tuple that picks ``i`` (an int or a slice) along ``axis``."""
    return (slice(None),) * axis + (i,)


def _probe_dtype(fn, *operands):
    """The dtype ``fn`` gives for these operands' dtypes, found on empty tensors (Python scalars
    stay as they are, weak)."""
    probes = [
        x if type(x) in _SCALARS else _cr.empty((0,), dtype=_check.tensor(x).dtype)
        for x in operands
    ]
    return fn(*probes).dtype


def _tree(fn, x, axis):
    """``x`` folded along ``axis`` by halves: log2(n) calls (exactly associative ops only)."""
    while x.shape[axis] > 1:
        n = x.shape[axis]
        half = fn(x[_index(axis, slice(0, n - 1, 2))], x[_index(axis, slice(1, n, 2))])
        if n % 2:
            half = _join.concatenate([half, x[_index(axis, slice(n - 1, n))]], axis=axis)
        x = half
    return x[_index(axis, 0)]


def _fold(fn, name, x, axis, start, dtype):
    """``x`` reduced along one axis, starting from ``start`` (_NO_VALUE: from the first slice),
    in NumPy's order unless the op is exact (Note [Ufunc methods on plain functions])."""
    n = x.shape[axis]
    if name in _EXACT:
        r = _tree(fn, x, axis).astype(dtype)
        return r if start is _NO_VALUE else fn(start, r)
    r = x[_index(axis, 0)].astype(dtype)  # a copy, in the result's dtype
    if start is not _NO_VALUE:
        r = fn(start, r)
    for i in range(1, n):
        r = fn(r, x[_index(axis, i)])
    return r


def _make_reduce(ufunc, fn):
    name = ufunc.__name__
    identity = ufunc.identity
    reduction = _REDUCTIONS.get(name)

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
        x = _check.tensor(array)
        if x.ndim == 0 and axis is not None and axis != ():
            _check.axis(axis, 0, f"{name}.reduce")  # NumPy's error: a 0-d tensor has no axis 0
        axes = _red._dims(f"{name}.reduce", x, axis, None)
        if len(axes) > 1 and name not in _REORDERABLE:
            raise ValueError(
                f"reduction operation '{name}' is not reorderable, so at most one axis may be "
                "specified"
            )
        if where is not True:
            # Masked-out elements become the identity, which changes nothing; ops without one
            # need initial, as in NumPy (and only max/min-like ops, for which any element of
            # the reduction is as good as initial, take it).
            fill = identity
            if fill is None:
                if initial is _NO_VALUE or name not in _EXACT:
                    raise ValueError(
                        f"reduction operation '{name}' does not have an identity, so to use a "
                        "where mask one has to specify 'initial'"
                    )
                fill = initial
            x = _ew.where(where, x, fill)
        kept = tuple(1 if d in axes else s for d, s in enumerate(x.shape))
        empty = math.prod(x.shape[d] for d in axes) == 0
        if reduction is not None and not (empty and identity is None):
            result = reduction(x, axis=axes, keepdims=True, dtype=dtype)
            if initial is not _NO_VALUE:
                result = fn(result, initial)
        elif empty:
            start = identity if initial is _NO_VALUE else initial
            if start is None:
                raise ValueError(
                    f"zero-size array to reduction operation {name} which has no identity"
                )
            dt = dtype if dtype is not None else _probe_dtype(fn, x, x)
            result = _cr.full(kept, start, dtype=dt)
        else:
            if dtype is not None:
                x = x.astype(dtype)
            dt = _probe_dtype(fn, x, x)
            result = x.astype(dt) if not axes else x  # reducing over no axis is a copy
            for d in reversed(axes):  # the last axis first: the others keep their numbers
                one_start = initial if len(axes) == 1 else _NO_VALUE
                result = _vops.expand_dims(_fold(fn, name, result, d, one_start, dt), axis=d)
            if len(axes) > 1 and initial is not _NO_VALUE:
                result = fn(result, initial)
        if not keepdims:
            result = _vops.reshape(result, tuple(s for d, s in enumerate(kept) if d not in axes))
        return _red._finish(result, out)

    reduce.__doc__ = f"""``{name}`` applied along ``axis``, as ``numpy.{name}.reduce``: the
        axis (default 0; None for all, a tuple for several where NumPy allows it), ``dtype``,
        ``out``, ``keepdims``, ``initial`` (the starting value) and ``where`` (a mask of the
        elements to include). See Note [Ufunc methods on plain functions].

        Examples
        --------
        >>> import strided
        >>> strided.add.reduce(strided.asarray([[1, 2], [3, 4]]))
        tensor([4, 6])
        """
    return reduce


def _make_accumulate(ufunc, fn):
    name = ufunc.__name__
    scan = _SCANS.get(name)

    def accumulate(array, axis=0, dtype=None, out=None):
        x = _check.tensor(array)
        if x.ndim == 0:
            raise TypeError(f"{name}.accumulate: cannot accumulate on a scalar (a 0-d tensor)")
        axis = _check.axis(axis, x.ndim, f"{name}.accumulate")
        if scan is not None:
            return _red._finish(scan(x, axis=axis, dtype=dtype), out)
        if dtype is not None:
            x = x.astype(dtype)
        r = x.astype(_probe_dtype(fn, x, x))  # a copy in the result's dtype: slice 0 is done
        n = x.shape[axis]
        if name in _EXACT:
            # Hillis and Steele: after the step of distance d, r[i] combines x[i - 2d + 1 .. i].
            d = 1
            while d < n:
                step = r.clone()
                fn(r[_index(axis, slice(d, n))], r[_index(axis, slice(0, n - d))],
                   out=step[_index(axis, slice(d, n))])  # fmt: skip
                r, d = step, 2 * d
        else:
            for i in range(1, n):
                prev, here = r[_index(axis, i - 1)], r[_index(axis, i)]
                fn(prev, x[_index(axis, i)], out=here)
        return _red._finish(r, out)

    accumulate.__doc__ = f"""The running ``{name}`` along ``axis``, as
        ``numpy.{name}.accumulate``: element i combines elements 0..i, in order.

        Examples
        --------
        >>> import strided
        >>> strided.maximum.accumulate(strided.asarray([1, 3, 2, 5]))
        tensor([1, 3, 3, 5])
        """
    return accumulate


def _make_outer(ufunc, fn):
    name = ufunc.__name__

    def outer(a, b, /, **kwargs):
        if type(a) not in _SCALARS:
            a = _check.tensor(a)
            if type(b) not in _SCALARS:
                b = _check.tensor(b)
                a = _vops.reshape(a, a.shape + (1,) * b.ndim)
        return fn(a, b, **kwargs)

    outer.__doc__ = f"""``{name}(a[i, j, ...], b[k, l, ...])`` for every pair of elements, as
        ``numpy.{name}.outer``: the result's shape is ``a.shape + b.shape``.

        Examples
        --------
        >>> import strided
        >>> strided.multiply.outer(strided.arange(1, 3), strided.arange(1, 4))
        tensor([[1, 2, 3],
                [2, 4, 6]])
        """
    return outer


def _make_at(ufunc, fn):
    name, nin = ufunc.__name__, ufunc.nin

    def at(a, indices, b=None, /):
        if not isinstance(a, TensorBase):
            raise TypeError(
                f"{name}.at: the first argument must be a strided tensor (at() writes into it "
                f"in place), got {type(a).__name__}"
            )
        if (b is None) != (nin == 1):
            raise TypeError(
                f"{name}.at: {name} takes {nin} operand(s): pass "
                + ("a second operand b" if nin == 2 else "no second operand")
            )
        if b is not None and type(b) not in _SCALARS:
            b = _check.tensor(b, like=a)
        result = _probe_dtype(fn, a, b) if nin == 2 else _probe_dtype(fn, a)
        if not can_cast(result, a.dtype, "same_kind"):
            raise TypeError(
                f"Cannot cast ufunc '{name}' output from {result.numpy!r} to {a.dtype.numpy!r} "
                "with casting rule 'same_kind'"
            )
        index = indices if isinstance(indices, tuple) else (indices,)
        if all(isinstance(i, _BASIC) and not isinstance(i, bool) for i in index):
            # ints, slices, ... and None name every element once: buffered is unbuffered
            a[index] = fn(a[index]) if b is None else fn(a[index], b)
            return None
        if name in ("add", "subtract"):
            values = b if name == "add" else (-b if type(b) in _SCALARS else _ew.negative(b))
            _ix.index_put(a, index, values, accumulate=True, inplace=True)
            return None
        _at_in_rounds(fn, a, index, b)
        return None

    at.__doc__ = f"""``a[indices] = {name}(a[indices]{", b" if nin == 2 else ""})`` unbuffered and
        in place, as ``numpy.{name}.at``: an index named twice is operated on twice. Returns
        None.

        Examples
        --------
        >>> import strided
        >>> a = strided.zeros(4, dtype="int64")
        >>> strided.add.at(a, [0, 0, 2], 1)
        >>> a
        tensor([2, 0, 1, 0])
        """
    return at


def _at_in_rounds(fn, a, index, b):
    """``at`` for any op: round r applies the op to the r-th occurrence of every position (see
    Note [Ufunc methods on plain functions])."""
    # Where each selected element sits in ``a`` (row-major element numbers), found by indexing a
    # tensor of numbers with the caller's index: every NumPy index form means what it means.
    picked = _vops.reshape(_cr.arange(a.numel()), a.shape)[index]
    values = b
    if b is not None and type(b) not in _SCALARS:
        values = _vops.reshape(_vops.broadcast_to(b, picked.shape), (-1,))
    # Host-side bookkeeping of the int64 positions: the occurrence number of each entry.
    where = np.asarray(picked).reshape(-1)
    order = np.argsort(where, kind="stable")
    in_order = where[order]
    starts = np.flatnonzero(np.r_[True, in_order[1:] != in_order[:-1]])
    lengths = np.diff(np.r_[starts, in_order.size])
    occurrence = np.empty(in_order.size, dtype=np.int64)
    occurrence[order] = np.arange(in_order.size) - np.repeat(starts, lengths)
    target = a if a.ndim else _vops.reshape(a, (1,))  # a view: a 0-d tensor has one cell
    for r in range(int(lengths.max(initial=0))):
        entries = np.flatnonzero(occurrence == r)
        cells = tuple(
            _cr.asarray(i, device=a.device) for i in np.unravel_index(where[entries], target.shape)
        )
        if values is None:
            target[cells] = fn(target[cells])
        elif type(values) in _SCALARS:
            target[cells] = fn(target[cells], values)
        else:
            target[cells] = fn(target[cells], values[_cr.asarray(entries, device=values.device)])


# -- the table, and the attributes set from it -----------------------------------------------------

UFUNCS, _HOLDERS = _build_table()

for _ufunc, _fn in _HOLDERS:
    _fn.nin, _fn.nout, _fn.nargs = _ufunc.nin, _ufunc.nout, _ufunc.nargs
    _fn.identity, _fn.signature = _ufunc.identity, _ufunc.signature
    if _ufunc.signature is None and _ufunc.nout == 1:  # elementwise, one result
        _fn.at = _make_at(_ufunc, _fn)
        if _ufunc.nin == 2:
            _fn.outer = _make_outer(_ufunc, _fn)
            if _ufunc.__name__ not in _COMPARISONS:
                _fn.reduce = _make_reduce(_ufunc, _fn)
                _fn.accumulate = _make_accumulate(_ufunc, _fn)
    for _method in ("at", "outer", "reduce", "accumulate"):
        if hasattr(_fn, _method):
            getattr(_fn, _method).__qualname__ = f"{_fn.__name__}.{_method}"
del _ufunc, _fn, _method

# The methods' examples are doctested once, through add's (every op's methods share them).
__test__ = {f"add.{m}": getattr(_ew.add, m) for m in ("reduce", "accumulate", "outer", "at")}
