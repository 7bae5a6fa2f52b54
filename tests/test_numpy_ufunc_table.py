"""Every NumPy ufunc that strided has, over every pair of dtypes, against NumPy itself.

The NumPy-first rule (DESIGN.md) asks that ``strided.<name>`` give NumPy's answer wherever NumPy
gives the name a meaning. The OpInfo rows check each op over the dtypes its kernel claims; this
table walks the other way round: it takes NumPy's list of ufuncs, finds the strided function of
each name, and calls both on every input dtype strided has (and every pair, for binary ufuncs),
in every layout, and with Python scalars on either side. For each call it compares

- whether it raises, and the kind of error (NumPy's ``UFuncTypeError`` is a ``TypeError``);
- the result dtype (NumPy's loop choice: bools read as int8, the float of integer input...);
- the values, with NaN equal to NaN, infinities exact and the sign of a zero compared.

bfloat16 is left out: NumPy has none (test_half.py compares it with float32 rounded once).
``KNOWN`` lists the differences that stay, each with its reason;
``test_known_differences_are_still_there`` keeps the list honest.
"""

from __future__ import annotations

import builtins
import itertools
import warnings

import numpy as np
import pytest
from layouts import ALL_DTYPES, LAYOUTS, make_layout

import strided

# (layouts.py fills float16 storage from float32 values, some beyond float16's range)
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")

DTYPES = [d.name for d in ALL_DTYPES] + ["float16"]  # every dtype but bfloat16
SCALARS = (True, 2, -1, 2.5, 1j)
# ufuncs that are not elementwise (matmul and friends have their own tests) or name a dtype
# strided does not have
SKIP = {"matmul", "vecdot", "matvec", "vecmat", "isnat"}
UFUNCS = sorted(
    {u for u in vars(np).values() if isinstance(u, np.ufunc) and u.__name__ not in SKIP},
    key=lambda u: u.__name__,
)


def _values(dtype, second):
    """Six values of ``dtype``, shaped (2, 3): zeros, signs, NaN and infinities where the dtype
    has them; ``second`` gives the right operand's (divisors, exponents, shift amounts)."""
    kind = np.dtype(dtype).kind
    inf, nan = np.inf, np.nan
    table = {
        "b": ([0, 1, 1, 0, 1, 0], [1, 1, 0, 0, 0, 1]),
        "i": ([-3, 0, 2, 5, -1, 7], [2, -1, 3, 1, 0, 4]),
        "u": ([0, 1, 2, 7, 3, 5], [3, 1, 2, 1, 0, 4]),
        "f": ([-1.5, 0.0, 2.0, nan, -0.0, inf], [2.0, -0.0, inf, 1.0, -inf, 0.5]),
        "c": (
            [-1.5 + 1j, 0, 2 - 0.5j, 3j, 1 + 0j, -2 - 2j],
            [1 + 1j, 2, -1j, 1.5, 0.5 - 0.5j, -1 + 0j],
        ),
    }
    return np.array(table[kind][second], dtype=dtype).reshape(2, 3)


def _run(fn, args):
    """("ok", results) or ("error", exception type), warnings silenced."""
    with warnings.catch_warnings(), np.errstate(all="ignore"), strided.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            r = fn(*args)
        except Exception as e:  # noqa: BLE001 - the kind is what is compared
            return "error", type(e)
    return "ok", r if isinstance(r, tuple) else (r,)


def _error_kind(exc):
    """The builtin exception class an exception is (NumPy's UFuncTypeError is a TypeError)."""
    for kind in (OverflowError, ZeroDivisionError, TypeError, ValueError, RuntimeError):
        if issubclass(exc, kind):
            return kind
    return exc


def _same_values(got, want, zero_sign=True):
    """Equal, with NaN == NaN and the sign of zeros compared (unless ``zero_sign`` is false);
    float32-precision dtypes to a relative 1e-5 (their transcendental functions differ from
    NumPy's by an ulp or two)."""
    if want.dtype.kind not in "fc":
        return np.array_equal(got, want)
    parts = [(got, want)] if want.dtype.kind == "f" else [
        (got.real, want.real),
        (got.imag, want.imag),
    ]  # fmt: skip
    rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
    for g, w in parts:
        if not np.allclose(g, w, rtol=rtol, atol=0, equal_nan=True):
            return False
        zero = (w == 0) & (g == 0)
        if zero_sign and (np.signbit(g[zero]) != np.signbit(w[zero])).any():
            return False
    return True


def compare(name, cases):
    """The cases (label, NumPy arguments, strided arguments) where strided differs from NumPy,
    as (label, what differs)."""
    ufunc, fn = getattr(np, name), getattr(strided, name)
    zero_sign = name not in ZERO_SIGN_FREE
    found = []
    for label, np_args, st_args in cases:
        (np_kind, want), (st_kind, got) = _run(ufunc, np_args), _run(fn, st_args)
        if np_kind == "error" or st_kind == "error":
            if np_kind != st_kind:
                found.append((label, f"NumPy {np_kind} {want}, strided {st_kind} {got}"))
            elif _error_kind(want) is not _error_kind(got):
                found.append((label, f"NumPy raises {want.__name__}, strided {got.__name__}"))
            continue
        for w, g in zip(want, got, strict=True):
            w, g = np.asarray(w), np.asarray(g)
            if w.dtype != g.dtype:
                found.append((label, f"dtype: NumPy {w.dtype}, strided {g.dtype}"))
            elif w.shape != g.shape or not _same_values(g, w, zero_sign):
                found.append((label, f"values: NumPy {w.tolist()}, strided {g.tolist()}"))
    return found


def _cases(ufunc):
    """(label, NumPy arguments, strided arguments) for every dtype (pair) in every layout, and
    with each Python scalar on either side."""
    groups = [(d,) for d in DTYPES] if ufunc.nin == 1 else itertools.product(DTYPES, DTYPES)
    for dtypes in groups:
        refs = [_values(d, k) for k, d in enumerate(dtypes)]
        for layout in LAYOUTS:
            pairs = [make_layout(layout, ref) for ref in refs]
            label = ",".join(dtypes) + ("" if layout == "contiguous" else f" {layout}")
            yield label, [a for _, a in pairs], [t for t, _ in pairs]
    if ufunc.nin == 2:
        for d, s in itertools.product(DTYPES, SCALARS):
            t, a = make_layout("contiguous", _values(d, 0))
            yield f"{d},{s!r}", [a, s], [t, s]
            t, a = make_layout("contiguous", _values(d, 1))
            yield f"{s!r},{d}", [s, a], [s, t]


# NumPy's own sign for fmax(0.0, -0.0) depends on the array's length (its scalar loop keeps the
# first operand, its vector loop the second), so no one answer can be NumPy's
ZERO_SIGN_FREE = {"fmax", "fmin"}


def _complex_order(label):
    return "complex" in label or "1j" in label


# The differences that stay: ufunc -> (reason, which case labels).
KNOWN = {
    # NumPy's integer reciprocal is 1.0 / x cast back: 1 / 0 is inf, which casts to the most
    # negative int32 / int64 on x86 (and to 0 for the narrower ones); strided gives 0 for all
    "reciprocal": (
        "1 / 0 of int32 and int64",
        lambda label: label.split()[0] in ("int32", "int64"),
    ),
    # NumPy's float16 spacing of a negative number is positive (its half-precision routine),
    # unlike its float32 and float64 spacing; int8 and uint8 compute in float16
    "spacing": (
        "NumPy's float16 spacing ignores the sign",
        lambda label: label.split()[0] in ("int8", "float16"),
    ),
    # NumPy's float16 maximum and minimum keep the first of two equal values (+0.0, -0.0); its
    # float32 and float64 loops, and strided's for every float, the second
    **{
        name: ("NumPy's float16 loops keep the first of equal zeros", lambda label: "16" in label)
        for name in ("maximum", "minimum")
    },
    # nextafter(x, y) of equal x and y is y in C and from NumPy 2.5 on (0.0 toward -0.0 is
    # -0.0; Note in scalar_math.h's half nextafter); NumPy 2.4's float16 loop gives x
    "nextafter": ("float16 nextafter(x, x): y, as C and NumPy 2.5", lambda label: "16" in label),
    # a Python number as ldexp's mantissa: NumPy's loop is float16's, strided's the default float
    "ldexp": ("a Python scalar mantissa", lambda label: label[0] in "T2-"),
}


def _missing(name):
    return not hasattr(strided, name)


@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_ufunc_matches_numpy_on_every_dtype(ufunc):
    name = ufunc.__name__
    if _missing(name):
        assert name in KNOWN, f"strided has no {name}"
        return
    reason, known = KNOWN.get(name, ("", lambda label: False))
    diffs = [(label, what) for label, what in compare(name, _cases(ufunc)) if not known(label)]
    assert not diffs, f"{name}: {len(diffs)} differences from NumPy, first: {diffs[:5]}"


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_known_differences_are_still_there(name):
    # a difference that is fixed leaves KNOWN, so that the table says what is still missing
    if _missing(name):
        return
    reason, known = KNOWN[name]
    ufunc = getattr(np, name)
    assert any(known(label) for label, _ in compare(name, _cases(ufunc))), (name, reason)


def test_the_table_covers_the_ufuncs_strided_exports():
    # every NumPy ufunc name is a strided function, or it is listed as missing
    names = {u.__name__ for u in UFUNCS}
    assert {n for n in names if _missing(n)} <= set(KNOWN)
    assert builtins.all(callable(getattr(strided, n)) for n in names if not _missing(n))


@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_numpys_ufunc_runs_strideds_function(ufunc):
    # NEP 13: np.<ufunc>(tensor) runs strided's function of the same name and gives a tensor
    if _missing(ufunc.__name__):
        pytest.skip(f"strided has no {ufunc.__name__} (KNOWN)")
    x = strided.asarray([1, 2])
    with warnings.catch_warnings(), np.errstate(all="ignore"), strided.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = ufunc(*[x] * ufunc.nin)
        want = ufunc(*[np.asarray(x)] * ufunc.nin)
    got, want = (got, want) if ufunc.nout > 1 else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert isinstance(g, strided.Tensor), ufunc.__name__
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)  # values: the table test
        assert np.asarray(g).dtype == w.dtype, ufunc.__name__
