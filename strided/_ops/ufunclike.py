"""NumPy's elementwise functions that strided composes from its kernels rather than giving
each a kernel of its own: ``cbrt``, ``exp2`` (for complex input; real floats have a kernel),
``fabs``, ``fix``, ``rint``, ``gcd``, ``lcm``, ``logaddexp2``, ``modf``, ``frexp``, ``ldexp``,
``spacing``, ``i0``, ``unwrap``; and NumPy's type checks ``isposinf``, ``isneginf``,
``iscomplex``, ``isreal``, ``iscomplexobj``, ``isrealobj``, ``real_if_close``.

Each is a handful of whole-tensor ops (no loop over elements), so it runs on every device
strided's elementwise ops run on. Result dtypes are NumPy's: integer inputs of the float-only
functions compute in the smallest float that holds them (float16 for bool, int8 and uint8;
Note [Float results of integer input] in _dtype.pyx).

Note [Exact powers of two]
~~~~~~~~~~~~~~~~~~~~~~~~~~
``frexp`` and ``ldexp`` scale by ``2**e``. Multiplying by a power of two is exact (only the
exponent changes) as long as the factor itself is representable; but ``2.0**1074`` overflows
although ``5e-324 * 2**1074`` is a perfectly ordinary 1.0. So the factor is applied in two
halves, ``x * 2**(e // 2) * 2**(e - e // 2)``: each half stays inside float64's range for every
exponent a finite float64 can need, and each product is still exact.
"""

from __future__ import annotations

import builtins
import math

from strided import _check
from strided._dtype import (
    bool_,
    can_cast,
    finfo,
    float32,
    float64,
    iinfo,
    int32,
    int64,
    uint8,
    uint64,
)
from strided._ops import elementwise as _ew
from strided._ops import histograms as _hist
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.creation import zeros
from strided._ops.mathfuncs import _float_for, _real_float_pair
from strided._ops.scan import cumsum

__all__ = [
    "bitwise_count",
    "cbrt",
    "exp2",
    "fabs",
    "fix",
    "frexp",
    "gcd",
    "i0",
    "iscomplex",
    "iscomplexobj",
    "isneginf",
    "isposinf",
    "isreal",
    "isrealobj",
    "lcm",
    "ldexp",
    "logaddexp2",
    "modf",
    "real_if_close",
    "rint",
    "spacing",
    "unwrap",
]

_LN2 = math.log(2.0)


def _real_float(name, x):
    """``x`` as a tensor of the float dtype a real float-only NumPy ufunc computes it in;
    complex input raises, as NumPy's loops for these functions are real only."""
    x = _check.tensor(x)
    if x.dtype.kind == "c":
        raise TypeError(f"{name}: complex input is not supported (got {x.dtype}); pass real values")
    dt = _float_for(x.dtype)
    return x if x.dtype is dt else _vops.astype(x, dt)


def _integers(name, x1, x2):
    """``x1`` and ``x2`` as tensors of their promoted integer dtype; other dtypes (bool
    too, as in NumPy) raise."""
    if type(x1) is int and type(x2) is not int:  # a Python int is weak on either side
        x2 = _check.tensor(x2)
        like = x2
    else:
        x1 = like = _check.tensor(x1)
        x2 = x2 if type(x2) is int else _check.tensor(x2, like=x1)
    dt = _ew._result_type(x1, x2)
    if dt.kind not in "iu":
        raise TypeError(f"{name}: integer input is required (got {dt}); cast to an integer dtype")
    for x in (x1, x2):
        if type(x) is int and not iinfo(dt).min <= x <= iinfo(dt).max:  # NEP 50, as NumPy
            raise OverflowError(f"{name}: the value {x} does not fit in dtype {dt}")
    return tuple(_vops.astype(_check.tensor(x, like=like), dt) for x in (x1, x2))


def _finish(r, out):
    if out is None:
        return r
    out[...] = r
    return out


def cbrt(x, /, *, out=None):
    """The real cube root, elementwise: ``cbrt(-8) == -2`` (``x ** (1/3)`` gives NaN there).

    Real input only; integers give a float as NumPy's do (see the module docstring).

    Examples
    --------
    >>> import strided
    >>> strided.cbrt(strided.asarray([-8.0, 27.0, 2.0]))
    tensor([-2.        ,  3.        ,  1.25992105])
    """
    x = _real_float("cbrt", x)
    # In float64 whatever the input (float32's answer is the float64 one rounded once).
    a = _ew.abs(x if x.dtype is float64 else _vops.astype(x, float64))
    # a ** (1/3) is off by |ln a| times 1/3's rounding error: ~60 ulp for the largest and the
    # subnormal float64s (and ~9 float32 ulp had it been computed in float32). One Newton step
    # on y^3 = a, written y + (a / y^2 - y) / 3 so that nothing under- or overflows (y^2 lies
    # between 3e-216 and 3e205), squares that error away; 0 and inf keep pow's answer.
    y = _ew.pow(a, 1.0 / 3.0)
    usual = _ew.logical_and(_ew.isfinite(a), _ew.not_equal(a, 0.0))
    ys = _ew.where(usual, y, 1.0)  # (1 for 0 and inf: no 0/0 or inf/inf to warn)
    y = _ew.where(usual, ys + (_ew.where(usual, a, 1.0) / (ys * ys) - ys) / 3.0, y)
    # perfect cubes get their exact integer root back (27 ** (1/3) is 3.0000000000000004)
    r = _ew._round_to_integer(y)
    y = _ew.where(_ew.equal(r * r * r, a), r, y)
    y = _ew.copysign(y, x)
    return _finish(y if x.dtype is float64 else _vops.astype(y, x.dtype), out)


def exp2(x, /, *, out=None):
    """``2 ** x``, elementwise (integers give a float as NumPy's do; complex allowed).

    Examples
    --------
    >>> import strided
    >>> strided.exp2(strided.asarray([0.0, 3.0, -1.0]))
    tensor([1. , 8. , 0.5])
    """
    x = _check.tensor(x)
    dt = _float_for(x.dtype)
    x = x if x.dtype is dt else _vops.astype(x, dt)
    if dt.kind == "c":
        return _finish(_ew.pow(2.0, x), out)
    # real floats: a kernel of its own (vecmath.h's, Note [exp2 without a logarithm's rounding])
    return _ew._exp2_real(x, out=out)


def fabs(x, /, *, out=None):
    """``|x|`` as a float, elementwise; complex input raises (use ``absolute``).

    Examples
    --------
    >>> import strided
    >>> strided.fabs(strided.asarray([-1, 2]))
    tensor([1., 2.])
    """
    return _finish(_ew.abs(_real_float("fabs", x)), out)


def fix(x, out=None):
    """Round toward zero, keeping the dtype (``trunc``; NumPy's ``fix``).

    Examples
    --------
    >>> import strided
    >>> strided.fix(strided.asarray([-2.5, 2.5]))
    tensor([-2.,  2.])
    """
    x = _check.tensor(x)
    if x.dtype.kind == "c":
        raise TypeError(f"fix: complex input is not supported (got {x.dtype})")
    if x.dtype.kind == "b":  # bools are whole numbers already (trunc has no bool loop)
        return _finish(_vops.astype(x, x.dtype, copy=True), out)
    return _ew.trunc(x, out=out)


def rint(x, /, *, out=None):
    """Round to the nearest integer, halves to even, as a float (integers give a float, as
    NumPy's do; complex rounds both parts).

    Examples
    --------
    >>> import strided
    >>> strided.rint(strided.asarray([0.5, 1.5, -2.5, 2.7]))
    tensor([ 0.,  2., -2.,  3.])
    """
    x = _check.tensor(x)
    dt = _float_for(x.dtype)
    return _ew._round_to_integer(x if x.dtype is dt else _vops.astype(x, dt), out=out)


def gcd(x1, x2, /, *, out=None):
    """The greatest common divisor of ``|x1|`` and ``|x2|``, elementwise (integers only;
    ``gcd(0, 0) == 0``).

    Euclid's algorithm run on whole tensors: each step replaces ``(a, b)`` by ``(b, a % b)``
    where ``b`` is not yet 0, so the number of steps is logarithmic in the largest input, and
    no step loops over elements.

    Examples
    --------
    >>> import strided
    >>> strided.gcd(strided.asarray([12, 20, 0]), 8)
    tensor([4, 4, 8])
    """
    a, b = _integers("gcd", x1, x2)
    a, b = _vops.broadcast_arrays(_ew.abs(a), _ew.abs(b))
    while bool(_red.any(b)):
        nz = _ew.not_equal(b, 0)
        a, b = _ew.where(nz, b, a), _ew.where(nz, _ew.remainder(a, _ew.where(nz, b, 1)), 0)
    return _finish(a, out)


def lcm(x1, x2, /, *, out=None):
    """The least common multiple of ``|x1|`` and ``|x2|``, elementwise (integers only; 0 when
    either is 0).

    Examples
    --------
    >>> import strided
    >>> strided.lcm(strided.asarray([4, 6, 0]), 6)
    tensor([12,  6,  0])
    """
    a, b = _integers("lcm", x1, x2)
    g = gcd(a, b)
    # NumPy's order, |a| // g * |b|: an overflowing product wraps exactly as NumPy's does
    r = _ew.multiply(_ew.floor_divide(_ew.abs(a), _ew.where(_ew.equal(g, 0), 1, g)), _ew.abs(b))
    return _finish(r, out)


def bitwise_count(x, /, *, out=None):
    """The number of 1 bits in ``|x|``, elementwise, as uint8 (NumPy 2's ``bitwise_count``;
    integers and bools).

    The classic parallel count on 64-bit words: pairs, nibbles and bytes of bits are summed in
    place by shifts and masks, and one multiplication gathers the eight byte counts in the top
    byte. Signed values count the bits of their magnitude, as NumPy's (``-1`` has one).

    Examples
    --------
    >>> import strided
    >>> strided.bitwise_count(strided.asarray([0, 7, -8, 255]))
    tensor([0, 3, 1, 8], dtype=strided.uint8)
    """
    x = _check.tensor(x)
    if x.dtype.kind not in "biu":
        raise TypeError(f"bitwise_count: integer input is required (got {x.dtype})")
    v = _vops.astype(_ew.abs(_vops.astype(x, int64)) if x.dtype.kind == "i" else x, uint64)
    v = _ew.subtract(v, _ew.bitwise_and(_ew.bitwise_right_shift(v, 1), 0x5555555555555555))
    m2 = 0x3333333333333333
    v = _ew.add(_ew.bitwise_and(v, m2), _ew.bitwise_and(_ew.bitwise_right_shift(v, 2), m2))
    v = _ew.bitwise_and(_ew.add(v, _ew.bitwise_right_shift(v, 4)), 0x0F0F0F0F0F0F0F0F)
    v = _ew.bitwise_right_shift(_ew.multiply(v, 0x0101010101010101), 56)
    return _finish(_vops.astype(v, uint8), out)


def logaddexp2(x1, x2, /, *, out=None):
    """``log2(2**x1 + 2**x2)`` without overflow, elementwise (real input).

    Examples
    --------
    >>> import strided
    >>> strided.logaddexp2(strided.asarray([1.0, 3.0]), 1.0)
    tensor([2.        , 3.32192809])
    """
    x1, x2 = _real_float_pair("logaddexp2", x1, x2)
    dt = x1.dtype
    if dt.itemsize == 2:  # the half types compute in float32 and round once, as the kernels do
        x1, x2 = _vops.astype(x1, float32), _vops.astype(x2, float32)
    m = _ew.maximum(x1, x2)
    d = _ew.negative(_ew.abs(_ew.subtract(x1, x2)))
    r = _ew.add(m, _ew.log1p(_ew.pow(2.0, d)) / _LN2)
    # Equal infinities give inf - inf = NaN above; log2(2 * 2**x) is x + 1 exactly.
    r = _ew.where(_ew.equal(x1, x2), _ew.add(x1, 1.0), r)
    return _finish(r if r.dtype is dt else _vops.astype(r, dt), out)


def modf(x, /, out=(None, None)):
    """The fractional and integral parts of ``x``, both with ``x``'s sign, as two float
    tensors: ``modf(-2.5) == (-0.5, -2.0)``, ``modf(inf) == (0.0, inf)``.

    Examples
    --------
    >>> import strided
    >>> frac, whole = strided.modf(strided.asarray([-2.5, 3.25]))
    >>> frac, whole
    (tensor([-0.5 ,  0.25]), tensor([-2.,  3.]))
    """
    x = _real_float("modf", x)
    whole = _ew.trunc(x)
    frac = _ew.where(_ew.isinf(x), 0.0, _ew.subtract(x, whole))
    frac = _ew.copysign(frac, x)  # -2.0 - -2.0 is +0.0; NumPy's (and C's) modf gives -0.0
    return _finish(frac, out[0]), _finish(whole, out[1])


def _pow2(e, dt):
    """``2.0 ** e`` for an integer tensor ``e`` whose values a float of ``dt`` can hold."""
    return _ew.pow(2.0, _vops.astype(e, dt))


def _scale(x, e):
    """``x * 2**e``, exact where the result is representable (Note [Exact powers of two])."""
    half = _ew.floor_divide(e, 2)
    return x * _pow2(half, x.dtype) * _pow2(_ew.subtract(e, half), x.dtype)


def frexp(x, /, out=(None, None)):
    """Split ``x`` into mantissa and exponent, ``x == m * 2**e`` with ``0.5 <= |m| < 1``
    (``m == x`` and ``e == 0`` for zeros, infinities and NaN). ``e`` is int32, as NumPy's.

    Examples
    --------
    >>> import strided
    >>> m, e = strided.frexp(strided.asarray([8.0, -0.75, 0.0]))
    >>> m, e
    (tensor([ 0.5 , -0.75,  0.  ]), tensor([4, 0, 0], dtype=strided.int32))
    """
    x = _real_float("frexp", x)
    w = _vops.astype(x, float64)  # float32's exponents are float64's too: compute once, exactly
    ordinary = _ew.logical_and(_ew.isfinite(w), _ew.not_equal(w, 0))
    a = _ew.where(ordinary, _ew.abs(w), 1.0)
    e = _vops.astype(_ew.floor(_ew.log2(a)), int64) + 1  # log2 may round across a power of 2:
    m = _scale(a, _ew.negative(e))
    low, high = _ew.less(m, 0.5), _ew.greater_equal(m, 1.0)  # ... so fix that one step here
    e = _ew.where(low, e - 1, _ew.where(high, e + 1, e))
    m = _ew.where(low, m * 2.0, _ew.where(high, m * 0.5, m))
    m = _ew.where(ordinary, _ew.copysign(m, w), w)
    e = _ew.where(ordinary, e, 0)
    return _finish(_vops.astype(m, x.dtype), out[0]), _finish(_vops.astype(e, int32), out[1])


def ldexp(x1, x2, /, *, out=None):
    """``x1 * 2**x2``, elementwise, exact where the result is representable; ``x2`` must be
    integers. The result has ``x1``'s float dtype (integers: the float NumPy's ufuncs give).

    Examples
    --------
    >>> import strided
    >>> strided.ldexp(strided.asarray([0.5, 3.0]), strided.asarray([4, -1]))
    tensor([8. , 1.5])
    """
    x1 = _real_float("ldexp", x1)
    x2 = _check.tensor(x2, like=x1)
    if x2.dtype.kind not in "iub" or not can_cast(x2.dtype, int64):
        # NumPy's loops take int32 and int64 exponents: uint64 has no safe cast to either
        raise TypeError(
            f"ldexp: x2 must hold integers that fit int64 (got {x2.dtype}); use x1 * 2.0 ** x2"
        )
    e = _ew.clip(_vops.astype(x2, float64), -4000, 4000)  # beyond any float's range either way
    r = _scale(_vops.astype(x1, float64), _vops.astype(e, int64))
    return _finish(_vops.astype(r, x1.dtype), out)


def spacing(x, /, *, out=None):
    """The distance from ``x`` to the next float away from zero (negative for negative ``x``;
    ``spacing(1.0)`` is machine epsilon). Integers give float64.

    Examples
    --------
    >>> import strided
    >>> strided.spacing(strided.asarray([1.0, -1.0]))
    tensor([ 2.22044605e-16, -2.22044605e-16])
    """
    x = _real_float("spacing", x)
    away = _ew.where(_ew.less(x, 0), -math.inf, math.inf)  # -0.0 steps up, as NumPy's does
    return _ew.subtract(_ew.nextafter(x, _vops.astype(away, x.dtype)), x, out=out)


def isposinf(x, out=None):
    """Whether ``x`` is +inf, elementwise, as a bool tensor (complex input raises, as NumPy's).

    Examples
    --------
    >>> import strided
    >>> strided.isposinf(strided.asarray([-strided.inf, 0.0, strided.inf]))
    tensor([False, False,  True])
    """
    return _signed_inf("isposinf", x, False, out)


def isneginf(x, out=None):
    """Whether ``x`` is -inf, elementwise, as a bool tensor (complex input raises).

    Examples
    --------
    >>> import strided
    >>> strided.isneginf(strided.asarray([-strided.inf, 0.0, strided.inf]))
    tensor([ True, False, False])
    """
    return _signed_inf("isneginf", x, True, out)


def _signed_inf(name, x, negative, out):
    x = _check.tensor(x)
    if x.dtype.kind == "c":
        raise TypeError(f"{name}: complex input is not supported (got {x.dtype}); pass .real")
    sign = _ew.signbit(x) if x.dtype.kind == "f" else zeros(x.shape, dtype=bool_, device=x.device)
    return _ew.logical_and(_ew.isinf(x), sign if negative else _ew.logical_not(sign), out=out)


def iscomplex(x):
    """Whether each element has a non-zero imaginary part, as a bool tensor (all False for
    real dtypes).

    Examples
    --------
    >>> import strided
    >>> strided.iscomplex(strided.asarray([1 + 1j, 1 + 0j]))
    tensor([ True, False])
    """
    return _ew.not_equal(_ew.imag(_check.tensor(x)), 0)


def isreal(x):
    """Whether each element has a zero imaginary part, as a bool tensor (all True for real
    dtypes).

    Examples
    --------
    >>> import strided
    >>> strided.isreal(strided.asarray([1 + 1j, 1 + 0j]))
    tensor([False,  True])
    """
    return _ew.equal(_ew.imag(_check.tensor(x)), 0)


def _dtype_kind(x):
    dt = getattr(x, "dtype", None)
    if dt is not None and hasattr(dt, "kind"):
        return dt.kind  # a tensor, NumPy array or scalar: no conversion, as NumPy
    return _check.tensor(x).dtype.kind


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype (its values are not looked at), as a Python bool.

    Examples
    --------
    >>> import strided
    >>> strided.iscomplexobj(strided.asarray([1 + 0j])), strided.iscomplexobj([1.0])
    (True, False)
    """
    return _dtype_kind(x) == "c"


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype, as a Python bool.

    Examples
    --------
    >>> import strided
    >>> strided.isrealobj(strided.asarray([1 + 0j])), strided.isrealobj([1.0])
    (False, True)
    """
    return _dtype_kind(x) != "c"


def real_if_close(a, tol=100):
    """The real part of complex ``a`` if every imaginary part is within ``tol`` machine
    epsilons of 0 (``tol`` is an absolute bound when ``tol <= 1``); else ``a`` unchanged.

    Examples
    --------
    >>> import strided
    >>> strided.real_if_close(strided.asarray([2.1 + 4e-14j, 5.2 + 3e-15j]), tol=1000)
    tensor([2.1, 5.2])
    """
    a = _check.tensor(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = finfo(a.dtype).eps * tol
    if bool(_red.all(_ew.less(_ew.abs(_ew.imag(a)), tol))):
        return _ew.real(a)
    return a


_I0_A = (
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
)
_I0_B = (
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)


def _chebyshev(t, coeffs):
    """Clenshaw's recurrence for the Chebyshev series ``coeffs`` at ``t`` (Cephes' chbevl):
    one whole-tensor step per coefficient."""
    b0, b1, b2 = coeffs[0], 0.0, 0.0
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + c
    return 0.5 * (b0 - b2)


def i0(x):
    """The modified Bessel function of the first kind, order 0, elementwise (real input;
    integers give float64).

    As NumPy's (and Cephes'): Chebyshev series for ``exp(-|x|) i0(x)`` on ``|x| <= 8`` and for
    ``exp(-|x|) sqrt(|x|) i0(x)`` above, with Clenshaw's recurrence. Both series are evaluated
    everywhere and ``where`` picks one per element.

    Examples
    --------
    >>> import strided
    >>> strided.i0(strided.asarray([0.0, 1.0, 10.0]))
    tensor([1.00000000e+00, 1.26606588e+00, 2.81571663e+03])
    """
    x = _check.tensor(x)
    if x.dtype.kind == "c":
        raise TypeError(f"i0: complex input is not supported (got {x.dtype})")
    if x.dtype.kind != "f":
        x = _vops.astype(x, float64)
    x = _ew.abs(x)
    small = _ew.less_equal(x, 8.0)
    big = _ew.where(small, 8.0, x)  # keeps 32/x finite on the small side
    near = _ew.exp(x) * _chebyshev(x / 2.0 - 2.0, _I0_A)
    far = _ew.exp(x) * _chebyshev(32.0 / big - 2.0, _I0_B) / _ew.sqrt(big)
    return _ew.where(small, near, far)


def unwrap(p, discont=None, axis=-1, *, period=2 * math.pi):
    """Unwrap a phase along ``axis``: where consecutive values jump by more than
    ``max(discont, period / 2)``, add multiples of ``period`` so that they do not, as NumPy's.

    Examples
    --------
    >>> import strided
    >>> strided.unwrap(strided.asarray([0.0, 3.0, 6.5, 0.5]))
    tensor([0.        , 3.        , 0.21681469, 0.5       ])
    """
    p = _check.tensor(p)
    axis = _check.axis(axis, p.ndim, "unwrap")
    dd = _hist.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    dt = _ew._result_type(dd, period)
    if dt.kind in "iu":
        high, rem = builtins.divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    ddmod = _ew.add(_ew.remainder(_ew.subtract(dd, -high), period), -high)
    if ambiguous:  # a jump of exactly period/2 keeps its own sign
        flip = _ew.logical_and(_ew.equal(ddmod, -high), _ew.greater(dd, 0))
        ddmod = _ew.where(flip, high, ddmod)
    correct = _ew.where(_ew.less(_ew.abs(dd), discont), 0, _ew.subtract(ddmod, dd))
    up = _vops.astype(p, dt, copy=True)
    index = (slice(None),) * axis + (slice(1, None),)
    up[index] = _ew.add(p[index], cumsum(correct, axis=axis))
    return up
