"""Elementwise operators: the public functions (Array API 2024.12 names), each a thin front to the
dispatcher (``_dispatch.py``), which runs the CPU kernel from ``_cpu/binary.pyx.tp`` or
``_cpu/unary.pyx.tp``.

Every function takes ``out=``; the in-place variants (``a.add_(b)``, ``a += b``) are ``out=a``.
Python scalars stay Python scalars all the way down to the iterator, where they are *weak*
(NEP 50): ``int8_tensor + 1`` is int8. Anything else that is not a tensor (a list, a NumPy array
or NumPy scalar) is converted with ``asarray`` first.
"""

from __future__ import annotations

import functools

import numpy as np

from strided import _core, _dispatch
from strided._cpu import binary as _binary
from strided._cpu import unary as _unary
from strided._dtype import result_type as _result_type
from strided._ops.creation import asarray

__all__ = []  # filled below, one name per op

_SCALARS = (bool, int, float, complex)


def _arg(x):
    """Tensors and Python scalars pass through; anything else becomes a tensor."""
    if isinstance(x, _core.TensorBase) or type(x) in _SCALARS:
        return x
    return asarray(x)


class _Kernel:
    """The CPU kernel of one elementwise op, as the dispatcher sees it: callable, and able to
    show its iterator plan (for ``trace_dispatch``)."""

    __slots__ = ("name", "run", "_plan", "__qualname__")

    def __init__(self, name, run, plan):
        self.name = name
        self.run = run
        self._plan = plan
        self.__qualname__ = f"{run.__module__}.{run.__name__}[{name}]"

    def __call__(self, *args, out=None):
        return self.run(self.name, *args, out)

    def plan(self, *args, out=None):
        return self._plan(self.name, *args, out)


class _CudaKernel:
    """The CUDA kernel of one elementwise op (strided/cuda/_elementwise.py), loaded on first
    use so that ``import strided`` loads nothing of the CUDA backend's kernels. The first call
    registers the loaded kernel in its place: a ``_LoadedCudaKernel``, called without a Python
    frame of its own (Note [The host path of an elementwise launch] in cuda/_elementwise.py)."""

    __slots__ = ("name", "family", "__qualname__")

    def __init__(self, name, family):
        self.name = name
        self.family = family
        self.__qualname__ = f"strided.cuda._elementwise.{family}[{name}]"

    def __call__(self, *args, out=None):
        from strided.cuda import _elementwise

        run = getattr(_elementwise, self.family)
        loaded = (
            _LoadedCudaKernel(run) if self.family == "where" else _LoadedCudaKernel(run, self.name)
        )
        loaded.__qualname__ = self.__qualname__
        _dispatch.register(self.name, "CUDA", loaded)
        return loaded(*args, out=out)


class _LoadedCudaKernel(functools.partial):
    """A loaded CUDA kernel: ``_elementwise.binary`` (or unary) with the op's name bound; a
    ``functools.partial``, whose call is C, with the name ``trace_dispatch`` shows."""


_binary.set_front_end(_dispatch.possible, _dispatch.forced, asarray, _dispatch.call)
reflected = {}  # op name -> its function with the arguments swapped (for Tensor.__radd__ ...)


def _make_binary(name, doc):
    """Register the CPU kernel of ``name`` and make its public function: compiled, see Note
    [Compiled front ends] in _cpu/binary.pyx.tp. Also makes the reflected twin."""
    _dispatch.register(name, "CPU", _Kernel(name, _binary.binary, _binary.binary_plan))
    _dispatch.register(name, "CUDA", _CudaKernel(name, "binary"))
    op = _binary.make_binary(name)
    op.__doc__ = doc
    reflected[name] = _binary.make_binary(name, reflected=True)
    __all__.append(name)
    return op


def _make_unary(name, doc):
    _dispatch.register(name, "CPU", _Kernel(name, _unary.unary, _unary.unary_plan))
    _dispatch.register(name, "CUDA", _CudaKernel(name, "unary"))
    run = _unary.unary
    possible, forced, tensor_keys = _dispatch.possible, _dispatch.forced, _dispatch.tensor_keys
    CPU = _dispatch.CPU

    def op(x, /, *, out=None):
        if not isinstance(x, _core.TensorBase):
            x = asarray(x)
        # Note [Dispatch key sets] in _dispatch.py: straight to the CPU kernel when the call's
        # key set is {CPU} (out= adds Autograd once autograd has registered)
        if possible[0] == CPU or (out is None and forced[0] | tensor_keys(x) == CPU):
            return run(name, x, out)
        return _dispatch.call(name, x, out=out)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    __all__.append(name)
    return op


# -- binary ops ---------------------------------------------------------------------------------

add = _make_binary(
    "add",
    """x1 + x2, elementwise, with broadcasting.

Examples
--------
>>> import strided
>>> strided.add(strided.arange(3), 10)
tensor([10, 11, 12])
""",
)
subtract = _make_binary("subtract", "x1 - x2, elementwise.")
multiply = _make_binary("multiply", "x1 * x2, elementwise.")
divide = _make_binary(
    "divide",
    """x1 / x2 (true division: integers give the default float).

Examples
--------
>>> import strided
>>> strided.divide(strided.arange(3), 2)
tensor([0. , 0.5, 1. ])
""",
)
floor_divide = _make_binary(
    "floor_divide",
    "x1 // x2, rounding toward -inf (NumPy); an "
    "integer division by zero gives 0 and a RuntimeWarning.",
)
remainder = _make_binary(
    "remainder",
    "x1 % x2 with the sign of x2 (NumPy); an integer "
    "remainder by zero gives 0 and a RuntimeWarning.",
)
pow = _make_binary("pow", "x1 ** x2, elementwise (integers to negative powers raise).")
maximum = _make_binary("maximum", "The larger of x1 and x2 (NaN if either is NaN).")
minimum = _make_binary("minimum", "The smaller of x1 and x2 (NaN if either is NaN).")
atan2 = _make_binary("atan2", "The angle of the point (x2, x1), in radians.")
hypot = _make_binary("hypot", "sqrt(x1**2 + x2**2) without overflow.")
copysign = _make_binary("copysign", "|x1| with the sign of x2.")
nextafter = _make_binary("nextafter", "The next float after x1 toward x2.")
logaddexp = _make_binary("logaddexp", "log(exp(x1) + exp(x2)) without overflow.")
bitwise_and = _make_binary("bitwise_and", "x1 & x2 (integers and bools).")
bitwise_or = _make_binary("bitwise_or", "x1 | x2 (integers and bools).")
bitwise_xor = _make_binary("bitwise_xor", "x1 ^ x2 (integers and bools).")
bitwise_left_shift = _make_binary("bitwise_left_shift", "x1 << x2 (0 past the width).")
bitwise_right_shift = _make_binary("bitwise_right_shift", "x1 >> x2 (arithmetic for signed).")
equal = _make_binary("equal", "x1 == x2, as a bool tensor.")
not_equal = _make_binary("not_equal", "x1 != x2, as a bool tensor.")
less = _make_binary("less", "x1 < x2, as a bool tensor.")
less_equal = _make_binary("less_equal", "x1 <= x2, as a bool tensor.")
greater = _make_binary("greater", "x1 > x2, as a bool tensor.")
greater_equal = _make_binary("greater_equal", "x1 >= x2, as a bool tensor.")
logical_and = _make_binary("logical_and", "x1 and x2 (non-zero is true), as a bool tensor.")
logical_or = _make_binary("logical_or", "x1 or x2 (non-zero is true), as a bool tensor.")
logical_xor = _make_binary("logical_xor", "x1 xor x2 (non-zero is true), as a bool tensor.")

_ = np  # NumPy scalars reach asarray through _arg


# -- unary ops ----------------------------------------------------------------------------------

abs = _make_unary(
    "abs",
    """|x| (for complex, the modulus, as a real tensor).

Examples
--------
>>> import strided
>>> strided.abs(strided.asarray([-1.5, 2.0]))
tensor([1.5, 2. ])
""",
)
negative = _make_unary("negative", "-x.")
positive = _make_unary("positive", "+x (a copy).")
square = _make_unary("square", "x * x.")
sqrt = _make_unary(
    "sqrt",
    "The square root (small integers give float16 or float32, as NumPy: see Note [Float "
    "results of integer input] in _dtype.pyx).",
)
_float_reciprocal = _make_unary("reciprocal", "1 / x.")


def reciprocal(x, /, *, out=None):
    """1 / x. Of integers, NumPy's integer reciprocal (Note [Integer reciprocal]): 1 for 1,
    -1 for -1, 0 for every other integer; a bool gives int8.

    Note [Integer reciprocal]
    ~~~~~~~~~~~~~~~~~~~~~~~~~
    NumPy's ``reciprocal`` keeps an integer dtype and divides as C does, so ``reciprocal(2)``
    is 0; PyTorch's gives a float. Both accept the call, so NumPy's meaning wins (Note [NumPy
    first] in DESIGN.md; ``docs/numpy-and-pytorch.md``); ``1 / x`` (``divide``) gives the
    float. The answer is 0 unless |x| is 1, which takes a comparison, not a kernel. A zero
    divides by zero: on the CPU that is reported as NumPy's errstate "divide" says (a warning
    by default) and the element is 0, as NumPy's array loops give; a device tensor is not
    read back to look for zeros.

    Examples
    --------
    >>> import strided
    >>> strided.reciprocal(strided.asarray([1, 2, -1, 4]))
    tensor([ 1,  0, -1,  0])
    >>> strided.reciprocal(strided.asarray([2.0, 4.0]))
    tensor([0.5 , 0.25])
    """
    if not isinstance(x, _core.TensorBase):
        x = asarray(x)
    if x.dtype.kind not in "biu":
        return _float_reciprocal(x, out=out)
    if x.dtype.kind == "b":
        x = x.astype("int8")
    if x.device.is_cpu and np.asarray(equal(x, 0)).any():  # a host read, CPU only
        from strided import _errstate

        _errstate.report("divide", "reciprocal")
    unit = equal(abs(x), 1) if x.dtype.kind == "i" else equal(x, 1)
    return where(unit, x, 0, out=out)


exp = _make_unary(
    "exp",
    """e ** x.

Examples
--------
>>> import strided
>>> strided.exp(strided.zeros(2))
tensor([1., 1.])
""",
)
expm1 = _make_unary("expm1", "exp(x) - 1, accurate near 0.")
# 2 ** x for real floats: the kernel behind strided.exp2 (ufunclike.py), which also takes
# integers (to float) and complex numbers (through pow)
_exp2_real = _make_unary("exp2", "2 ** x of real floats; strided.exp2 is the public function.")
__all__.remove("exp2")
log = _make_unary("log", "The natural logarithm.")
log1p = _make_unary("log1p", "log(1 + x), accurate near 0.")
log2 = _make_unary("log2", "The base-2 logarithm.")
log10 = _make_unary("log10", "The base-10 logarithm.")
sin = _make_unary("sin", "The sine (radians).")
cos = _make_unary("cos", "The cosine (radians).")
tan = _make_unary("tan", "The tangent (radians).")
asin = _make_unary("asin", "The inverse sine.")
acos = _make_unary("acos", "The inverse cosine.")
atan = _make_unary("atan", "The inverse tangent.")
sinh = _make_unary("sinh", "The hyperbolic sine.")
cosh = _make_unary("cosh", "The hyperbolic cosine.")
tanh = _make_unary("tanh", "The hyperbolic tangent.")
asinh = _make_unary("asinh", "The inverse hyperbolic sine.")
acosh = _make_unary("acosh", "The inverse hyperbolic cosine.")
atanh = _make_unary("atanh", "The inverse hyperbolic tangent.")
erf = _make_unary("erf", "The error function.")
erfc = _make_unary(
    "erfc",
    """The complementary error function, 1 - erf(x), computed without the cancellation of
``1 - erf(x)``: erfc(10) is 2.1e-45, where 1 - erf(10) is 0. NumPy has none
(``scipy.special.erfc``, ``torch.erfc``).

Examples
--------
>>> import strided
>>> strided.erfc(strided.asarray([0.0, 3.0]))
tensor([1.0000000e+00, 2.2090497e-05])
""",
)
sigmoid = _make_unary("sigmoid", "1 / (1 + exp(-x)).")
softplus = _make_unary("softplus", "log(1 + exp(x)), computed without overflow.")
relu = _make_unary("relu", "max(x, 0) (NaN stays NaN).")
ceil = _make_unary("ceil", "The smallest integer >= x (integers unchanged).")
floor = _make_unary("floor", "The largest integer <= x (integers unchanged).")
trunc = _make_unary("trunc", "x rounded toward 0 (integers unchanged).")
_round_to_integer = _make_unary(
    "round", "x rounded to the nearest integer, halves to even (NumPy)."
)


def round(x, /, decimals=0, *, out=None):  # noqa: A001 - NumPy's and the Array API's name
    """``x`` rounded to ``decimals`` decimal places, halves to even (NumPy's ``round``): to the
    nearest integer by default; a negative ``decimals`` rounds to tens, hundreds, ... As in
    NumPy, other decimals scale, round and scale back (``rint(x * 10**d) / 10**d``), with
    NumPy's results bit for bit, binary rounding of the scaled value included. Integers are
    returned as they are for ``decimals >= 0``.

    Examples
    --------
    >>> import strided
    >>> strided.round(strided.asarray([0.5, 1.5, 2.675]), 2)
    tensor([0.5 , 1.5 , 2.68])
    >>> strided.round(strided.asarray([1234, -1250]), -2)
    tensor([ 1200, -1200])
    """
    import operator

    decimals = operator.index(decimals)
    if decimals == 0:
        return _round_to_integer(x, out=out)
    if not isinstance(x, _core.TensorBase):
        x = asarray(x)
    if x.dtype.kind in "biu":
        if decimals > 0:
            r = x.clone()
            if out is None:
                return r
            out[...] = r
            return out
        scale = 10 ** (-decimals)
        r = multiply(_round_to_integer(divide(x, scale)), scale).astype(x.dtype)
    else:
        scale = 10.0**decimals
        r = divide(_round_to_integer(multiply(x, scale)), scale)
    if out is None:
        return r
    out[...] = r
    return out


sign = _make_unary("sign", "-1, 0 or 1 (NaN stays NaN; complex: x / |x|).")
signbit = _make_unary("signbit", "Whether the sign bit is set (True for -0.0).")
conj = _make_unary("conj", "The complex conjugate (real tensors unchanged).")
real = _make_unary("real", "The real part, as a real tensor (a copy; see Tensor.real for a view).")
imag = _make_unary("imag", "The imaginary part, as a real tensor (zeros for real input).")
isfinite = _make_unary("isfinite", "Whether x is neither infinite nor NaN.")
isinf = _make_unary("isinf", "Whether x is +-inf (complex: either part).")
isnan = _make_unary("isnan", "Whether x is NaN (complex: either part).")
logical_not = _make_unary("logical_not", "not x (zero is false), as a bool tensor.")
bitwise_invert = _make_unary("bitwise_invert", "~x (integers and bools).")


# -- where, clip, lerp --------------------------------------------------------------------------

_dispatch.register(
    "where",
    "CPU",
    _Kernel("where", lambda name, *a: _binary.where(*a), lambda name, *a: _binary.where_plan(*a)),
)
_dispatch.register("where", "CUDA", _CudaKernel("where", "where"))


def where(condition, x1=None, x2=None, /, *, out=None):
    """``x1`` where ``condition`` is true, else ``x2`` (all three broadcast together; the
    condition is read as bool, x1 and x2 promote together with Python scalars weak).

    With the condition alone, ``where(condition)`` is ``strided.nonzero(condition)``: a tuple
    of int64 index tensors, one per dim (as NumPy and PyTorch).

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(4)
    >>> strided.where(x > 1, x, -1)
    tensor([-1, -1,  2,  3])
    >>> strided.where(x > 1)
    (tensor([2, 3]),)
    """
    if x1 is None and x2 is None:
        if out is not None:
            raise TypeError("where(condition) returns indices and takes no out=")
        from strided._ops.indexing import nonzero  # the layer above; imported when needed

        return nonzero(condition)
    if x1 is None or x2 is None:
        raise TypeError(
            "where takes one argument (condition: its nonzero() indices) or three "
            "(condition, x1, x2)"
        )
    args = [_arg(condition), _arg(x1), _arg(x2)]
    if not isinstance(args[1], _core.TensorBase) and not isinstance(args[2], _core.TensorBase):
        # Two Python scalars promote among themselves, by their default dtypes (as NumPy's
        # where(c, 1, 2.5) is float64): the first becomes a tensor, the second stays weak.
        args[1] = asarray(args[1])
    if _dispatch.possible[0] == _dispatch.CPU:
        return _binary.where(*args, out)
    return _dispatch.call("where", *args, out=out)


__all__.append("where")


def clip(x, /, min=None, max=None, *, out=None, a_min=None, a_max=None):
    """``x`` limited to [min, max] (either may be None; NaN stays NaN), as
    ``minimum(maximum(x, min), max)``. NumPy's older names for the bounds, ``a_min=`` and
    ``a_max=``, are accepted.

    Examples
    --------
    >>> import strided
    >>> strided.clip(strided.arange(5), 1, 3)
    tensor([1, 1, 2, 3, 3])
    """
    if a_min is not None or a_max is not None:
        if (a_min is not None and min is not None) or (a_max is not None and max is not None):
            raise TypeError("clip: give each bound once, as min=/max= or as a_min=/a_max=")
        min, max = (min if a_min is None else a_min), (max if a_max is None else a_max)
    if not isinstance(x, _core.TensorBase):
        x = asarray(x)
    if x.dtype.kind in "iu":
        # A Python int bound beyond x's dtype limits nothing, so it is dropped rather than
        # converted (which would overflow): NumPy's _clip does the same, keeping the result in
        # x's dtype (NEP 50). One beyond the other end (min=1000 for int8) still overflows.
        info = np.iinfo(x.dtype.numpy)
        if type(min) is int and min <= info.min:
            min = None
        if type(max) is int and max >= info.max:
            max = None
    bounds = [b for b in (min, max) if b is not None]
    if bounds and _result_type(x, *bounds).kind == "c":
        return _clip_complex(x, min, max, out)
    if min is None:
        return minimum(x, max, out=out) if max is not None else positive(x, out=out)
    if max is None:
        return maximum(x, min, out=out)
    # The intermediate may not go through out=: out's dtype may differ from it (a same_kind
    # cast), and minimum's result may be of another dtype (clip(int8, 0, 2.5) is float64) or
    # shape (a max that broadcasts further) than maximum's.
    low = maximum(x, min)
    if out is None and type(max) in _SCALARS and _result_type(low, max) is low.dtype:
        out = low  # a scalar bound keeps low's shape and dtype: reuse it, no second allocation
    return minimum(low, max, out=out)


__all__.append("clip")


def _clip_complex(x, low, high, out):
    """clip of complex numbers, as NumPy's clip loop orders them.

    Note [Clipping complex numbers]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    NumPy's clip does not call its maximum and minimum: its loop has an order of its own, by
    the real part and then the imaginary part with no test for a NaN imaginary part (where
    maximum and the comparisons treat one as unordered, Note [The order of complex numbers] in
    _cpu/scalar_math.h), and an x with a NaN part is kept. So ``clip(3, 1+nanj, 2)`` is 2, where
    ``minimum(maximum(3, 1+nanj), 2)`` is 1+nanj. strided follows the loop, composed of
    elementwise ops on the parts; complex clipping is rare enough that no kernel is kept for it.
    """

    def parts(v):
        return (v.real, v.imag) if type(v) in _SCALARS else (real(v), imag(v))

    def at_least(a, b):  # a >= b in the order of NumPy's clip loop
        (ar, ai), (br, bi) = parts(a), parts(b)
        return logical_or(greater(ar, br), logical_and(equal(ar, br), greater_equal(ai, bi)))

    r = x
    if low is not None:
        r = where(logical_or(at_least(r, low), isnan(r)), r, low)
    if high is not None:
        r = where(logical_or(at_least(high, r), isnan(r)), r, high)
    if out is None:
        return r
    out[...] = r
    return out


def lerp(start, end, weight, /, *, out=None):
    """``start + weight * (end - start)``, the linear interpolation (a PyTorch ML helper).

    Examples
    --------
    >>> import strided
    >>> strided.lerp(strided.zeros(2), strided.ones(2), 0.25)
    tensor([0.25, 0.25])
    """
    result = multiply(subtract(end, start), weight)
    return add(start, result, out=out)


__all__.append("lerp")


def plan(name, /, *args, out=None):
    """What the elementwise iterator would do for ``name(*args)``, without running it.

    The returned plan's ``explain()`` shows the broadcast shape, the computation and result
    dtypes, any casts or temporaries, the loop after reordering and coalescing (with each
    operand's byte strides) and whether it runs on several threads.

    Examples
    --------
    >>> import strided
    >>> x = strided.ones((3, 4), dtype="float32")
    >>> print(strided.plan("add", x.T, 1.0).explain())  # doctest: +NORMALIZE_WHITESPACE
    add: broadcast shape (4, 3); computes in float32, writes float32
    loop: shape (12,) after reordering and coalescing; byte strides per operand (out first):
    (4,), (4,), (0,)
    threads: one (12 elements; loops of fewer than 65536 run on one thread)
    """
    args = [_arg(a) for a in args]
    if name == "where":
        return _binary.where_plan(*args, out)
    if name in _binary.OPS:
        return _binary.binary_plan(name, *args, out)
    if name in _unary.OPS:
        return _unary.unary_plan(name, *args, out)
    raise ValueError(f"plan: {name!r} is not an elementwise op")


__all__.append("plan")


# The functions behind Tensor's operators: see Note [Operators in the compiled class] in _core.pyx.
_core._register_operators(
    {name: globals()[name] for name in __all__ if name in reflected}
    | {"r" + name: fn for name, fn in reflected.items()}
)
