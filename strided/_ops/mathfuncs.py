"""NumPy's math functions that the Array API's elementwise set lacks (``fmax``, ``fmod``,
``nan_to_num``, ``sinc``, ``isclose``, ...), each composed of the elementwise ops in
``_ops/elementwise.py`` and the reductions, as PyTorch's CompositeImplicitAutograd ops are: no
kernel of their own, so they run on every device and autograd differentiates them through
their parts. Also NumPy's names for ops strided has under Array API names (``absolute``,
``power``, ``mod``, ``amax``, ``amin``).

Two remainders: ``remainder`` (NumPy's ``%``, Python's ``%``) takes the sign of the *divisor*,
so ``remainder(-7, 3)`` is 2 and ``x1 == floor_divide(x1, x2) * x2 + remainder(x1, x2)``;
``fmod`` (C's ``fmod``) takes the sign of the *dividend*, so ``fmod(-7, 3)`` is -1, pairing
with division truncated toward zero. For positive operands they agree, which is how ``fmod``
is built here: see Note [fmod from remainder].
"""

from __future__ import annotations

import builtins
import math

from strided import _check, _core
from strided._dtype import bool_, finfo, float_for_integers, int64, result_type
from strided._iter import float_result_dtype
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.copying import copy_
from strided._ops.creation import asarray, full

__all__ = [
    "absolute",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "bitwise_not",
    "conjugate",
    "invert",
    "left_shift",
    "right_shift",
    "true_divide",
    "allclose",
    "amax",
    "amin",
    "angle",
    "around",
    "array_equal",
    "array_equiv",
    "deg2rad",
    "degrees",
    "divmod",
    "float_power",
    "fmax",
    "fmin",
    "fmod",
    "heaviside",
    "isclose",
    "mod",
    "nan_to_num",
    "power",
    "rad2deg",
    "radians",
    "sinc",
]

_SCALARS = (bool, int, float, complex)


def _args(x1, x2):
    """Tensors and Python scalars pass through (scalars stay weak, NEP 50); anything else
    becomes a tensor on the other argument's device. Two scalars: the first becomes a tensor."""
    t = next((x for x in (x1, x2) if isinstance(x, _core.TensorBase)), None)

    def conv(x):
        if isinstance(x, _core.TensorBase) or type(x) in _SCALARS:
            return x
        return asarray(x) if t is None else asarray(x, device=t.device)

    x1, x2 = conv(x1), conv(x2)
    if not isinstance(x1, _core.TensorBase) and not isinstance(x2, _core.TensorBase):
        x1 = asarray(x1)
    return x1, x2


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


def _is_tensor(x):
    return isinstance(x, _core.TensorBase)


def _finish(result, out):
    return result if out is None else copy_(out, result)


def _cast(x, dtype):
    return x if not _is_tensor(x) or x.dtype is dtype else _vops.astype(x, dtype)


# ---------------------------------------------------------------------------------------------
# fmax, fmin
# ---------------------------------------------------------------------------------------------


def _nan_ignoring(op, x1, x2, out):
    x1, x2 = _args(x1, x2)
    m = op(x1, x2)
    if m.dtype.kind not in "fc":
        return _finish(m, out)
    # Where one side is NaN take the other (NaN only when both are); where and the extremum
    # carry the gradient to the side that was picked.
    # (x1 last: where both are NaN, NumPy's fmax and fmin give x1)
    for this, other in ((x1, x2), (x2, x1)):
        if _is_tensor(this):
            m = _ew.where(_ew.isnan(this), other, m)
        elif this != this:  # a NaN scalar: the other side, NaN where it is NaN too
            m = _ew.where(False, this, _cast(other, m.dtype))
    return _finish(m, out)


def fmax(x1, x2, /, *, out=None):
    """The larger of ``x1`` and ``x2``, ignoring NaN: NaN only where both are NaN (``maximum``
    propagates NaN instead). Complex numbers in NumPy's order, as ``maximum``.

    Examples
    --------
    >>> import strided
    >>> nan = float("nan")
    >>> strided.fmax(strided.asarray([1.0, nan, nan]), strided.asarray([2.0, 3.0, nan]))
    tensor([ 2.,  3., nan])
    """
    return _nan_ignoring(_ew.maximum, x1, x2, out)


def fmin(x1, x2, /, *, out=None):
    """The smaller of ``x1`` and ``x2``, ignoring NaN: NaN only where both are NaN (``minimum``
    propagates NaN instead). Complex numbers in NumPy's order, as ``minimum``.

    Examples
    --------
    >>> import strided
    >>> nan = float("nan")
    >>> strided.fmin(strided.asarray([1.0, nan, nan]), strided.asarray([2.0, 3.0, nan]))
    tensor([ 1.,  3., nan])
    """
    return _nan_ignoring(_ew.minimum, x1, x2, out)


# ---------------------------------------------------------------------------------------------
# fmod, divmod
# ---------------------------------------------------------------------------------------------

# Note [fmod from remainder]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# For floats, fmod(a, b) = copysign(remainder(|a|, |b|), a): with both operands non-negative the
# two remainders are the same number, and fmod's sign is the dividend's (-0.0 included). This is
# exact, where the obvious a - trunc(a / b) * b rounds, and where the other repair, remainder
# minus b where the signs differ, loses a tiny fmod added to a large b (fmod(1e-20, -1) would
# come out 0). NaN and inf follow C's fmod: fmod(inf, b) and fmod(a, 0) are NaN, fmod(a, inf) is
# a. For integers, |INT_MIN| overflows, so the remainder is repaired instead: where it is non-zero
# and its sign differs from the dividend's, subtract the divisor (exact in integers, and in
# range since the result is). Division by zero gives 0 with a warning, as NumPy's.


def _no_bools(x1, x2):
    """NumPy's integer division ops read two bools as int8."""
    b1 = _is_tensor(x1) and x1.dtype.kind == "b" or type(x1) is bool
    b2 = _is_tensor(x2) and x2.dtype.kind == "b" or type(x2) is bool
    if b1 and b2:
        from strided import int8

        x1 = _cast(x1, int8) if _is_tensor(x1) else int(x1)
        x2 = _cast(x2, int8) if _is_tensor(x2) else int(x2)
        if not _is_tensor(x1) and not _is_tensor(x2):
            x1 = asarray(x1, dtype=int8)
    return x1, x2


def fmod(x1, x2, /, *, out=None):
    """The remainder of ``x1 / x2`` with the sign of the dividend ``x1``, as C's ``fmod``
    (``remainder`` takes the divisor's sign; see the module docstring and Note [fmod from
    remainder]).

    Examples
    --------
    >>> import strided
    >>> strided.fmod(strided.asarray([-7, 7]), 3)
    tensor([-1,  1])
    >>> strided.remainder(strided.asarray([-7, 7]), 3)
    tensor([2, 1])
    >>> strided.fmod(strided.asarray([-7.5, 7.5]), -2.0)
    tensor([-1.5,  1.5])
    """
    x1, x2 = _no_bools(*_args(x1, x2))
    dt = result_type(x1, x2)
    if dt.kind == "f":
        x1, x2 = _cast(x1, dt), _cast(x2, dt)  # before abs: |INT_MIN| overflows in its dtype
        a1 = _ew.abs(x1) if _is_tensor(x1) else builtins.abs(x1)
        a2 = _ew.abs(x2) if _is_tensor(x2) else builtins.abs(x2)
        r = _ew.remainder(a1, a2)
        return _ew.copysign(r, x1, out=out)
    r = _ew.remainder(x1, x2)
    if dt.kind == "u":
        return _finish(r, out)
    x1_neg = _ew.less(x1, 0) if _is_tensor(x1) else x1 < 0
    wrong_sign = _ew.logical_and(_ew.not_equal(r, 0), _ew.not_equal(_ew.less(r, 0), x1_neg))
    return _ew.where(wrong_sign, _ew.subtract(r, x2), r, out=out)


def divmod(x1, x2, /, *, out=(None, None)):
    """``(floor_divide(x1, x2), remainder(x1, x2))``, as NumPy's ``divmod`` (Python's for
    arrays): ``x1 == q * x2 + r`` with ``r`` of the divisor's sign. ``out``: a pair.

    Examples
    --------
    >>> import strided
    >>> strided.divmod(strided.asarray([7, -7]), 2)
    (tensor([ 3, -4]), tensor([1, 1]))
    """
    x1, x2 = _no_bools(*_args(x1, x2))
    if out is None:
        out = (None, None)
    if len(out) != 2:
        raise ValueError(f"divmod: out must be a pair (quotient, remainder), got {out!r}")
    return _ew.floor_divide(x1, x2, out=out[0]), _ew.remainder(x1, x2, out=out[1])


# ---------------------------------------------------------------------------------------------
# nan_to_num, heaviside, sinc, float_power, angle, degrees and radians
# ---------------------------------------------------------------------------------------------


def _replace_nonfinite(x, nan, posinf, neginf):
    big = finfo(x.dtype).max
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    r = _ew.where(_ew.isnan(x), nan, x)
    r = _ew.where(_ew.equal(x, math.inf), posinf, r)
    return _ew.where(_ew.equal(x, -math.inf), neginf, r)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by
    default the dtype's largest and most negative finite values), as ``numpy.nan_to_num``.
    Complex: the real and imaginary parts separately. Integers and bools are returned as they
    are (copied when ``copy``). With ``copy=False`` a tensor is changed in place and returned.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([float("nan"), float("inf"), -float("inf"), 1.5])
    >>> strided.nan_to_num(x, posinf=9.0, neginf=-9.0)
    tensor([ 0. ,  9. , -9. ,  1.5])
    >>> strided.nan_to_num(x)[2].item() == -strided.finfo(strided.float64).max
    True
    """
    given = _is_tensor(x)
    x = _tensor(x)
    if x.dtype.kind not in "fc":
        return _vops.clone(x) if copy and given else x
    in_place = given and not copy
    if x.dtype.kind != "c":
        result = _replace_nonfinite(x, nan, posinf, neginf)
        if not in_place:
            return result
        x[...] = result
        return x
    # complex: each part of a copy (or of x) is replaced through its real-dtype view
    target = x if in_place else _vops.clone(x)
    for part in (target.real, target.imag):
        part[...] = _replace_nonfinite(part, nan, posinf, neginf)
    return target


# Integers given to the float-only functions here (heaviside, deg2rad, rad2deg, angle) compute
# in the smallest float that holds them, as NumPy's ufuncs do: Note [Float results of integer
# input] in _dtype.pyx, the one place the rule is written. Functions NumPy writes with Python
# floats (sinc) follow NEP 50 instead: integers give float64.
_float_for = float_for_integers


def _float_dtype(*xs):
    """The dtype a float function of ``xs`` computes in: the elementwise kernels' rule, decided
    per input (int8 with uint8 is float16; see Note [Float results of integer input] in
    _dtype.pyx)."""
    return float_result_dtype(*xs)


def _real_float_pair(name, x1, x2):
    """``x1`` and ``x2`` as tensors of the float dtype a real float function of the two
    computes in (``_float_dtype``); complex input raises, as NumPy's real-only loops do."""
    x1, x2 = _args(x1, x2)
    dt = _float_dtype(x1, x2)
    if dt.kind == "c":
        raise TypeError(f"{name}: complex input is not supported (got {dt}); use real parts")
    device = (x1 if _is_tensor(x1) else x2).device
    x1 = _cast(x1, dt) if _is_tensor(x1) else asarray(x1, dtype=dt, device=device)
    x2 = _cast(x2, dt) if _is_tensor(x2) else asarray(x2, dtype=dt, device=device)
    return x1, x2


def heaviside(x1, x2, /, *, out=None):
    """The Heaviside step function: 0 where ``x1 < 0``, 1 where ``x1 > 0``, ``x2`` where
    ``x1 == 0`` and NaN where ``x1`` is NaN. Real floating result (for integers see Note
    [Float results of integer input]).

    Examples
    --------
    >>> import strided
    >>> strided.heaviside(strided.asarray([-1.5, 0.0, 2.0]), 0.5)
    tensor([0. , 0.5, 1. ])
    """
    x1, h = _real_float_pair("heaviside", x1, x2)
    r = _ew.where(_ew.greater(x1, 0), 1.0, h)
    r = _ew.where(_ew.less(x1, 0), 0.0, r)
    return _ew.where(_ew.isnan(x1), x1, r, out=out)


def sinc(x, /):
    """The normalized sinc function ``sin(pi x) / (pi x)``, with ``sinc(0) = 1``, as
    ``numpy.sinc`` (which computes it with 1e-20 in place of 0, as here; differentiable).

    Examples
    --------
    >>> import strided
    >>> strided.sinc(strided.asarray([0.0, 0.5, 1.0]))
    tensor([1.00000000e+00, 6.36619772e-01, 3.89817183e-17])
    """
    x = _tensor(x)
    y = _ew.multiply(_ew.where(_ew.equal(x, 0), 1.0e-20, x), math.pi)
    return _ew.divide(_ew.sin(y), y)


def float_power(x1, x2, /, *, out=None):
    """``x1 ** x2`` computed in float64 (complex128 for complex input) whatever the input
    dtypes, as ``numpy.float_power``: integer powers of integers do not wrap, and negative
    powers work.

    Examples
    --------
    >>> import strided
    >>> strided.float_power(strided.asarray([2, 3]), -1)
    tensor([0.5       , 0.33333333])
    """
    from strided import complex128, float64

    x1, x2 = _args(x1, x2)
    dt = complex128 if result_type(x1, x2).kind == "c" else float64
    x1 = _cast(x1, dt) if _is_tensor(x1) else x1
    x2 = _cast(x2, dt) if _is_tensor(x2) else x2
    if not _is_tensor(x1) and not _is_tensor(x2):
        x1 = asarray(x1, dtype=dt)
    elif not _is_tensor(x1):
        x1 = asarray(x1, dtype=dt, device=x2.device)
    return _ew.pow(x1, x2, out=out)


def angle(z, deg=False):
    """The counterclockwise angle of ``z`` from the positive real axis, ``atan2(imag, real)``,
    in radians (degrees with ``deg``); real input gives 0 or pi. Real floating result.

    Examples
    --------
    >>> import strided
    >>> strided.angle(strided.asarray([1.0, 1j, -1.0]), deg=True)
    tensor([  0.,  90., 180.])
    """
    z = _tensor(z)
    if z.dtype.kind == "c":
        a = _ew.atan2(_ew.imag(z), _ew.real(z))
    else:
        # NumPy's angle is arctan2(0, z): the Python 0 with bools promotes to int64 (NEP 50),
        # so bools give float64, while int8 gives float16
        a = _ew.atan2(0, _cast(z, _float_for(int64 if z.dtype == bool_ else z.dtype)))
    return _ew.multiply(a, 180 / math.pi) if deg else a


def _real_angle(name, x):
    x = _tensor(x)
    if x.dtype.kind == "c":
        raise TypeError(f"{name}: complex input is not supported (got {x.dtype}); use a real dtype")
    return _cast(x, _float_for(x.dtype))


def deg2rad(x, /, *, out=None):
    """Degrees to radians, ``x * (pi / 180)`` (integers: Note [Float results of integer input]).

    Examples
    --------
    >>> import strided
    >>> strided.deg2rad(strided.asarray([180, 90]))
    tensor([3.14159265, 1.57079633])
    """
    return _ew.multiply(_real_angle("deg2rad", x), math.pi / 180, out=out)


def rad2deg(x, /, *, out=None):
    """Radians to degrees, ``x * (180 / pi)`` (integers: Note [Float results of integer input]).

    Examples
    --------
    >>> import strided
    >>> strided.rad2deg(strided.asarray([strided.pi, -strided.pi / 2]))
    tensor([180., -90.])
    """
    return _ew.multiply(_real_angle("rad2deg", x), 180 / math.pi, out=out)


def radians(x, /, *, out=None):
    """Degrees to radians: the same as ``deg2rad``.

    Examples
    --------
    >>> import strided
    >>> strided.radians(strided.asarray([360.0]))
    tensor([6.28318531])
    """
    return _ew.multiply(_real_angle("radians", x), math.pi / 180, out=out)


def degrees(x, /, *, out=None):
    """Radians to degrees: the same as ``rad2deg``.

    Examples
    --------
    >>> import strided
    >>> strided.degrees(strided.asarray([strided.pi]))
    tensor([180.])
    """
    return _ew.multiply(_real_angle("degrees", x), 180 / math.pi, out=out)


# ---------------------------------------------------------------------------------------------
# NumPy's names for strided's ops
# ---------------------------------------------------------------------------------------------


def absolute(x, /, *, out=None):
    """NumPy's name for ``abs``: ``|x|`` (complex input gives its real magnitude).

    Examples
    --------
    >>> import strided
    >>> strided.absolute(strided.asarray([-1.5, 2.0]))
    tensor([1.5, 2. ])
    """
    return _ew.abs(x, out=out)


def power(x1, x2, /, *, out=None):
    """NumPy's name for ``pow``: ``x1 ** x2`` (integers to negative powers raise).

    Examples
    --------
    >>> import strided
    >>> strided.power(strided.asarray([2, 3]), 2)
    tensor([4, 9])
    """
    return _ew.pow(x1, x2, out=out)


def mod(x1, x2, /, *, out=None):
    """NumPy's name for ``remainder``: the remainder with the divisor's sign (Python's ``%``;
    see ``fmod`` for C's).

    Examples
    --------
    >>> import strided
    >>> strided.mod(strided.asarray([-7, 7]), 3)
    tensor([2, 1])
    """
    return _ew.remainder(x1, x2, out=out)


# Note [NumPy's spellings are the same functions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Where NumPy's name means exactly what the Array API name means (``np.arccos is np.acos`` in
# NumPy 2), strided binds the NumPy name to the *same function object*, not a wrapper: one
# function, one docstring, one set of ufunc attributes (strided/_ops/ufuncs.py finds both
# names in this module's ``__all__``), and no extra Python call in front of the kernel.
# (``absolute``, ``power`` and ``mod`` above predate this and are kept as thin wrappers.)
arccos = _ew.acos
arccosh = _ew.acosh
arcsin = _ew.asin
arcsinh = _ew.asinh
arctan = _ew.atan
arctan2 = _ew.atan2
arctanh = _ew.atanh
bitwise_not = _ew.bitwise_invert
invert = _ew.bitwise_invert
left_shift = _ew.bitwise_left_shift
right_shift = _ew.bitwise_right_shift
conjugate = _ew.conj
true_divide = _ew.divide


def _extreme(name, reduce, combine, a, axis, out, keepdims, initial):
    a = _tensor(a)
    if initial is None:
        return reduce(a, axis=axis, keepdims=keepdims, out=out)
    axes = range(a.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    axes = {d % a.ndim for d in axes} if a.ndim else set()
    if a.numel() == 0:
        shape = tuple(
            1 if d in axes else n for d, n in enumerate(a.shape) if keepdims or d not in axes
        )
        if math.prod(shape) == 0 or any(a.shape[d] == 0 for d in axes):
            return _finish(full(shape, initial, dtype=a.dtype, device=a.device), out)
    return combine(reduce(a, axis=axis, keepdims=keepdims), initial, out=out)


def amax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's name for ``max``: the largest element over ``axis`` (all by default; NaN if any
    is NaN). ``initial`` is a lower bound, and the result where the reduction is empty
    (without it, an empty reduction raises). ``where=`` keeps only the elements it marks (with
    ``initial``, as in NumPy).

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([[1, 5], [7, 2]])
    >>> strided.amax(x), strided.amax(x, axis=0), strided.amax(x, initial=9)
    (tensor(7), tensor([7, 5]), tensor(9))
    """
    if axis is None and out is None and keepdims is False and initial is None and where is None:
        return _red.max._whole(a)  # Note [Whole reductions at NumPy's per-call cost]
    if where is not None:  # NumPy's mask (it needs initial=): max's own
        return _red.max(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
    return _extreme("amax", _red.max, _ew.maximum, a, axis, out, keepdims, initial)


def amin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """NumPy's name for ``min``: the smallest element over ``axis`` (all by default; NaN if
    any is NaN). ``initial`` is an upper bound, and the result where the reduction is empty.

    Examples
    --------
    >>> import strided
    >>> strided.amin(strided.asarray([[1, 5], [7, 2]]), axis=1, keepdims=True)
    tensor([[1],
            [2]])
    """
    if axis is None and out is None and keepdims is False and initial is None and where is None:
        return _red.min._whole(a)  # Note [Whole reductions at NumPy's per-call cost]
    if where is not None:  # NumPy's mask (it needs initial=): max's own
        return _red.min(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
    return _extreme("amin", _red.min, _ew.minimum, a, axis, out, keepdims, initial)


def around(a, decimals=0, out=None):
    """``a`` rounded to ``decimals`` decimal places, halves to even, as ``numpy.around``
    (``numpy.round``): ``round(a * 10**decimals) / 10**decimals`` (a negative ``decimals``
    rounds to tens, hundreds, ...). Like NumPy's, the scaling can make results differ from the
    decimal rounding by one unit in the last place. Integers are returned unchanged for
    ``decimals >= 0``; otherwise they are rounded through float64. Complex: both parts.

    Examples
    --------
    >>> import strided
    >>> strided.around(strided.asarray([1.234, 2.5, -0.5]), 1)
    tensor([ 1.2,  2.5, -0.5])
    >>> strided.around(strided.asarray([15, 25, 1234]), -1)
    tensor([  20,   20, 1230])
    """
    a = _tensor(a)
    decimals = int(decimals)
    if a.dtype.kind in "biu":
        if decimals >= 0:
            return _finish(_vops.clone(a), out)
        from strided import float64

        f = 10.0**-decimals
        r = _ew.multiply(_ew.round(_ew.divide(_cast(a, float64), f)), f)
        return _finish(_cast(r, a.dtype), out)
    if decimals == 0:
        return _ew.round(a, out=out)
    if decimals > 0:
        f = 10.0**decimals
        return _ew.divide(_ew.round(_ew.multiply(a, f)), f, out=out)
    f = 10.0**-decimals
    return _ew.multiply(_ew.round(_ew.divide(a, f)), f, out=out)


# ---------------------------------------------------------------------------------------------
# isclose, allclose, array_equal, array_equiv
# ---------------------------------------------------------------------------------------------

# Note [Comparisons that read back]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# isclose returns a bool tensor on the inputs' device and never waits for it. allclose,
# array_equal and array_equiv answer with a Python bool, as NumPy's do, so on a CUDA device
# they read one value back (the host waits for the device once, at the end).


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``a`` and ``b`` are equal within a tolerance, elementwise, as
    ``numpy.isclose``: ``|a - b| <= atol + rtol * |b|`` (not symmetric: ``b`` is the
    reference), infinities equal when of the same sign, NaN equal to NaN with ``equal_nan``.
    A bool tensor (see Note [Comparisons that read back]).

    Examples
    --------
    >>> import strided
    >>> strided.isclose(strided.asarray([1e10, 1e-8, float("nan")]), [1.00001e10, 1e-9, 0.0])
    tensor([ True,  True, False])
    """
    x, y = _args(a, b)
    if _is_tensor(y):
        y = _cast(y, result_type(y, 1.0))
    elif type(y) in (bool, int):
        y = float(y)
    if _is_tensor(y):
        tol = _ew.add(_ew.multiply(_ew.abs(y), rtol), atol)
        finite = _ew.isfinite(y)
    else:
        tol = atol + rtol * builtins.abs(y)
        finite = math.isfinite(y.real) and math.isfinite(y.imag)
    close = _ew.less_equal(_ew.abs(_ew.subtract(x, y)), tol)
    result = _ew.logical_or(_ew.logical_and(close, finite), _ew.equal(x, y))
    if equal_nan:
        ny = _ew.isnan(y) if _is_tensor(y) else y != y
        nx = _ew.isnan(x) if _is_tensor(x) else x != x
        result = _ew.logical_or(result, _ew.logical_and(nx, ny))
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is close to ``b`` (``all(isclose(...))``), as a Python
    bool (see Note [Comparisons that read back]).

    Examples
    --------
    >>> import strided
    >>> strided.allclose(strided.asarray([1.0, 2.0]), [1.0, 2.0 + 1e-9])
    True
    >>> strided.allclose(strided.asarray([float("nan")]), [float("nan")], equal_nan=True)
    True
    """
    return bool(_red.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def _pair_or_none(a1, a2):
    try:
        t = next((x for x in (a1, a2) if _is_tensor(x)), None)
        dev = None if t is None else t.device
        a1 = a1 if _is_tensor(a1) else asarray(a1, device=dev)
        a2 = a2 if _is_tensor(a2) else asarray(a2, device=dev)
    except Exception:  # NumPy answers False for inputs it cannot make arrays of
        return None
    return a1, a2


def array_equal(a1, a2, equal_nan=False):
    """Whether ``a1`` and ``a2`` have the same shape and elements, as a Python bool (see Note
    [Comparisons that read back]). With ``equal_nan``, NaNs in the same places are equal.

    Examples
    --------
    >>> import strided
    >>> strided.array_equal(strided.asarray([1, 2]), [1, 2])
    True
    >>> strided.array_equal(strided.asarray([1, 2]), [[1, 2]])
    False
    """
    pair = _pair_or_none(a1, a2)
    if pair is None:
        return False
    a1, a2 = pair
    if a1.shape != a2.shape:
        return False
    eq = _ew.equal(a1, a2)
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        eq = _ew.logical_or(eq, _ew.logical_and(_ew.isnan(a1), _ew.isnan(a2)))
    return bool(_red.all(eq))


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast to one shape and are equal there, as a Python bool.

    Examples
    --------
    >>> import strided
    >>> strided.array_equiv(strided.asarray([1, 2]), [[1, 2], [1, 2]])
    True
    >>> strided.array_equiv(strided.asarray([1, 2]), [1, 2, 3])
    False
    """
    pair = _pair_or_none(a1, a2)
    if pair is None:
        return False
    a1, a2 = pair
    try:
        _vops.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return bool(_red.all(_ew.equal(a1, a2)))
