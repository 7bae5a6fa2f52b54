"""The elementwise rows of the OpInfo table (DESIGN.md, "Testing design"): one row per op in
``strided._ops.elementwise.__all__``, NumPy as the oracle.

The view rows live in ``opinfo.py``; these rows extend its ``OpInfo`` with what elementwise ops
need:

- ``nargs``: how many tensor operands the op takes (1 unary, 2 binary, 3 for where/clip/lerp);
- ``kinds`` and ``result``: the row of the op's Tempita table (``_cpu/binary.pyx.tp``,
  ``_cpu/unary.pyx.tp``): the dtype kinds the kernel accepts (b bool, i signed, u unsigned,
  f real float, c complex) and what it writes ("same"; "float": integers and bools compute in
  the smallest float that holds them, NumPy's rule; "default_float": they compute in the default
  float, as true division and SciPy's erf do; "bool"; "real": complex gives its real dtype;
  "int8_bool": "same", but bools compute in int8, Note [Bools read as int8] in _iter.pyx).
  ``dtypes`` follows from them; ``test_rows_agree_with_the_kernel_tables`` keeps the two in step;
- ``domains``: one value maker per operand, ``(shape, dtype, rng) -> ndarray`` (log on
  positives, shift amounts within the width, integer exponents >= 0, ...);
- ``supports_out``, ``supports_inplace``, ``inplace_arg`` (the operand an in-place call writes
  into), ``method`` (the Tensor method, whose in-place twin is ``method + "_"``), ``operator``
  and ``inplace_operator`` (the Python operators that reach the op).

Integer and bool inputs to float-valued ops follow Note [Float results of integer input] in
_dtype.pyx: NumPy's own rule for NumPy's functions (``np.sqrt(int8)`` is float16, so NumPy's
answer is the oracle as it is), the default float for divide and for the names NumPy lacks (erf,
sigmoid: ``reference`` casts such inputs to float64 before calling the row's reference).
"""

from __future__ import annotations

import contextlib
import math
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from layouts import ALL_DTYPES, HALF_DTYPES, make_values, to_numpy_dtype
from opinfo import OpInfo

import strided

__all__ = [
    "ElementwiseOpInfo",
    "EW_OPS",
    "EW_OPS_BY_NAME",
    "NOT_OPS",
    "check",
    "dtype_of",
    "fits",
    "HALF_TOLERANCES",
    "half_operands",
    "half_tolerance",
    "half_reference",
    "quiet",
    "reference",
    "supports",
]

# Names in elementwise.__all__ that are not elementwise ops (so have no row).
NOT_OPS = {"plan"}

_KIND_OF = {d: to_numpy_dtype(d).kind for d in ALL_DTYPES}


def dtype_of(np_dtype):
    """The strided DType for a NumPy dtype."""
    return _BY_NP[np.dtype(np_dtype)]


_BY_NP = {to_numpy_dtype(d): d for d in ALL_DTYPES + HALF_DTYPES}


# the result kinds under which integer and bool inputs compute in a float dtype
_FLOAT_RESULTS = ("float", "default_float")
# the result kind under which bools compute in int8 (Note [Bools read as int8] in _iter.pyx)
_INT8_BOOL = "int8_bool"


@dataclass(repr=False)
class ElementwiseOpInfo(OpInfo):
    nargs: int = 1
    kinds: str = "biufc"
    result: str = "same"  # "same" | "float" | "default_float" | "bool" | "real" | "int8_bool"
    domains: tuple = ()
    supports_out: bool = True
    supports_inplace: bool = True
    inplace_arg: int = 0
    method: str | None = None
    operator: Callable | None = None
    inplace_operator: Callable | None = None

    def __post_init__(self):
        if not self.domains:
            self.domains = (make_values,) * self.nargs
        assert len(self.domains) == self.nargs, self.name
        kinds = self.kinds + ("biu" if self.result in _FLOAT_RESULTS else "")
        kinds += "b" if self.result == _INT8_BOOL else ""
        if self.dtypes is ALL_DTYPES:
            self.dtypes = tuple(d for d in ALL_DTYPES if _KIND_OF[d] in kinds)


def supports(op, np_dtype):
    """Whether the kernel of ``op`` runs in (computes in) NumPy dtype ``np_dtype``."""
    kind = np.dtype(np_dtype).kind
    return (
        kind in op.kinds
        or (op.result in _FLOAT_RESULTS and kind in "biu")
        or (op.result == _INT8_BOOL and kind == "b")
    )


def fits(s, np_dtype):
    """Whether a Python int fits the dtype (out-of-range ints: see the edge-case tests)."""
    if type(s) is not int or np_dtype.kind not in "iu":
        return True
    info = np.iinfo(np_dtype)
    return info.min <= s <= info.max


def reference(op, *args):
    """NumPy's answer to ``op(*args)`` (arrays and Python scalars), with strided's documented
    rule for the default-float ops on integers and bools: compute in float64."""
    if op.result == "default_float":
        common = np.result_type(*args)
        if common.kind in "biu":
            args = [a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(op.ref(*args))


# Note [The halves' oracles]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# A float op on float16 or bfloat16 computes in float32 and rounds once (Note [Half precision
# through float32] in _cpu/half.py). float16's oracle is NumPy's own float16 loop, which does the
# same (and steps float16's bits for nextafter); bfloat16's is the row's NumPy reference on the
# operands widened to float32 (exactly), its float32 results rounded once to bfloat16, except for
# the rows in _BFLOAT16_NATIVE, whose reference ml_dtypes' own bfloat16 loops compute: nextafter
# steps bfloat16's bits, and lerp is a composite of three ops (strided.lerp), each rounding.
# Reductions (test_reduction.py) accumulate in float32 and round at the end, and so does their
# oracle for both halves (NumPy's float16 softmax and var round every intermediate). Rows whose
# float32 results are within a tolerance (libm against NumPy's SIMD functions) are compared
# within one unit of the half's last place (half_tolerance); the others exactly.
HALF_TOLERANCES = {strided.float16: (1e-3, 6e-8), strided.bfloat16: (8e-3, 1e-39)}


def half_tolerance(op, dtype):
    """(rtol, atol) for row ``op``'s results in half ``dtype``: exact where the row is exact;
    else an ulp of the half, and no less than the row's float32 atol (the float32 steps'
    cancellation near 0, as in log_softmax, is what it is in float32)."""
    if not op.tolerances:
        return 0, 0
    rtol, atol = HALF_TOLERANCES[dtype]
    return rtol, max(atol, op.tolerances.get(strided.float32, (0, 0))[1])


def half_operands(op, shape, dtype, rng):
    """The operands' values for a half dtype: the row's value makers in float32, rounded."""
    dt = to_numpy_dtype(dtype)
    made = [make(shape, np.float32, rng) for make in op.domains]
    with np.errstate(over="ignore"):  # float32's 1e30 is float16's inf, on purpose
        return [v.astype(dt) if v.dtype == np.float32 else v for v in made]  # (where's condition)


_BFLOAT16_NATIVE = {"nextafter", "lerp"}


def half_reference(op, *args):
    """The oracle for ``op`` on half-precision operands (Note [The halves' oracles])."""
    if op.name in _BFLOAT16_NATIVE or any(
        a.dtype == to_numpy_dtype(strided.float16) for a in args if hasattr(a, "dtype")
    ):
        return reference(op, *args)
    half = next(a.dtype for a in args if hasattr(a, "dtype") and a.dtype.kind == "V")
    wide = [a.astype(np.float32) if getattr(a, "dtype", None) == half else a for a in args]
    out = reference(op, *wide)
    return out.astype(half) if out.dtype == np.float32 else out


@contextlib.contextmanager
def quiet():
    """Integer division by zero warns (tested on its own in the edge-case tests)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def check(op, got, expected, where, tol_dtype=None):
    """``got`` (a Tensor) equals NumPy's ``expected``: shape, dtype, values (NaN == NaN; within
    the row's tolerance for the result dtype, else exactly)."""
    exp = np.asarray(expected)
    assert isinstance(got, strided.Tensor), f"{where}: got a {type(got).__name__}"
    assert got.shape == exp.shape, f"{where}: shape {got.shape}, NumPy {exp.shape}"
    arr = np.asarray(got)
    assert arr.dtype == exp.dtype, f"{where}: dtype {arr.dtype}, NumPy {exp.dtype}"
    tol_dtype = tol_dtype or got.dtype
    rtol, atol = op.tolerances.get(tol_dtype, (0, 0))
    if tol_dtype in HALF_TOLERANCES:
        rtol, atol = half_tolerance(op, tol_dtype)
    if arr.dtype.kind == "V":  # bfloat16 (ml_dtypes): NumPy's testing compares float32 copies
        arr, exp = arr.astype(np.float32), exp.astype(np.float32)
    if rtol or atol:
        np.testing.assert_allclose(arr, exp, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(arr, exp, err_msg=where, strict=True)


# ---------------------------------------------------------------------------------------------
# Value makers: (shape, dtype, rng) -> ndarray
# ---------------------------------------------------------------------------------------------

_INF, _NAN = math.inf, math.nan


def _mix(pool, rand, rng):
    """About a third of ``rand``'s entries replaced by entries of ``pool``."""
    pool = np.asarray(pool, dtype=rand.dtype)
    if pool.size == 0:
        return rand
    take = rng.random(rand.size) < 0.35
    out = rand.copy()
    out[take] = pool[rng.integers(0, pool.size, rand.size)][take]
    return out


def _complex_parts(n, dt, rng, scale, zeros=True):
    part = np.float32 if dt == np.complex64 else np.float64
    flat = np.empty(n, dt)
    pool = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0] if zeros else [1.0, -1.0, 0.5, -2.0]
    for attr in ("real", "imag"):
        setattr(flat, attr, _mix(pool, rng.uniform(-scale, scale, n).astype(part), rng))
    if not zeros:
        flat[flat == 0] = 1.0
    return flat


def ranged(lo=-_INF, hi=_INF, *, scale=10.0, complex_scale=3.0, complex_zeros=True):
    """Values in [lo, hi] (floats: uniform within +-scale, plus the interesting values of the
    interval, the ends, and one value just outside each finite end, where both libraries must
    give NaN); integers: small ones in the interval; complex: finite parts within
    +-complex_scale (with zero parts unless ``complex_zeros`` is False)."""

    def make(shape, dtype, rng):
        dt = to_numpy_dtype(dtype)
        n = math.prod(shape)
        if dt.kind == "b":
            flat = rng.integers(0, 2, n).astype(bool)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            a = max(math.ceil(lo) if lo > -_INF else -100, info.min, -100)
            b = min(math.floor(hi) if hi < _INF else 100, info.max, 100)
            flat = rng.integers(a, b, n, endpoint=True).astype(dt)
        elif dt.kind == "f":
            a, b = max(lo, -scale), min(hi, scale)
            specials = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, -2.5, lo, hi, _INF, -_INF]
            pool = [v for v in specials if lo <= v <= hi] + [_NAN]
            pool += [lo - 0.5] if lo > -_INF else []
            pool += [hi + 0.5] if hi < _INF else []
            flat = _mix(pool, rng.uniform(a, b, n).astype(dt), rng)
        else:
            flat = _complex_parts(n, dt, rng, complex_scale, complex_zeros)
        return flat.reshape(shape)

    return make


def full_range(*, complex_finite=False, nonzero=False):
    """make_values (extremes, inf, nan, -0.0), except that complex values can be made finite:
    C99 complex arithmetic (Annex G) and NumPy's differ on purpose at infinities and in the
    signs of a complex division by zero; ``nonzero`` replaces zeros by 1 (divisors; real
    division by zero is in the edge-case tests)."""

    def make(shape, dtype, rng):
        dt = to_numpy_dtype(dtype)
        if complex_finite and dt.kind == "c":
            n = math.prod(shape)
            return _complex_parts(n, dt, rng, 100.0, not nonzero).reshape(shape)
        values = make_values(shape, dtype, rng)
        if nonzero:
            values[values == 0] = 1
        return values

    return make


def _exponents(shape, dtype, rng):
    """Exponents: integers 0..9 (negative ones raise), anything for floats and complex."""
    dt = to_numpy_dtype(dtype)
    if dt.kind in "iu":
        return rng.integers(0, 10, shape).astype(dt)
    if dt.kind == "c":
        return _complex_parts(math.prod(shape), dt, rng, 3.0).reshape(shape)
    return make_values(shape, dtype, rng)


def _bases(shape, dtype, rng):
    dt = to_numpy_dtype(dtype)
    if dt.kind == "c":
        return _complex_parts(math.prod(shape), dt, rng, 3.0, zeros=False).reshape(shape)
    return make_values(shape, dtype, rng)


def _shift_amounts(shape, dtype, rng):
    """Shift amounts from a little below 0 to a little past the width (NumPy defines both)."""
    dt = to_numpy_dtype(dtype)
    if dt.kind not in "iu":
        return make_values(shape, dtype, rng)  # (a shift of these dtypes must raise)
    info = np.iinfo(dt)
    bits = dt.itemsize * 8
    return rng.integers(max(info.min, -3), bits + 3, shape, endpoint=True).astype(dt)


def _conditions(shape, dtype, rng):
    return rng.random(shape) < 0.5


_FULL = full_range()
_FINITE_C = full_range(complex_finite=True)
_DIVISORS = full_range(complex_finite=True, nonzero=True)


# ---------------------------------------------------------------------------------------------
# References NumPy has no function for, or where strided's documented answer differs
# ---------------------------------------------------------------------------------------------


def _via_float64(fn):
    """``fn`` computed in float64 and rounded to the input's float dtype."""

    def ref(a):
        return np.asarray(fn(np.asarray(a, dtype=np.float64))).astype(a.dtype)

    return ref


_erf = _via_float64(np.vectorize(math.erf, otypes=[np.float64]))
_erfc = _via_float64(np.vectorize(math.erfc, otypes=[np.float64]))
_sigmoid = _via_float64(lambda x: 1.0 / (1.0 + np.exp(-x)))
_softplus = _via_float64(lambda x: np.logaddexp(0.0, x))


def _relu(a):
    keep = a > 0
    if a.dtype.kind == "f":
        keep |= np.isnan(a)  # NaN stays NaN
    return np.where(keep, a, 0).astype(a.dtype)


def _lerp(start, end, weight):
    # the same evaluation order as strided.lerp: start + (end - start) * weight
    return np.add(start, np.multiply(np.subtract(end, start), weight))


# ---------------------------------------------------------------------------------------------
# Tolerances, per result dtype (exact when a dtype is not listed)
# ---------------------------------------------------------------------------------------------

F32, F64 = strided.float32, strided.float64
C64, C128 = strided.complex64, strided.complex128
# libm and NumPy's own (SIMD) implementations differ by a few ulp
TRANSCENDENTAL = {F32: (2e-5, 1e-6), F64: (1e-12, 1e-14), C64: (1e-4, 1e-5), C128: (1e-10, 1e-12)}
# complex multiplication and division round differently (FMA, Smith's algorithm)
COMPLEX_ARITH = {C64: (1e-5, 1e-6), C128: (1e-12, 1e-14)}


# ---------------------------------------------------------------------------------------------
# The rows
# ---------------------------------------------------------------------------------------------


def _binary(name, ref, kinds, result="same", *, domains=(), op=None, iop=None, **kw):
    return ElementwiseOpInfo(
        name,
        getattr(strided, name),
        ref,
        nargs=2,
        kinds=kinds,
        result=result,
        domains=domains or (_FULL, _FULL),
        method=kw.pop("method", name),
        operator=op,
        inplace_operator=iop,
        **kw,
    )


def _unary(name, ref, kinds, result="same", *, domain=_FULL, op=None, **kw):
    return ElementwiseOpInfo(
        name,
        getattr(strided, name),
        ref,
        nargs=1,
        kinds=kinds,
        result=result,
        domains=(domain,),
        method=kw.pop("method", name),
        operator=op,
        **kw,
    )


def _transcendental(name, ref, kinds="fc", domain=None, result="float", **kw):
    domain = domain or ranged()
    return _unary(name, ref, kinds, result, domain=domain, tolerances=TRANSCENDENTAL, **kw)


_BINARY = [
    _binary("add", np.add, "biufc", op=operator.add, iop=operator.iadd),
    _binary("subtract", np.subtract, "iufc", op=operator.sub, iop=operator.isub),
    _binary(
        "multiply",
        np.multiply,
        "biufc",
        domains=(_FINITE_C, _FINITE_C),
        tolerances=COMPLEX_ARITH,
        op=operator.mul,
        iop=operator.imul,
    ),
    _binary(
        "divide",
        np.divide,
        "fc",
        "default_float",
        domains=(_FINITE_C, _DIVISORS),
        tolerances=COMPLEX_ARITH,
        op=operator.truediv,
        iop=operator.itruediv,
    ),
    _binary(
        "floor_divide",
        np.floor_divide,
        "iuf",
        "int8_bool",
        op=operator.floordiv,
        iop=operator.ifloordiv,
    ),
    _binary("remainder", np.remainder, "iuf", "int8_bool", op=operator.mod, iop=operator.imod),
    _binary(
        "pow",
        np.power,
        "iufc",
        "int8_bool",
        domains=(_bases, _exponents),
        tolerances=TRANSCENDENTAL,
        op=operator.pow,
        iop=operator.ipow,
    ),
    _binary("maximum", np.maximum, "biufc"),
    _binary("minimum", np.minimum, "biufc"),
    _binary("atan2", np.arctan2, "f", "float", tolerances=TRANSCENDENTAL),
    _binary("hypot", np.hypot, "f", "float", tolerances=TRANSCENDENTAL),
    _binary("copysign", np.copysign, "f", "float"),
    _binary("nextafter", np.nextafter, "f", "float"),
    _binary("logaddexp", np.logaddexp, "f", "float", tolerances=TRANSCENDENTAL),
    _binary("bitwise_and", np.bitwise_and, "biu", op=operator.and_, iop=operator.iand),
    _binary("bitwise_or", np.bitwise_or, "biu", op=operator.or_, iop=operator.ior),
    _binary("bitwise_xor", np.bitwise_xor, "biu", op=operator.xor, iop=operator.ixor),
    _binary(
        "bitwise_left_shift",
        np.left_shift,
        "iu",
        "int8_bool",
        domains=(_FULL, _shift_amounts),
        op=operator.lshift,
        iop=operator.ilshift,
    ),
    _binary(
        "bitwise_right_shift",
        np.right_shift,
        "iu",
        "int8_bool",
        domains=(_FULL, _shift_amounts),
        op=operator.rshift,
        iop=operator.irshift,
    ),
    _binary("equal", np.equal, "biufc", "bool", op=operator.eq),
    _binary("not_equal", np.not_equal, "biufc", "bool", op=operator.ne),
    _binary("less", np.less, "biufc", "bool", op=operator.lt),
    _binary("less_equal", np.less_equal, "biufc", "bool", op=operator.le),
    _binary("greater", np.greater, "biufc", "bool", op=operator.gt),
    _binary("greater_equal", np.greater_equal, "biufc", "bool", op=operator.ge),
    _binary("logical_and", np.logical_and, "biufc", "bool"),
    _binary("logical_or", np.logical_or, "biufc", "bool"),
    _binary("logical_xor", np.logical_xor, "biufc", "bool"),
]


def _reciprocal_ref(a):
    """NumPy's reciprocal, integers too (Note [Integer reciprocal] in _ops/elementwise.py):
    where NumPy's integer 1 / 0 is undefined, strided's 0."""
    if a.dtype.kind not in "biu":
        return np.reciprocal(a)
    a = a.astype(np.int8) if a.dtype.kind == "b" else a
    with np.errstate(divide="ignore"):
        return np.where(a == 0, 0, np.reciprocal(a)).astype(a.dtype)


_UNARY = [
    # |complex|: C's cabs and NumPy's npy_hypot differ in the last bit
    _unary("abs", np.abs, "biufc", "real", tolerances={F32: (2e-7, 0), F64: (4e-16, 0)}, op=abs),
    _unary("negative", np.negative, "iufc", op=operator.neg),
    _unary("positive", np.positive, "iufc", op=operator.pos),
    _unary("square", np.square, "iufc", "int8_bool", domain=_FINITE_C, tolerances=COMPLEX_ARITH),
    _transcendental("sqrt", np.sqrt, domain=_FULL),
    _unary(
        "reciprocal",
        _reciprocal_ref,
        "biufc",
        domain=_FINITE_C,
        tolerances=COMPLEX_ARITH,
    ),
    _transcendental("exp", np.exp, domain=ranged(scale=100.0)),
    _transcendental("expm1", np.expm1, domain=ranged(scale=100.0)),
    _transcendental("log", np.log, domain=ranged(0.0)),
    _transcendental("log1p", np.log1p, domain=ranged(-1.0)),
    _transcendental("log2", np.log2, domain=ranged(0.0)),
    _transcendental("log10", np.log10, domain=ranged(0.0)),
    _transcendental("sin", np.sin, domain=_FINITE_C),
    _transcendental("cos", np.cos, domain=_FINITE_C),
    _transcendental("tan", np.tan, domain=ranged(scale=100.0)),
    _transcendental("asin", np.arcsin, domain=ranged(-1.0, 1.0)),
    _transcendental("acos", np.arccos, domain=ranged(-1.0, 1.0)),
    _transcendental("atan", np.arctan, domain=ranged(scale=1e4)),
    _transcendental("sinh", np.sinh, domain=ranged(scale=100.0)),
    _transcendental("cosh", np.cosh, domain=ranged(scale=100.0)),
    _transcendental("tanh", np.tanh, domain=ranged()),
    _transcendental("asinh", np.arcsinh, domain=ranged(scale=1e4)),
    _transcendental("acosh", np.arccosh, domain=ranged(1.0, scale=1e4)),
    _transcendental("atanh", np.arctanh, domain=ranged(-1.0, 1.0)),
    _transcendental("erf", _erf, "f", domain=ranged(), result="default_float"),
    _transcendental("erfc", _erfc, "f", domain=ranged(), result="default_float"),
    _transcendental("sigmoid", _sigmoid, "f", domain=ranged(scale=100.0), result="default_float"),
    _transcendental("softplus", _softplus, "f", domain=ranged(scale=100.0), result="default_float"),
    _unary("relu", _relu, "iuf"),
    _unary("ceil", np.ceil, "biuf"),
    _unary("floor", np.floor, "biuf"),
    _unary("trunc", np.trunc, "biuf"),
    _unary("round", np.round, "iufc", domain=ranged(scale=10.0, complex_scale=10.0)),
    _unary("sign", np.sign, "iufc", domain=_FINITE_C, tolerances=COMPLEX_ARITH),
    _unary("signbit", np.signbit, "biuf", "bool"),
    # the method is NumPy's ndarray.conj: a real or bool array itself (test_conj_method_...)
    _unary("conj", np.conj, "iufc", "int8_bool", method=None),
    _unary("real", np.real, "biufc", "real", method=None),
    _unary("imag", np.imag, "biufc", "real", method=None),
    _unary("isfinite", np.isfinite, "biufc", "bool"),
    _unary("isinf", np.isinf, "biufc", "bool"),
    _unary("isnan", np.isnan, "biufc", "bool"),
    _unary("logical_not", np.logical_not, "biufc", "bool"),
    _unary("bitwise_invert", np.invert, "biu", op=operator.invert),
]

_TERNARY = [
    # where(condition, x1, x2): the condition is bool, x1 and x2 promote together
    ElementwiseOpInfo(
        "where",
        strided.where,
        np.where,
        nargs=3,
        kinds="biufc",
        domains=(_conditions, _FULL, _FULL),
        inplace_arg=1,
    ),
    ElementwiseOpInfo(
        "clip",
        strided.clip,
        np.clip,
        nargs=3,
        kinds="biufc",
        method="clip",
    ),
    ElementwiseOpInfo(
        "lerp",
        strided.lerp,
        _lerp,
        nargs=3,
        kinds="iufc",
        domains=(_FINITE_C, _FINITE_C, _FINITE_C),
        tolerances=COMPLEX_ARITH,
        method="lerp",
    ),
]

EW_OPS = _BINARY + _UNARY + _TERNARY

# The rows autograd differentiates (strided/autograd/derivatives.py has a formula for each, or
# the op is a composite of such ops): tests/test_autograd_ops.py gradchecks them.
_AUTOGRAD = {
    "add", "subtract", "multiply", "divide", "pow", "maximum", "minimum", "atan2", "hypot",
    "copysign", "logaddexp", "remainder", "floor_divide", "abs", "negative", "positive",
    "square", "sqrt", "reciprocal", "exp", "expm1", "log", "log1p", "log2", "log10", "sin",
    "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "erf", "erfc", "sigmoid", "softplus", "relu", "ceil", "floor", "trunc", "round", "sign",
    "where", "clip", "lerp", "conj", "real",
}  # fmt: skip
for _row in EW_OPS:
    _row.supports_autograd = _row.name in _AUTOGRAD
EW_OPS_BY_NAME = {o.name: o for o in EW_OPS}
