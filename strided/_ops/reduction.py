"""Reductions: the public functions (Array API 2024.12 names; PyTorch's ``dim``/``keepdim``
spellings accepted too), each thin: normalise the dims, pick the accumulation dtype, then the
kernel in ``_cpu/reduce.pyx.tp`` does the work (see Note [Reductions] there).

Dtypes follow NumPy and the Array API: ``sum`` and ``prod`` of bools and signed integers give
int64, of unsigned integers uint64, of floats and complex the same dtype (``dtype=`` overrides);
``mean`` of integers gives float64; ``max``/``min`` keep the dtype; ``argmax``/``argmin`` give
int64; ``any``/``all`` give bool. An empty ``max``, ``min``, ``argmax`` or ``argmin`` raises (no
identity), as in NumPy; an empty ``sum`` is 0, ``prod`` 1, ``any`` False, ``all`` True.
"""

from __future__ import annotations

import collections
import math

from strided import _check, _core, _dispatch, _iter, _views
from strided._cpu import reduce as _reduce
from strided._dtype import (
    as_dtype,
    bfloat16,
    bool_,
    default_float_dtype,
    float16,
    float32,
    float64,
    int64,
    uint64,
)
from strided._ops import complex_order as _complex_order
from strided._ops import copying as _copying
from strided._ops import elementwise as _ew

__all__ = [
    "sum",
    "prod",
    "mean",
    "max",
    "min",
    "argmax",
    "argmin",
    "any",
    "all",
    "count_nonzero",
    "var",
    "std",
    "logsumexp",
    "softmax",
    "log_softmax",
]

_NO_IDENTITY = ("max", "min", "argmax", "argmin")


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


def _dims(name, x, axis, dim):
    """The reduced dims as a sorted tuple of non-negative ints (None: all of them)."""
    if dim is not None:
        if axis is not None:
            raise TypeError(f"{name}: pass axis= or dim=, not both")
        axis = dim
    n = x.ndim
    if axis is None:
        return tuple(range(n))
    if type(axis) is int and -n <= axis < n:  # the common x.sum(1), at once
        return (axis % n,)
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = []
    for a in axes:
        if isinstance(a, bool) or not hasattr(a, "__index__"):
            raise TypeError(f"{name}: axis must be an int or a tuple of ints, got {a!r}")
        a = _check.axis(a, n, name, zero_d=True)
        if a in out:
            raise ValueError(f"{name}: axis {a} appears twice in {axes}")
        out.append(a)
    return tuple(sorted(a for a in out if n))


def _finish(result, out, name=""):
    """Copy the result of op ``name`` into out= (checked: Note [Checking out=] in _iter.pyx),
    or return it."""
    if out is None:
        return result
    hint = " (PyTorch's keepdim is the keyword keepdim=True)" if isinstance(out, bool) else ""
    # out= may live on another device: copy_ carries the result across
    _iter.check_out(name, out, result.shape, result.dtype, None, hint)
    return _copying.copy_(out, result)


def _is_half(dtype):
    return dtype is float16 or dtype is bfloat16


def _run(name, x, dims, keepdims, acc):
    """Cast x to the accumulation dtype if needed, check emptiness, run the kernel."""
    if name in _NO_IDENTITY and 0 in x.shape:
        reduced = 1
        for d in dims:
            reduced *= x.shape[d]
        kept = (
            x.numel() // reduced
            if reduced
            else math.prod(s for d, s in enumerate(x.shape) if d not in dims)
        )
        if reduced == 0 and kept != 0:
            raise ValueError(
                f"{name}: the reduction is over zero elements and {name} has no "
                "identity; reduce a non-empty tensor or use a dim with elements"
            )
    if x.dtype.kind == "c" and name in _NO_IDENTITY:
        return _complex_order.extreme(name, x, dims, keepdims)  # Note [The extremes of ...]
    arg = name in ("argmax", "argmin")
    if x.device.is_cuda and _is_half(x.dtype) and (arg or acc is x.dtype or acc is float32):
        # the CUDA kernels read the halves and accumulate in float32: one pass, the result the
        # same as below (Note [Half reductions in one pass] in cuda/kernels/reduce.cu)
        from strided.cuda import _reduce as cuda_reduce

        if name in cuda_reduce.HALF_OPS:
            return cuda_reduce.reduce(name, x, dims, keepdims, acc)
    # float16 and bfloat16 have no CPU reduction loops: accumulate in float32 and round once
    # (Note [Half precision through float32] in _cpu/half.py); argmax/argmin read the widened
    # values
    if name in ("argmax", "argmin") and _is_half(x.dtype):
        return _run(name, _copying.cast_in_memory_order(x, float32), dims, keepdims, acc)
    if name not in ("argmax", "argmin") and _is_half(acc):
        return _copying.cast_in_memory_order(_run(name, x, dims, keepdims, float32), acc)
    if name == "sum" and acc is float32 and _is_half(x.dtype) and x.device.is_cpu:
        # summed without a widened copy (Note [Half sums widened by the leaf] in
        # _cpu/reduce.pyx.tp)
        return _reduce.reduce(name, x, dims, keepdims, acc)
    if (
        name == "sum"
        and x.dtype.itemsize == 1
        and acc.itemsize == 8
        and acc.kind in "iu"
        and x.device.is_cpu
    ):
        # bytes summed into 64 bits without a widened copy (Note [Byte sums widened as they
        # are read] in _cpu/reduce.pyx.tp)
        return _reduce.reduce(name, x, dims, keepdims, acc)
    if name not in ("argmax", "argmin") and x.dtype is not acc:
        x = _copying.cast_in_memory_order(x, acc)
    if x.device.is_cuda:
        from strided.cuda import _reduce as cuda_reduce  # loaded with the first CUDA tensor

        return cuda_reduce.reduce(name, x, dims, keepdims, acc)
    return _reduce.reduce(name, x, dims, keepdims, acc)


# Note [Whole reductions at NumPy's per-call cost]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``x.sum()`` of 100 elements is all call overhead: the kernel takes 0.1 us, and each Python
# frame on the way (the method, the public function, ``run``, ``_dims``, the dispatcher's CPU
# kernel, ``_run``) about as much again, which made it 2x NumPy's ``a.sum()``. The commonest
# call, a reduction of a whole tensor with every default, takes a shorter road (``whole``
# below, which the Tensor method calls directly): when the call's key set is exactly {CPU}
# (Note [Dispatch key sets] in _dispatch.py) and the tensor is already of the accumulation
# dtype (no cast, not a half: Note [Half precision through float32] in _cpu/half.py) and not
# empty, it goes straight to the compiled kernel with the dims of every axis, the same call
# ``_run`` would make: ``sum``, ``prod``, ``max``, ``min``, ``any``, ``all`` and the public
# functions too (``strided.max(x)``, ``strided.amax(x)``). Anything else takes the general
# road, which stays the reference.
_ALL_DIMS = tuple(tuple(range(n)) for n in range(65))


def _make(name, default_acc):
    def kernel(x, dims, keepdims, dtype):
        acc = as_dtype(dtype) if dtype is not None else default_acc(x.dtype)
        return _run(name, x, dims, keepdims, acc)

    _dispatch.register(name, "CPU", kernel)
    _dispatch.register(name, "CUDA", kernel)  # the same steps; _run picks the device's kernel
    possible, forced, tensor_keys, cpu = (
        _dispatch.possible,
        _dispatch.forced,
        _dispatch.tensor_keys,
        _dispatch.CPU,
    )
    reduce_ = _reduce.reduce

    def whole(x):
        """``op(x)`` with every default: Note [Whole reductions at NumPy's per-call cost]."""
        if isinstance(x, _core.TensorBase) and (
            possible[0] == cpu or forced[0] | tensor_keys(x) == cpu
        ):
            d = x.dtype
            if d is default_acc(d) and not _is_half(d) and x.numel() and d.kind != "c":
                return reduce_(name, x, _ALL_DIMS[x.ndim], False, d)
        return run(x, None, None, None, False, None, None, None, None)

    def run(x, axis, dtype, out, keepdims, initial, where, dim, keepdim):
        x = _tensor(x)
        if name in ("max", "min") and _is_other_tensor(axis):  # see Note [NumPy's positions]
            return (_ew.maximum if name == "max" else _ew.minimum)(x, axis, out=out)
        dims = _dims(name, x, axis, dim)
        keep = keepdims if keepdim is None else keepdim
        if initial is not None or (where is not None and where is not True):
            result = _masked(name, x, dims, keep, dtype, initial, where)
        elif _dispatch.possible[0] == _dispatch.CPU:
            result = kernel(x, dims, keep, dtype)
        else:
            result = _dispatch.call(name, x, dims, keep, dtype)
        return _finish(result, out, name)

    # NumPy's positional order for each (Note [NumPy's positions]); PyTorch's names keyword-only
    if name in ("sum", "prod"):

        def op(
            x,
            /,
            axis=None,
            dtype=None,
            out=None,
            keepdims=False,
            initial=None,
            where=None,
            *,
            dim=None,
            keepdim=None,
        ):
            if (
                axis is None
                and dtype is None
                and out is None
                and keepdims is False
                and initial is None
                and where is None
                and dim is None
                and keepdim is None
            ):
                return whole(x)
            return run(x, axis, dtype, out, keepdims, initial, where, dim, keepdim)

    elif name in ("max", "min"):

        def op(
            x,
            /,
            axis=None,
            out=None,
            keepdims=False,
            initial=None,
            where=None,
            *,
            dtype=None,
            dim=None,
            keepdim=None,
        ):
            if (
                axis is None
                and out is None
                and keepdims is False
                and initial is None
                and where is None
                and dtype is None
                and dim is None
                and keepdim is None
            ):
                return whole(x)
            if dim is not None and not isinstance(dim, (tuple, list)) and out is None:
                # PyTorch's torch.max(x, dim=1): (values, indices), as Note [Reduction
                # methods: NumPy's positions, PyTorch's keywords] in _tensor.py says
                x = _tensor(x)
                keep = bool(keepdim if keepdim is not None else keepdims)
                if (
                    not _dispatch.possible[0] & (_dispatch.CUDA | _dispatch.TRACE)
                    and not x.requires_grad
                    and dtype is None
                    and initial is None
                    and where is None
                    and not _is_half(x.dtype)
                    and x.dtype.kind != "c"
                ):
                    # both from one pass of the argmax kernel: see Note [max(dim=) in one pass]
                    dims = _dims(name, x, None, dim)
                    arg = "argmax" if name == "max" else "argmin"
                    return MaxResult(*_reduce.reduce(arg, x, dims, keep, x.dtype, True))
                where_ = argmax if name == "max" else argmin
                return MaxResult(
                    run(x, None, dtype, None, keep, initial, where, dim, None),
                    where_(x, dim=dim, keepdim=keep),
                )
            return run(x, axis, dtype, out, keepdims, initial, where, dim, keepdim)

    else:  # any, all: NumPy's have no initial

        def op(
            x,
            /,
            axis=None,
            out=None,
            keepdims=False,
            *,
            where=None,
            dtype=None,
            dim=None,
            keepdim=None,
        ):
            if (
                axis is None
                and out is None
                and keepdims is False
                and where is None
                and dtype is None
                and dim is None
                and keepdim is None
            ):
                return whole(x)
            return run(x, axis, dtype, out, keepdims, None, where, dim, keepdim)

    op.__name__ = op.__qualname__ = name
    op._whole = whole
    return op


# Note [max(dim=) in one pass]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# PyTorch's ``x.max(dim=1)`` gives (values, indices). Computed as ``max`` then ``argmax`` it
# reads x twice; the argmax kernel already holds each output's best value (its running best,
# Note [argmax in one pass] and Note [argmax over an outer dim] in _cpu/reduce.pyx.tp), so it
# writes them too: one pass (250x1000 float32 max(dim=1): ~80 -> ~50 us; PyTorch ~300). The
# values are the elements at the indices, so they equal max's (NaN where a NaN wins). While
# x requires grad the two-op road stays, since its max row records the backward.


# Note [NumPy's positions]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# The Array API makes every argument of a reduction but the array keyword-only; NumPy takes
# them by position too, in its own order (``sum(a, axis, dtype, out, keepdims, initial,
# where)``, ``max(a, axis, out, keepdims, initial, where)``), and NumPy code writes
# ``np.sum(a, 0)`` and ``np.max(a, 1)``. A positional order is a superset of keyword-only, so
# the functions take NumPy's (Note [NumPy first] in DESIGN.md), which makes ``strided.max(x,
# 1)`` NumPy's maxima along axis 1, not PyTorch's ``torch.max(x, 1)`` (values, indices). What
# NumPy would refuse keeps PyTorch's meaning: a tensor in the axis's place,
# ``strided.max(a, b)``, is PyTorch's elementwise ``torch.max(a, b)`` (NumPy takes only an
# integer there). PyTorch's ``dim=``/``keepdim=`` are keywords; they name the same axis.
#
# NumPy's ``where=`` (which elements take part) and ``initial=`` (a value every slice starts
# from) go through ``_masked``: the elements outside the mask become the reduction's identity
# (0 for sum, 1 for prod, ``initial`` for max and min, which have none, so NumPy demands
# ``initial`` with a mask there), then ``initial`` joins the result. Both are elementwise
# ops and one reduction, so they differentiate as those do.


def _is_other_tensor(axis):
    """Whether ``axis`` is a tensor NumPy would refuse as an axis (all but 0-d integers)."""
    return isinstance(axis, _core.TensorBase) and (axis.ndim or axis.dtype.kind not in "iu")


_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}
_JOIN = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


def _masked(name, x, dims, keep, dtype, initial, where):
    """The reduction ``name`` with NumPy's ``where=`` mask and ``initial=`` value (Note
    [NumPy's positions])."""
    if where is not None and where is not True:
        if name in ("max", "min") and initial is None:
            raise ValueError(
                f"{name}: a where= mask needs initial= ({name} has no identity to stand for the "
                "masked-out elements), as in NumPy"
            )
        mask = _tensor(where, like=x)
        if mask.dtype is not bool_:
            raise TypeError(f"{name}: where= must be a boolean mask, got dtype {mask.dtype.name}")
        mask = _views.broadcast_to(mask, x.shape)
        fill = _IDENTITY.get(name, initial)
        filled = _ew.where(mask, x, fill)
        x = filled if filled.dtype is x.dtype else filled.astype(x.dtype)
    op = globals()[name]
    reduced = math.prod(x.shape[d] for d in dims)
    if reduced == 0 and name in ("max", "min"):  # empty slices: initial alone
        shape = [1 if d in dims else n for d, n in enumerate(x.shape)]
        base = _copying.fill_(_core._empty(tuple(shape), x.dtype, x.device), initial)
        return base if keep else _views.squeeze(base, dims)
    result = op(x, axis=dims, keepdims=keep, dtype=dtype)
    if initial is None:
        return result
    start = _copying.fill_(_core._empty((), result.dtype, result.device), initial)
    return getattr(_ew, _JOIN[name])(result, start)


def _sum_acc(d):
    if d.kind in "bi":
        return int64
    if d.kind == "u":
        return uint64
    return d


sum = _make("sum", _sum_acc)
sum.__doc__ = """The sum over ``axis`` (all dims by default), pairwise for floats.

Examples
--------
>>> import strided
>>> x = strided.arange(6).reshape(2, 3)
>>> strided.sum(x), strided.sum(x, axis=0), x.sum(dim=1, keepdim=True).shape
(tensor(15), tensor([3, 5, 7]), (2, 1))
"""
prod = _make("prod", _sum_acc)
prod.__doc__ = "The product over ``axis`` (all dims by default)."
max = _make("max", lambda d: d)
max.__doc__ = """The largest element over ``axis`` (NaN if any is NaN); empty raises.

Examples
--------
>>> import strided
>>> strided.max(strided.asarray([[1, 5], [7, 2]]), axis=1)
tensor([5, 7])
"""
min = _make("min", lambda d: d)
min.__doc__ = "The smallest element over ``axis`` (NaN if any is NaN); empty raises."
any = _make("any", lambda d: bool_)
any.__doc__ = "Whether any element over ``axis`` is non-zero."
all = _make("all", lambda d: bool_)
all.__doc__ = "Whether every element over ``axis`` is non-zero."


def _arg(name):
    def kernel(x, dims, keepdims):
        return _run(name, x, dims, keepdims, None)

    _dispatch.register(name, "CPU", kernel)
    _dispatch.register(name, "CUDA", kernel)

    def op(x, /, axis=None, out=None, *, keepdims=False, dim=None, keepdim=None):
        x = _tensor(x)
        keep = keepdims if keepdim is None else keepdim
        a = axis if dim is None else dim
        if a is None:
            # over all elements, in row-major order. The CUDA kernels number the reduced dims'
            # elements in row-major order whatever the layout (Note [CUDA reductions]), so they
            # read x as it lies; the CPU's kernel walks the iterator's memory order, so there a
            # non-contiguous x is first copied in row-major order and flattened
            if x.device.type != "cpu" and x.ndim > 0 and not x.is_contiguous():
                flat, dims = x, tuple(range(x.ndim))
            else:
                flat = (x if x.is_contiguous() else x.contiguous()).reshape(-1)
                dims = (0,)
            result = (
                _dispatch.call(name, flat, dims, False)
                if not _dispatch.possible[0] == _dispatch.CPU
                else kernel(flat, dims, False)
            )
            if keep:
                result = result.reshape((1,) * x.ndim)
            return _finish(result, out, name)
        if isinstance(a, (tuple, list)):
            raise TypeError(f"{name}: axis must be a single int (or None), got {a!r}")
        dims = _dims(name, x, a, None)
        if _dispatch.possible[0] == _dispatch.CPU:
            result = kernel(x, dims, keep)
        else:
            result = _dispatch.call(name, x, dims, keep)
        return _finish(result, out, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"The index of the first {'largest' if name == 'argmax' else 'smallest'} "
        "element along ``axis`` (of the flattened tensor if None), as int64; the "
        "first NaN counts as the extreme, as in NumPy."
    )
    return op


argmax = _arg("argmax")
argmin = _arg("argmin")


def count_nonzero(x, /, axis=None, *, keepdims=False, dim=None, keepdim=None):
    """How many elements over ``axis`` are non-zero (int64; NaN counts as non-zero).

    Examples
    --------
    >>> import strided
    >>> strided.count_nonzero(strided.asarray([[0, 1, 2], [3, 0, 0]]), axis=1)
    tensor([2, 1])
    """
    x = _tensor(x)
    dims = _dims("count_nonzero", x, axis, dim)
    return sum(
        _ew.not_equal(x, 0) if x.dtype is not bool_ else x,
        axis=dims,
        keepdims=keepdims if keepdim is None else keepdim,
        dtype=int64,
    )


def mean(
    x, /, axis=None, dtype=None, out=None, keepdims=False, *, where=None, dim=None, keepdim=None
):
    """The arithmetic mean over ``axis`` (integers give float64, as NumPy); NumPy's ``where=``
    averages only the elements the mask keeps (Note [NumPy's positions]).

    Examples
    --------
    >>> import strided
    >>> strided.mean(strided.arange(4))
    tensor(1.5)
    >>> strided.mean(strided.asarray([[1, 2], [3, 9]]), 1, where=strided.asarray([True, False]))
    tensor([1., 3.])
    """
    x = _tensor(x)
    dims = _dims("mean", x, axis, dim)
    keep = keepdims if keepdim is None else keepdim
    acc = as_dtype(dtype) if dtype is not None else (float64 if x.dtype.kind in "biu" else x.dtype)
    if _is_half(acc):  # Note [Composite reductions of halves]
        return _finish(mean(x, dims, float32, None, keep, where=where).astype(acc), out, "mean")
    if where is not None and where is not True:
        total = sum(x, axis=dims, keepdims=keep, dtype=acc, where=where)
        mask = _views.broadcast_to(_tensor(where, like=x), x.shape)
        n = sum(mask, axis=dims, keepdims=keep, dtype=acc)  # as NumPy: 0 elements give NaN
        return _finish(_ew.divide(total, n), out, "mean")
    n = 1
    for d in dims:
        n *= x.shape[d]
    if x.dtype.itemsize == 1 and x.dtype.kind in "biu" and acc is float64 and x.device.is_cpu:
        # ``(pred == y).mean()``: the bytes' exact 64-bit sum (Note [Byte sums widened as they
        # are read]), then float64. The same value as the float64 sum: partial sums of bytes
        # stay integers below 2**53 in any order, so that sum is exact too
        total = sum(x, axis=dims, keepdims=keep).astype(float64)
    else:
        total = sum(x, axis=dims, keepdims=keep, dtype=acc)
    result = _ew.divide(total, n) if n else _ew.divide(total, float("nan"))
    if result.dtype is not acc:
        result = result.astype(acc)
    return _finish(result, out, "mean")


_mean = mean  # (var's and std's keyword ``mean=`` hides the function there)


def var(
    x,
    /,
    axis=None,
    dtype=None,
    out=None,
    ddof=None,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
    dim=None,
    keepdim=None,
    unbiased=None,
):
    """The variance over ``axis``: sum(|x - mean|^2) / (n - correction), in two passes.

    ``correction`` is the Array API's name; NumPy's ``ddof`` and PyTorch's ``unbiased=True``
    (correction 1) are accepted, and NumPy's positional order (``var(a, axis, dtype, out,
    ddof, keepdims)``, Note [NumPy's positions]), ``dtype=`` (the dtype computed in) and
    ``where=`` (only the elements the mask keeps), and NumPy 2's ``mean=`` (the mean, already
    computed with ``keepdims=True``, so that it is not computed again). The default is NumPy's
    and the Array API's,
    correction 0; a call in PyTorch's words, with ``dim=``, gets torch.var's default,
    correction 1 (Note [Reduction methods: NumPy's positions, PyTorch's keywords] in
    _tensor.py). Complex input gives a real result.

    Examples
    --------
    >>> import strided
    >>> strided.var(strided.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)
    tensor(1.66666667)
    >>> strided.var(strided.asarray([[1.0, 3.0], [2.0, 2.0]]), 1)
    tensor([1., 0.])
    """
    if ddof is not None:
        correction = ddof
    if unbiased is not None:
        correction = 1 if unbiased else 0
    if correction is None:
        correction = 0 if dim is None else 1
    x = _tensor(x)
    if dtype is None and _is_half(x.dtype):  # Note [Composite reductions of halves]
        kw = dict(axis=axis, ddof=ddof, keepdims=keepdims, where=where, correction=correction)
        kw["mean"] = mean
        result = var(x, dtype=float32, dim=dim, keepdim=keepdim, unbiased=unbiased, **kw)
        return _finish(result.astype(x.dtype), out, "var")
    if dtype is not None:
        x = x.astype(dtype)
    elif x.dtype.kind in "biu":
        x = x.astype(default_float_dtype())
    dims = _dims("var", x, axis, dim)
    keep = keepdims if keepdim is None else keepdim
    masked = where is not None and where is not True
    if masked:
        mask = _views.broadcast_to(_tensor(where, like=x), x.shape)
        n = sum(mask, axis=dims, keepdims=keep, dtype=x.dtype if x.dtype.kind == "f" else float64)
    else:
        n = math.prod(x.shape[d] for d in dims)
    if mean is None:
        mu = _mean(x, axis=dims, keepdims=True, where=where if masked else None)
    else:
        mu = _tensor(mean, like=x)
    centred = _ew.subtract(x, mu)
    sq = (
        _ew.real(_ew.multiply(centred, _ew.conj(centred)))
        if x.dtype.kind == "c"
        else _ew.square(centred)
    )
    total = sum(sq, axis=dims, keepdims=keep, where=where if masked else None)
    if masked:
        return _finish(_ew.divide(total, _ew.maximum(_ew.subtract(n, correction), 0)), out, "var")
    return _finish(_ew.divide(total, builtins_max(n - correction, 0)), out, "var")


def std(
    x,
    /,
    axis=None,
    dtype=None,
    out=None,
    ddof=None,
    keepdims=False,
    *,
    where=None,
    mean=None,
    correction=None,
    dim=None,
    keepdim=None,
    unbiased=None,
):
    """The standard deviation over ``axis``: the square root of ``var`` (same arguments).

    Examples
    --------
    >>> import strided
    >>> strided.std(strided.asarray([[1.0, 3.0], [2.0, 2.0]]), 1)
    tensor([1., 0.])
    """
    x = _tensor(x)
    half = x.dtype if dtype is None and _is_half(x.dtype) else None
    if half is not None:  # Note [Composite reductions of halves]: the root in float32 too
        kw = dict(axis=axis, ddof=ddof, keepdims=keepdims, where=where, correction=correction)
        kw["mean"] = mean
        result = std(x, dtype=float32, dim=dim, keepdim=keepdim, unbiased=unbiased, **kw)
        return _finish(result.astype(half), out, "std")
    return _finish(
        _ew.sqrt(
            var(
                x,
                axis=axis,
                dtype=dtype,
                ddof=ddof,
                keepdims=keepdims,
                where=where,
                mean=mean,
                correction=correction,
                dim=dim,
                keepdim=keepdim,
                unbiased=unbiased,
            )
        ),
        out,
    )


def logsumexp(x, /, *, axis=None, keepdims=False, dim=None, keepdim=None, out=None):
    """log(sum(exp(x))) over ``axis``, computed as m + log(sum(exp(x - m))) with m the max, so
    that it neither overflows nor underflows.

    Examples
    --------
    >>> import strided
    >>> strided.logsumexp(strided.asarray([1000.0, 1000.0]))
    tensor(1000.69314718)
    """
    x = _tensor(x)
    if x.dtype.kind in "biu":
        x = x.astype(default_float_dtype())
    dims = _dims("logsumexp", x, axis, dim)
    keep = keepdims if keepdim is None else keepdim
    if _dispatch.possible[0] == _dispatch.CPU:
        return _finish(_logsumexp_kernel(x, dims, keep), out, "logsumexp")
    return _finish(_dispatch.call("logsumexp", x, dims, keep), out, "logsumexp")


# Note [Composite kernels with their own derivative]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# logsumexp, softmax and log_softmax are made of other ops, but go through the dispatcher as ops
# of their own: autograd then records one node with a short, stable formula (derivatives.py)
# instead of the chain of their parts (softmax writes its result in place, which a recorded
# chain could not differentiate). The kernels use only public ops, so they serve every device.


def _logsumexp_kernel(x, dims, keep):
    if x.numel() == 0:
        return _ew.log(sum(_ew.exp(x), axis=dims, keepdims=keep))
    m = max(x, axis=dims, keepdims=True)
    m = _ew.where(_ew.isfinite(m), m, 0.0)  # all -inf (or inf) slices: no shift
    s = sum(_ew.exp(_ew.subtract(x, m)), axis=dims, keepdims=True)
    result = _ew.add(_ew.log(s), m)
    return result if keep or not dims else result.squeeze(dims)


def _softmax_kernel(x, dims):
    if len(dims) == 1:  # one pass per row, the same values (Note [Softmax rows in one pass])
        fused = _reduce.softmax_rows(x, dims[0], False)
        if fused is not None:
            return fused
    if x.numel() == 0:
        return x.clone()
    e = _ew.exp(_ew.subtract(x, max(x, axis=dims, keepdims=True)))
    return _ew.divide(e, sum(e, axis=dims, keepdims=True), out=e)


def _log_softmax_kernel(x, dims):
    # (x - m) - log(s), PyTorch's order, not x - (m + log(s)): x - m is exact for the large
    # entries, so the result keeps its relative precision; m + log(s) would round at m's
    # magnitude first (an ulp of 20 is 2e-6, more than a log-probability of -0.001 can lose).
    if len(dims) == 1:  # Note [Softmax rows in one pass]
        fused = _reduce.softmax_rows(x, dims[0], True)
        if fused is not None:
            return fused
    if x.numel() == 0:
        return x.clone()
    m = max(x, axis=dims, keepdims=True)
    m = _ew.where(_ew.isfinite(m), m, 0.0)  # all -inf (or inf) slices: no shift
    shifted = _ew.subtract(x, m)
    s = sum(_ew.exp(shifted), axis=dims, keepdims=True)
    return _ew.subtract(shifted, _ew.log(s), out=shifted)


# Note [Composite reductions of halves]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A reduction of float16 or bfloat16 accumulates in float32 and rounds once (_run above). The
# reductions made of other ops (mean, var, std, logsumexp, softmax, log_softmax) do the same as a
# whole: they widen the input to float32, run their float32 steps, and round the result once, as
# PyTorch's kernels do. Run in the half itself, every step would round: the mean of a constant
# slice would come back an ulp off, and its variance would not be 0.


def _through_float32(kernel):
    """``kernel(x, dims, ...)``, computed in float32 when x is a half and rounded once."""

    def run(x, dims, *args):
        if not _is_half(x.dtype):
            return kernel(x, dims, *args)
        return kernel(_copying.cast_in_memory_order(x, float32), dims, *args).astype(x.dtype)

    run.__name__ = run.__qualname__ = kernel.__name__
    return run


_logsumexp_kernel = _through_float32(_logsumexp_kernel)
_softmax_kernel = _through_float32(_softmax_kernel)
_log_softmax_kernel = _through_float32(_log_softmax_kernel)


def _fused_or(composite, log):
    """The CUDA kernel of softmax (``log``: log_softmax): one fused launch where it applies,
    else the composite (Note [Fused softmax] in strided/cuda/_softmax.py)."""

    def kernel(x, dims):
        from strided.cuda import _softmax  # loaded with the first CUDA tensor

        if _softmax.fusable(x, dims):
            return _softmax.softmax(x, dims[0], log)
        return composite(x, dims)

    return kernel


def softmax_backward(grad, result, dims, log):
    """The fused backward of softmax (``log``: log_softmax) for the derivative table, or None
    where it does not apply (several dims, another dtype): one launch on CUDA, one pass per row
    on the CPU (Note [Softmax rows in one pass] in _cpu/reduce.pyx.tp)."""
    if len(dims) != 1:
        return None
    if not grad.device.is_cuda:
        return _reduce.softmax_backward_rows(grad, result, dims[0], log)
    from strided.cuda import _softmax

    return _softmax.softmax_backward(grad, result, dims[0], log)


for _name, _kernel, _cuda_kernel in (
    ("logsumexp", _logsumexp_kernel, _logsumexp_kernel),
    ("softmax", _softmax_kernel, _fused_or(_softmax_kernel, False)),
    ("log_softmax", _log_softmax_kernel, _fused_or(_log_softmax_kernel, True)),
):
    _dispatch.register(_name, "CPU", _kernel)
    _dispatch.register(_name, "CUDA", _cuda_kernel)


def softmax(x, /, dim, *, dtype=None):
    """exp(x) / sum(exp(x)) along ``dim``, shifted by the max for stability (PyTorch's
    ``softmax(x, dim)``).

    Examples
    --------
    >>> import strided
    >>> strided.softmax(strided.asarray([0.0, 0.0]), dim=0)
    tensor([0.5, 0.5])
    """
    x = _tensor(x)
    if dtype is not None:
        x = x.astype(dtype)
    elif x.dtype.kind in "biu":
        x = x.astype(default_float_dtype())
    dims = _dims("softmax", x, dim, None)
    if _dispatch.possible[0] == _dispatch.CPU:
        return _softmax_kernel(x, dims)
    return _dispatch.call("softmax", x, dims)


def log_softmax(x, /, dim, *, dtype=None):
    """log(softmax(x)) along ``dim``, as x - logsumexp(x) (no log of a tiny number)."""
    x = _tensor(x)
    if dtype is not None:
        x = x.astype(dtype)
    elif x.dtype.kind in "biu":
        x = x.astype(default_float_dtype())
    dims = _dims("log_softmax", x, dim, None)
    if _dispatch.possible[0] == _dispatch.CPU:
        return _log_softmax_kernel(x, dims)
    return _dispatch.call("log_softmax", x, dims)


def builtins_max(a, b):
    return a if a >= b else b


MaxResult = collections.namedtuple("MaxResult", ["values", "indices"])
MaxResult.__doc__ = "PyTorch's x.max(dim) result: the values and where they are."
