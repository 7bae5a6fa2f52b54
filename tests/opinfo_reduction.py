"""The reduction rows of the OpInfo table (DESIGN.md, "Testing design"): one row per public
function of ``strided._ops.reduction``, NumPy as the oracle.

The view rows live in ``opinfo.py``; these rows extend its ``OpInfo`` with what reductions need:

- ``kind``: how the op takes its dims. "reduce": ``axis`` None, an int or a tuple of ints, and
  ``keepdims`` (sum, max, var, ...); "arg": ``axis`` None or one int, and ``keepdims`` (argmax,
  argmin); "dim": exactly one dim and no keepdims (softmax, log_softmax);
- ``kwargs``: fixed keyword arguments of the row (``correction=1`` for the unbiased variance),
  passed to every call on both sides (``ref`` translates them to NumPy's names);
- ``method``: the Tensor method (``x.sum(...)``), ``supports_dim`` (PyTorch's ``dim=`` and
  ``keepdim=`` spellings), ``supports_out``, ``supports_dtype`` (``dtype=``).

``op(t, **kw)`` and ``ref(a, **kw)`` take the same keywords: ``axis``/``keepdims`` (or ``dim``
for the "dim" kind) plus the row's ``kwargs``. References that NumPy has no function for
(logsumexp, softmax, log_softmax) are written here in NumPy, in the stable form (subtract the
max first). Documented dtype rules (see ``_ops/reduction.py``): sum/prod of bools and signed
ints give int64, of unsigned ints uint64 (NumPy's own rule on 64-bit Linux); mean/var/std and
the exp-based ops of ints and bools compute in float64; ``references`` apply the same rule.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from layouts import ALL_DTYPES, make_values, to_numpy_dtype
from opinfo import OpInfo

import strided

__all__ = [
    "RED_OPS",
    "RED_OPS_BY_NAME",
    "ReductionOpInfo",
    "axis_samples",
    "dtype_samples",
    "numpy_axis",
    "reference",
    "tame",
    "positive",
]

_KIND_OF = {d: to_numpy_dtype(d).kind for d in ALL_DTYPES}


def _dtypes(kinds):
    return tuple(d for d in ALL_DTYPES if _KIND_OF[d] in kinds)


@dataclass(repr=False)
class ReductionOpInfo(OpInfo):
    kind: str = "reduce"  # "reduce" | "arg" | "dim"
    kwargs: dict = field(default_factory=dict)
    method: str | None = None
    supports_dim: bool = True
    supports_out: bool = True
    supports_dtype: bool = False
    has_identity: bool = True  # False: an empty max/argmax raises ValueError

    def __post_init__(self):
        if self.sample_inputs is OpInfo.sample_inputs:
            self.sample_inputs = lambda shape: axis_samples(shape, self.kind)


# ---------------------------------------------------------------------------------------------
# Samples: which dims, keepdims or not
# ---------------------------------------------------------------------------------------------


def axis_samples(shape, kind="reduce"):
    """The keyword dicts to call a reduction with on an input of ``shape``: no axis, each
    single dim, negative dims, tuples (out of order, mixed signs, all dims, none), each with
    keepdims False and True ("reduce" and "arg"), or each single dim ("dim")."""
    nd = len(shape)
    if kind == "dim":
        return [{"dim": d} for d in ((0, -1) if nd == 0 else (*range(nd), -1, -nd))]
    axes = [None, *range(nd), -1]
    if nd == 0:
        axes += [0]
    if nd >= 2:
        axes += [-nd]
    if kind == "reduce":
        axes += [(), tuple(range(nd))]
        if nd >= 3:
            axes += [(0, 2), (-1, 0), (1, -2)]
        if nd == 0:
            axes += [(0,), (-1,)]
    return [{"axis": a, "keepdims": k} for a in axes for k in (False, True)]


def dtype_samples(op, dtype, shape, rng):
    """(target, values) pairs to call a ``supports_dtype`` row with ``dtype=target`` on
    ``dtype`` input: a wider float, complex for complex input, and for integer sum/prod the
    input's own dtype, which wraps around as NumPy's does (full-range values; small ones for
    float targets, whose products must not overflow)."""
    targets = [strided.complex128] if dtype.kind == "c" else [strided.float64, strided.float32]
    if dtype.kind in "iu" and op.name != "mean":
        targets.append(dtype)
    for target in targets:
        if target is dtype and dtype.kind in "iu":
            yield target, make_values(shape, dtype, rng)
        else:
            yield target, tame(0.5, 1.5, ints=(-3, 3))(shape, dtype, rng)


def numpy_axis(a, axis):
    """NumPy's spelling of ``axis`` for array ``a``: strided accepts dim 0 and -1 of a 0-d
    tensor, as PyTorch does, where NumPy accepts only None."""
    if a.ndim == 0 and axis is not None:
        return () if axis == () else None
    return axis


def reference(op, a, **kw):
    """NumPy's answer for row ``op`` (RuntimeWarnings of empty means silenced)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(op.ref(a, **kw))


# ---------------------------------------------------------------------------------------------
# Value makers: (shape, dtype, rng) -> ndarray
# ---------------------------------------------------------------------------------------------


def tame(lo=-2.0, hi=2.0, *, ints=(-100, 100)):
    """Floats uniform in [lo, hi] (complex: each part), integers in ``ints`` (clipped to the
    dtype): values whose sums and products are well conditioned, so that two summation orders
    agree to a few ulps. Integer reductions are exact anyway (they wrap), so ``full`` ones use
    ``make_values``."""

    def make(shape, dtype, rng):
        dt = to_numpy_dtype(dtype)
        n = math.prod(shape)
        if dt.kind == "b":
            flat = rng.integers(0, 2, n).astype(bool)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            flat = rng.integers(max(ints[0], info.min), min(ints[1], info.max), n, endpoint=True)
            flat = flat.astype(dt)
        elif dt.kind == "f":
            flat = rng.uniform(lo, hi, n).astype(dt)
        else:
            part = np.float32 if dt == np.complex64 else np.float64
            flat = np.empty(n, dt)
            flat.real = rng.uniform(lo, hi, n).astype(part)
            flat.imag = rng.uniform(lo, hi, n).astype(part)
        return flat.reshape(shape)

    return make


def _sum_values(shape, dtype, rng):
    """Integers: the full range (sums wrap exactly); floats: positive (no cancellation)."""
    if _KIND_OF[dtype] in "biu":
        return make_values(shape, dtype, rng)
    return tame(0.5, 2.0)(shape, dtype, rng)


def _prod_values(shape, dtype, rng):
    """Integers: the full range (products wrap exactly); floats: near 1 in size, either sign."""
    if _KIND_OF[dtype] in "biu":
        return make_values(shape, dtype, rng)
    v = tame(0.7, 1.4)(shape, dtype, rng)
    sign = np.where(rng.random(shape) < 0.5, -1, 1).astype(v.dtype)
    return v * sign


positive = tame(0.5, 2.0)


# ---------------------------------------------------------------------------------------------
# References
# ---------------------------------------------------------------------------------------------


def _as_float(a):
    """Integers and bools compute in float64 (the default float dtype)."""
    return a.astype(np.float64) if a.dtype.kind in "biu" else a


def _np_reduce(fn, **fixed):
    def ref(a, axis=None, keepdims=False, **kw):
        return fn(a, axis=numpy_axis(a, axis), keepdims=keepdims, **fixed, **kw)

    return ref


def _mean_ref(a, axis=None, keepdims=False):
    return np.mean(_as_float(a), axis=numpy_axis(a, axis), keepdims=keepdims)


def _var_ref(fn):
    def ref(a, axis=None, keepdims=False, correction=0):
        return fn(_as_float(a), axis=numpy_axis(a, axis), keepdims=keepdims, ddof=correction)

    return ref


def _arg_ref(fn):
    def ref(a, axis=None, keepdims=False):
        if a.ndim == 0:
            return np.zeros((), np.int64)
        return fn(a, axis=axis, keepdims=keepdims).astype(np.int64)

    return ref


def _count_nonzero_ref(a, axis=None, keepdims=False):
    axis = numpy_axis(a, axis)
    if axis is None:
        axis = tuple(range(a.ndim))
    return np.asarray(np.count_nonzero(a, axis=axis, keepdims=keepdims), dtype=np.int64)


def logsumexp_ref(a, axis=None, keepdims=False):
    """log(sum(exp(a))) as m + log(sum(exp(a - m))), m the max (0 where it is not finite)."""
    a = _as_float(a)
    axis = numpy_axis(a, axis)
    if a.size == 0:
        return np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims))
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        out = out.reshape(np.sum(a, axis=axis).shape)
    return out.astype(a.dtype)


def softmax_ref(a, dim):
    a = _as_float(a)
    if a.size == 0:
        return a.copy()
    axis = None if a.ndim == 0 else dim
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax_ref(a, dim):
    a = _as_float(a)
    if a.size == 0:
        return a.copy()
    return a - logsumexp_ref(a, axis=None if a.ndim == 0 else dim, keepdims=True)


# ---------------------------------------------------------------------------------------------
# The rows
# ---------------------------------------------------------------------------------------------

_TOL = {
    strided.float32: (2e-5, 1e-6),
    strided.float64: (1e-12, 1e-14),
    strided.complex64: (2e-5, 1e-6),
    strided.complex128: (1e-12, 1e-14),
}
_TOL_EXP = {strided.float32: (1e-5, 1e-6), strided.float64: (1e-12, 1e-13)}

ALL = ALL_DTYPES
NO_COMPLEX = _dtypes("biuf")


RED_OPS = [
    ReductionOpInfo(
        "sum",
        strided.sum,
        _np_reduce(np.sum),
        ALL,
        method="sum",
        supports_dtype=True,
        values=_sum_values,
        tolerances=_TOL,
    ),
    ReductionOpInfo(
        "prod",
        strided.prod,
        _np_reduce(np.prod),
        ALL,
        method="prod",
        supports_dtype=True,
        values=_prod_values,
        tolerances=_TOL,
    ),
    ReductionOpInfo(
        "mean",
        strided.mean,
        _mean_ref,
        ALL,
        method="mean",
        supports_dtype=True,
        values=tame(),
        tolerances=_TOL,
    ),
    ReductionOpInfo(
        "var", strided.var, _var_ref(np.var), ALL, method="var", values=tame(), tolerances=_TOL
    ),
    ReductionOpInfo(
        "var_correction1",
        strided.var,
        _var_ref(np.var),
        ALL,
        kwargs={"correction": 1},
        method="var",
        values=tame(),
        tolerances=_TOL,
    ),
    ReductionOpInfo(
        "std", strided.std, _var_ref(np.std), ALL, method="std", values=tame(), tolerances=_TOL
    ),
    ReductionOpInfo(
        "std_correction1",
        strided.std,
        _var_ref(np.std),
        ALL,
        kwargs={"correction": 1},
        method="std",
        values=tame(),
        tolerances=_TOL,
    ),
    ReductionOpInfo("max", strided.max, _np_reduce(np.max), ALL, method="max", has_identity=False),
    ReductionOpInfo("min", strided.min, _np_reduce(np.min), ALL, method="min", has_identity=False),
    ReductionOpInfo(
        "argmax",
        strided.argmax,
        _arg_ref(np.argmax),
        ALL,  # complex: NumPy's order (Note [The extremes of complex numbers])
        kind="arg",
        method="argmax",
        has_identity=False,
    ),
    ReductionOpInfo(
        "argmin",
        strided.argmin,
        _arg_ref(np.argmin),
        ALL,  # complex: NumPy's order (Note [The extremes of complex numbers])
        kind="arg",
        method="argmin",
        has_identity=False,
    ),
    ReductionOpInfo("any", strided.any, _np_reduce(np.any), ALL, method="any"),
    ReductionOpInfo("all", strided.all, _np_reduce(np.all), ALL, method="all"),
    ReductionOpInfo(
        "count_nonzero",
        strided.count_nonzero,
        _count_nonzero_ref,
        ALL,
        method="count_nonzero",
        supports_out=False,
    ),
    ReductionOpInfo(
        "logsumexp",
        strided.logsumexp,
        logsumexp_ref,
        NO_COMPLEX,
        method="logsumexp",
        values=tame(-30.0, 30.0),
        tolerances=_TOL_EXP,
    ),
    ReductionOpInfo(
        "softmax",
        strided.softmax,
        softmax_ref,
        NO_COMPLEX,
        kind="dim",
        method="softmax",
        supports_out=False,
        values=tame(-30.0, 30.0),
        tolerances=_TOL_EXP,
    ),
    ReductionOpInfo(
        "log_softmax",
        strided.log_softmax,
        log_softmax_ref,
        NO_COMPLEX,
        kind="dim",
        method="log_softmax",
        supports_out=False,
        values=tame(-30.0, 30.0),
        tolerances=_TOL_EXP,
    ),
]

RED_OPS_BY_NAME = {o.name: o for o in RED_OPS}

# The rows autograd differentiates: tests/test_autograd_ops.py gradchecks them.
_AUTOGRAD = {
    "sum", "prod", "mean", "var", "var_correction1", "std", "std_correction1", "max", "min",
    "logsumexp", "softmax", "log_softmax",
}  # fmt: skip
for _row in RED_OPS:
    _row.supports_autograd = _row.name in _AUTOGRAD
