"""Generic tests of the elementwise rows of the OpInfo table (tests/opinfo_elementwise.py).

Each (op, layout, dtype) case builds every operand in that layout (tests/layouts.py) from the
row's value makers, runs the op on the strided tensors and NumPy on the arrays, and checks the
values and the result dtype (``reference`` applies the documented float64 rule for integer
inputs to float-valued ops), in the three variants:

- functional ``strided.op(x, y)`` and the Tensor method ``x.op(y)``;
- ``out=``: a contiguous out of the result dtype, a transposed one, a negatively stepped one
  (whose neighbours must stay untouched) and a wider one (complex128, a same_kind cast);
- in-place: ``out=x`` and ``x.op_(y)`` write into the input when NumPy's same_kind rule allows
  the result into its dtype, else raise TypeError and leave it alone; an expanded input (its
  elements share memory) refuses with RuntimeError.

Dtypes: every dtype on the contiguous layout, and every layout on bool, int8, float32 and
complex128 (one of each kind), which keeps the suite fast. Then: broadcasting, weak Python
scalars in both positions (NEP 50), the Python operators and their reflected and in-place forms,
and type promotion over all dtype pairs. Edge values, errors, overlap, memory order, threads and
the dispatcher are in test_elementwise_edge_cases.py; Hypothesis in test_hypothesis_elementwise.
"""

from __future__ import annotations

import numpy as np
import pytest
from layouts import ALL_DTYPES, HALF_DTYPES, LAYOUTS, make_layout, make_values, to_numpy_dtype
from opinfo_elementwise import (
    EW_OPS,
    EW_OPS_BY_NAME,
    NOT_OPS,
    check,
    dtype_of,
    fits,
    half_operands,
    half_reference,
    quiet,
    reference,
    supports,
)

import strided

SHAPE = (4, 1, 3, 5)  # a size-1 dim (broadcast), odd and even sizes, 60 elements
FEW_DTYPES = (strided.bool, strided.int8, strided.float32, strided.complex128)
BINARY = [op for op in EW_OPS if op.nargs == 2]
UNARY = [op for op in EW_OPS if op.nargs == 1]
TERNARY = [op for op in EW_OPS if op.nargs == 3]


def _layout_shape(layout):
    return {"0-d": (), "empty": SHAPE[:1] + (0,) + SHAPE[2:]}.get(layout, SHAPE)


def _unchanged(t, before, where):
    now = np.asarray(t)
    if now.dtype.kind == "V":  # bfloat16: NumPy's testing compares float32 copies (NaN == NaN)
        now, before = now.astype(np.float32), before.astype(np.float32)
    np.testing.assert_array_equal(now, before, err_msg=f"{where}: input changed")


# ---------------------------------------------------------------------------------------------
# The table itself
# ---------------------------------------------------------------------------------------------


def test_every_elementwise_op_has_a_row():
    names = set(strided._ops.elementwise.__all__) - NOT_OPS
    assert names == set(EW_OPS_BY_NAME), names ^ set(EW_OPS_BY_NAME)


def test_rows_agree_with_the_kernel_tables():
    # the kinds of each row are the kinds of the op's row in _cpu/binary.pyx.tp / unary.pyx.tp
    from strided._cpu import binary, unary

    # (except the kinds the Python layer composes on top of a kernel: reciprocal's integers,
    # Note [Integer reciprocal] in _ops/elementwise.py)
    composed = {"reciprocal": "biu"}
    for op in EW_OPS:
        table = binary.OPS if op.nargs == 2 else unary.OPS if op.nargs == 1 else None
        if table is not None:
            kinds = set(table[op.name][1]) | set(composed.get(op.name, ""))
            assert kinds == set(op.kinds), op.name
            # and the float that integers compute in (Note [Float results of integer input])
            module = binary if op.nargs == 2 else unary
            written = {
                "RESULT_FLOAT": "float",
                "RESULT_DEFAULT_FLOAT": "default_float",
                "RESULT_INT8_BOOL": "int8_bool",
            }
            if op.name not in composed and module.RESULT_KINDS[op.name] in written:
                assert written[module.RESULT_KINDS[op.name]] == op.result, op.name


# ---------------------------------------------------------------------------------------------
# Every row x layout x dtype, in every variant
# ---------------------------------------------------------------------------------------------


def _cases():
    for op in EW_OPS:
        for layout in LAYOUTS:
            dtypes = ALL_DTYPES if layout == "contiguous" else FEW_DTYPES
            for dtype in dtypes:
                if dtype in op.dtypes:
                    yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")
            # the halves on every layout, for every row whose kernel takes real floats
            for dtype in HALF_DTYPES if "f" in op.kinds else ():
                yield pytest.param(op, layout, dtype, id=f"{op.name}-{layout}-{dtype.name}")


def _operands(op, layout, dtype, rng):
    """(values in SHAPE, tensors, arrays): every operand in ``layout``."""
    if dtype in HALF_DTYPES:
        values = half_operands(op, SHAPE, dtype, rng)
    else:
        values = [make(SHAPE, dtype, rng) for make in op.domains]
    pairs = [make_layout(layout, v, rng) for v in values]
    return values, [p[0] for p in pairs], [p[1] for p in pairs]


def _check_memory_order(layout, got, where):
    # The result follows the inputs' memory order (Note [The elementwise iterator], step 4).
    # Transposed inputs: see test_result_follows_the_inputs_memory_order in the edge cases.
    if got.numel() > 1 and layout in ("contiguous", "stepped", "negative-stride"):
        assert got.is_contiguous(), f"{where}: result strides {got.stride()}"


def _outs(shape, dtype):
    """(description, out, check_untouched) for each kind of out= tensor."""
    yield "a contiguous out", strided.empty(shape, dtype=dtype), None
    if len(shape) >= 2:
        yield "a transposed out", strided.empty(shape[::-1], dtype=dtype).T, None
    if len(shape) >= 1:
        base = strided.ones((2 * shape[0],) + shape[1:], dtype=dtype)

        def untouched(base=base):
            kept = np.asarray(base)[::2]
            np.testing.assert_array_equal(kept, np.ones_like(kept), err_msg="out's neighbours")

        yield "a negatively stepped out", base[::-2], untouched
    yield "a complex128 out", strided.empty(shape, dtype=strided.complex128), None


def _check_inplace(op, layout, values, ts, arrs, exp, rng, where):
    k = op.inplace_arg
    target_dtype = arrs[k].dtype
    allowed = np.can_cast(exp.dtype, target_dtype, "same_kind")
    variants = [("out=", lambda args, tgt: op.op(*args, out=tgt))]
    if op.method and k == 0:
        name = op.method + "_"
        variants.append((f"x.{name}", lambda args, tgt: getattr(tgt, name)(*args[1:])))
    if op.inplace_operator is not None:
        variants.append(("the in-place operator", lambda args, tgt: op.inplace_operator(*args)))
    for how, call in variants:
        target = make_layout(layout, values[k], rng)[0]
        args = list(ts)
        args[k] = target
        before = np.asarray(target).copy()
        here = f"{where}, in-place through {how}"
        if not allowed:  # checked before overlap, so also for an expanded target
            with pytest.raises(TypeError, match="same_kind"):
                call(args, target)
            _unchanged(target, before, here)
        elif layout == "expanded":
            with pytest.raises(RuntimeError, match="share memory"):
                call(args, target)
            _unchanged(target, before, here)
        else:
            with quiet():
                got = call(args, target)
            assert got is target, here
            check(op, target, exp.astype(target_dtype), here, tol_dtype=dtype_of(exp.dtype))


@pytest.mark.parametrize("op,layout,dtype", list(_cases()))
def test_op_matches_numpy(op, layout, dtype, rng):
    values, ts, arrs = _operands(op, layout, dtype, rng)
    where = f"{op.name} on {layout} {dtype.name} inputs"
    befores = [np.asarray(t).copy() for t in ts]
    exp = (half_reference if dtype in HALF_DTYPES else reference)(op, *arrs)

    with quiet():
        got = op.op(*ts)
    check(op, got, exp, where)
    _check_memory_order(layout, got, where)
    for t, before in zip(ts, befores, strict=True):
        _unchanged(t, before, where)

    if op.method:
        with quiet():
            got = getattr(ts[0], op.method)(*ts[1:])
        check(op, got, exp, f"{where}, as a method")

    if op.supports_out:
        result_dtype = dtype_of(exp.dtype)
        for how, out, untouched in _outs(exp.shape, result_dtype):
            with quiet():
                got = op.op(*ts, out=out)
            here = f"{where}, into {how}"
            assert got is out, here
            check(op, out, exp.astype(out.dtype.numpy), here, tol_dtype=result_dtype)
            if untouched:
                untouched()
        for t, before in zip(ts, befores, strict=True):
            _unchanged(t, before, where)

    if op.supports_inplace:
        _check_inplace(op, layout, values, ts, arrs, exp, rng, where)


# ---------------------------------------------------------------------------------------------
# Broadcasting
# ---------------------------------------------------------------------------------------------

BROADCAST_SHAPES = [
    ((3, 1), (4,), (1,)),
    ((4,), (3, 1), ()),
    ((2, 1, 3), (1, 4, 1), (4, 3)),
    ((5,), (), (5,)),
    ((), (5,), ()),
    ((0, 3), (1, 3), (3,)),
    ((1,), (0,), (1,)),
    ((2, 3), (2, 3), (2, 1)),
    ((), (), ()),
]


def _a_dtype(op):
    for d in (strided.float32, strided.int16, strided.bool):
        if d in op.dtypes:
            return d
    return op.dtypes[0]


@pytest.mark.parametrize("op", BINARY + TERNARY, ids=lambda op: op.name)
def test_broadcasting(op, rng):
    dtype = _a_dtype(op)
    for shapes in BROADCAST_SHAPES:
        shapes = shapes[: op.nargs]
        arrs = [make(s, dtype, rng) for make, s in zip(op.domains, shapes, strict=True)]
        exp = reference(op, *arrs)
        where = f"{op.name} of shapes {shapes}"
        with quiet():
            got = op.op(*[strided.asarray(a) for a in arrs])
        check(op, got, exp, where)
        assert got.shape == np.broadcast_shapes(*shapes), where
        out = strided.empty(exp.shape, dtype=got.dtype)
        with quiet():
            assert op.op(*[strided.asarray(a) for a in arrs], out=out) is out
        check(op, out, exp, f"{where}, out=")


# ---------------------------------------------------------------------------------------------
# Weak Python scalars (NEP 50), both positions
# ---------------------------------------------------------------------------------------------

SCALARS = (True, False, 3, -2, 0, 2.5, -0.5, 1.5 - 0.5j)


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_weak_python_scalars(op, dtype, rng):
    nd = to_numpy_dtype(dtype)
    for pos in (0, 1):  # where the tensor goes; the scalar takes the other place
        arr = op.domains[pos]((2, 3), dtype, rng)
        for s in SCALARS:
            if not fits(s, nd):
                continue
            np_args = [arr, s] if pos == 0 else [s, arr]
            st_args = [strided.asarray(arr), s] if pos == 0 else [s, strided.asarray(arr)]
            where = f"{op.name}({', '.join(type(a).__name__ for a in np_args)}) on {nd}, {s!r}"
            common = np.result_type(*np_args)
            if not supports(op, common):
                with pytest.raises(TypeError, match=rf"{op.name}.*{dtype_of(common).name}"):
                    op.op(*st_args)
                continue
            try:
                exp = reference(op, *np_args)
            except (TypeError, ValueError, OverflowError) as e:
                # NumPy refuses (e.g. an integer to a negative power): so must strided
                _same_error(e, op.op, *st_args)
                continue
            with quiet():
                got = op.op(*st_args)
            check(op, got, exp, where)


def test_numpy_scalars_are_strong():
    # NumPy scalars are not Python scalars: they promote by their dtype, as in NumPy
    a = np.array([1, 2], np.float32)
    t = strided.asarray(a)
    mul, add = EW_OPS_BY_NAME["multiply"], EW_OPS_BY_NAME["add"]
    for s in (np.float64(2.0), np.int8(3), np.float32(2), np.bool_(True), np.complex64(1j)):
        check(mul, t * s, a * s, f"t * {s!r}")
        check(mul, s * t, s * a, f"{s!r} * t")
        check(add, strided.add(s, t), np.add(s, a), f"add({s!r}, t)")


def test_scalars_in_where_clip_lerp(rng):
    c = rng.random((2, 3)) < 0.5
    for dtype in (np.int8, np.uint8, np.float32, np.complex64, np.bool_):
        a = make_values((2, 3), dtype, rng)
        t, tc = strided.asarray(a), strided.asarray(c)
        for s in (True, 3, 2.5, 1j):
            where = f"where with {np.dtype(dtype)} and {s!r}"
            check(EW_OPS_BY_NAME["where"], strided.where(tc, t, s), np.where(c, a, s), where)
            check(EW_OPS_BY_NAME["where"], strided.where(tc, s, t), np.where(c, s, a), where)
    # both branches scalars: they promote among themselves (NumPy: default int / float)
    tc = strided.asarray(c)
    check(EW_OPS_BY_NAME["where"], strided.where(tc, 1, 2), np.where(c, 1, 2), "where(c, 1, 2)")
    check(EW_OPS_BY_NAME["where"], strided.where(tc, 1, 2.5), np.where(c, 1, 2.5), "1, 2.5")
    x = np.array([-3, 0, 5, 9], np.int8)
    clip = EW_OPS_BY_NAME["clip"]
    check(clip, strided.clip(strided.asarray(x), 0, 6), np.clip(x, 0, 6), "clip int8 0..6")
    check(clip, strided.clip(strided.asarray(x), None, 6), np.clip(x, None, 6), "max only")
    check(clip, strided.clip(strided.asarray(x), -1, None), np.clip(x, -1, None), "min only")
    check(clip, strided.clip(strided.asarray(x), 0.5, 6), np.clip(x, 0.5, 6), "float min")
    check(clip, strided.clip(strided.asarray(x), 0, 2.5), np.clip(x, 0, 2.5), "float max")
    hi = np.array([[1], [4]], np.int8)  # a max that broadcasts x further
    got = strided.clip(strided.asarray(x), 0, strided.asarray(hi))
    check(clip, got, np.clip(x, 0, hi), "broadcasting max")
    f = np.array([np.nan, -1.0, 2.0, 7.0], np.float32)
    check(clip, strided.clip(strided.asarray(f), 0, 6), np.clip(f, 0, 6), "NaN stays NaN")
    lerp = EW_OPS_BY_NAME["lerp"]
    s, e = np.zeros(3, np.float32), np.array([1, 2, 4], np.float32)
    got = strided.lerp(strided.asarray(s), strided.asarray(e), 0.25)
    check(lerp, got, s + 0.25 * (e - s), "lerp with a scalar weight")


@pytest.mark.parametrize("layout", ["contiguous", "negative-stride", "0-d"])
def test_clip_with_python_int_bounds_beyond_the_dtype(layout, rng):
    # The Array API 2025.12 leaves these unspecified; NumPy drops a bound that limits nothing
    # (int8 with max=1000) and overflows on one that cannot be met (int8 with min=2**64).
    for dtype in (np.int8, np.uint8, np.int64, np.uint64):
        t, a = make_layout(layout, make_values((2, 3), dtype, rng), rng)
        for lo, hi in [(-1000, 5), (0, 1000), (-(2**70), 2**70), (None, 2**64), (-1, None)]:
            where = f"clip({np.dtype(dtype)}, {lo}, {hi})"
            check(EW_OPS_BY_NAME["clip"], strided.clip(t, lo, hi), np.clip(a, lo, hi), where)
        with pytest.raises(OverflowError):
            np.clip(a, 2**64, None)
        with pytest.raises(OverflowError):
            strided.clip(t, 2**64, None)


# ---------------------------------------------------------------------------------------------
# Python operators: binary, reflected, in-place, unary
# ---------------------------------------------------------------------------------------------

OPERATOR_ROWS = [op for op in BINARY if op.operator is not None]
DTYPE_PAIRS = [
    (np.int8, np.int8),
    (np.int16, np.uint8),
    (np.int32, np.float32),
    (np.float32, np.float64),
    (np.bool_, np.bool_),
    (np.uint8, np.uint8),
    (np.uint64, np.int64),
    (np.float64, np.complex64),
    (np.int64, np.bool_),
]


def _numpy_or_error(fn, *args):
    """(result, None) or (None, the exception NumPy raised)."""
    try:
        with np.errstate(all="ignore"), quiet():
            return fn(*args), None
    except (TypeError, ValueError, OverflowError) as e:
        return None, e


def _same_error(exc, fn, *args):
    base = exc.__class__
    for cls in (TypeError, ValueError, OverflowError):  # NumPy's UFuncTypeError is a TypeError
        if isinstance(exc, cls):
            base = cls
    with pytest.raises(base):
        with quiet():
            fn(*args)


# ``3 < t`` is ``t.__gt__(3)``: Python reflects a comparison into its mirror image
_REFLECTED = {
    "less": "greater",
    "less_equal": "greater_equal",
    "greater": "less",
    "greater_equal": "less_equal",
}


@pytest.mark.parametrize("op", OPERATOR_ROWS, ids=lambda op: op.name)
def test_binary_operators(op, rng):
    for d1, d2 in DTYPE_PAIRS:
        a1 = op.domains[0]((3, 4), d1, rng)
        a2 = op.domains[1]((4,), d2, rng)
        where = f"{op.name} operator on {np.dtype(d1)}, {np.dtype(d2)}"
        t1, t2 = strided.asarray(a1), strided.asarray(a2)
        cases = [("t op t", t1, t2, a1, a2)]
        for s in (3, 2.5, True):
            cases.append((f"t op {s!r}", t1, s, a1, s))
            cases.append((f"{s!r} op t (reflected)", s, t2, s, a2))
        cases.append(
            ("ndarray op t (NumPy's ufunc, run by Tensor.__array_ufunc__)", a1, t2, a1, a2)
        )
        for how, x, y, ax, ay in cases:
            here = f"{where}: {how}"
            exp, exc = _numpy_or_error(op.operator, ax, ay)
            common = np.result_type(ax, ay)
            if not supports(op, common):
                name = _REFLECTED.get(op.name, op.name) if "reflected" in how else op.name
                with pytest.raises(TypeError, match=rf"{name}.*{dtype_of(common).name}"):
                    op.operator(x, y)
            elif exc is not None:
                _same_error(exc, op.operator, x, y)
            else:
                with quiet():
                    got = op.operator(x, y)
                check(op, got, exp, here)


@pytest.mark.parametrize(
    "op", [o for o in OPERATOR_ROWS if o.inplace_operator], ids=lambda op: op.name
)
def test_inplace_operators(op, rng):
    for d1, d2 in DTYPE_PAIRS:
        a1 = op.domains[0]((3, 4), d1, rng)
        for y_np in (op.domains[1]((4,), d2, rng), 3, 2.5):
            y = strided.asarray(y_np) if isinstance(y_np, np.ndarray) else y_np
            t = strided.asarray(a1)
            before = np.asarray(t).copy()
            ident = id(t)
            where = f"{op.name} in place on {np.dtype(d1)} with {y_np!r}"
            exp, exc = _numpy_or_error(op.inplace_operator, a1.copy(), y_np)
            if exc is not None:
                _same_error(exc, op.inplace_operator, t, y)
                _unchanged(t, before, where)
                continue
            with quiet():
                t = op.inplace_operator(t, y)
            assert id(t) == ident, f"{where}: the operator made a new tensor"
            check(op, t, exp, where)
    # a result bigger than the target cannot be written in place (NumPy: ValueError too)
    t = strided.zeros(4)
    with pytest.raises(ValueError, match=r"out= has shape \(4,\).*\(3, 4\)"):
        op.inplace_operator(t, strided.ones((3, 4)))


UNARY_OPERATORS = [o for o in UNARY if o.operator is not None]


@pytest.mark.parametrize("op", UNARY_OPERATORS, ids=lambda op: op.name)
def test_unary_operators(op, rng):
    for dtype in ALL_DTYPES:
        a = op.domains[0]((2, 3), dtype, rng)
        t = strided.asarray(a)
        where = f"{op.name} operator on {dtype.name}"
        if dtype not in op.dtypes:
            with pytest.raises(TypeError, match=rf"{op.name}.*{dtype.name}"):
                op.operator(t)
            continue
        check(op, op.operator(t), op.operator(a), where)


# ---------------------------------------------------------------------------------------------
# Type promotion over all dtype pairs
# ---------------------------------------------------------------------------------------------


def test_result_type_matches_numpy_for_all_pairs():
    for d1 in ALL_DTYPES:
        for d2 in ALL_DTYPES:
            want = np.result_type(to_numpy_dtype(d1), to_numpy_dtype(d2))
            assert strided.result_type(d1, d2) is dtype_of(want), (d1, d2)
            assert strided.promote_types(d1, d2) is dtype_of(want), (d1, d2)


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.name)
def test_promotion_all_pairs(op):
    for d1 in ALL_DTYPES:
        for d2 in ALL_DTYPES:
            a1 = np.ones(1, to_numpy_dtype(d1))
            a2 = np.ones(1, to_numpy_dtype(d2))
            common = np.result_type(a1, a2)
            t1, t2 = strided.asarray(a1), strided.asarray(a2)
            where = f"{op.name}({d1.name}, {d2.name})"
            if not supports(op, common):
                with pytest.raises(TypeError, match=rf"{op.name}.*{dtype_of(common).name}"):
                    op.op(t1, t2)
                continue
            check(op, op.op(t1, t2), reference(op, a1, a2), where)


@pytest.mark.parametrize("op", UNARY, ids=lambda op: op.name)
def test_unary_dtypes(op):
    for dtype in ALL_DTYPES:
        a = np.ones(2, to_numpy_dtype(dtype))
        t = strided.asarray(a)
        if dtype not in op.dtypes:
            with pytest.raises(TypeError, match=rf"{op.name}.*{dtype.name}"):
                op.op(t)
            continue
        check(op, op.op(t), reference(op, a), f"{op.name}({dtype.name})")


def test_where_and_clip_promotion_all_pairs():
    c = np.array([True, False])
    where, clip = EW_OPS_BY_NAME["where"], EW_OPS_BY_NAME["clip"]
    for d1 in ALL_DTYPES:
        for d2 in ALL_DTYPES:
            a1 = np.ones(2, to_numpy_dtype(d1))
            a2 = np.zeros(2, to_numpy_dtype(d2))
            t1, t2 = strided.asarray(a1), strided.asarray(a2)
            here = f"({d1.name}, {d2.name})"
            got = strided.where(strided.asarray(c), t1, t2)
            check(where, got, np.where(c, a1, a2), f"where{here}")
            common = np.result_type(a1, a2)
            if supports(clip, common):
                check(clip, strided.clip(t1, t2), np.clip(a1, a2, None), f"clip{here}")
            else:
                with pytest.raises(TypeError, match=dtype_of(common).name):
                    strided.clip(t1, t2)


def _bits(a):
    """The bytes of each element of ``a`` (bfloat16 through its uint16 view)."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8).reshape(*a.shape, a.dtype.itemsize)


@pytest.mark.parametrize("dtype", [*ALL_DTYPES, *HALF_DTYPES], ids=lambda d: d.name)
def test_where_moves_the_bits_in_every_loop(dtype, rng):
    """where's loops per element size (Note [A branch-free where] in _cpu/binary.pyx.tp): each
    inner loop (both sides contiguous, a scalar on either side, strided, the digits CNN's
    window broadcast) at lengths around the vector widths, on every layout; the result is
    np.where's bit for bit (a NaN's payload, -0.0)."""
    dt = to_numpy_dtype(dtype)
    for n in (1, 3, 15, 16, 17, 31, 32, 33, 64, 65, 200):
        c = rng.random((3, n)) < 0.4
        a = make_values((3, n), dt, rng)
        b = make_values((3, n), dt, rng)
        cases = {
            "contiguous": (c, a, b),
            "scalar b": (c, a, b[:1, :1]),
            "scalar a": (c, a[:1, :1], b),
            "strided": (c[:, ::-1], a[:, ::2].repeat(2, axis=1)[:, :n], b.T.copy().T),
            "broadcast row": (c, a[:1], b[:, :1]),
        }
        for name, (cn, an, bn) in cases.items():
            got = strided.where(strided.asarray(cn), strided.asarray(an), strided.asarray(bn))
            want = np.where(cn, an, bn)
            assert got.dtype == dtype, name
            np.testing.assert_array_equal(_bits(got.numpy()), _bits(want), err_msg=f"{name} {n}")
    shape = (4, 2, 3, 2, 16)  # the max-pool backward's: a share broadcast over each window
    c = rng.random(shape) < 0.25
    share = make_values((4, 1, 3, 1, 16), dt, rng)
    zero = np.zeros((), dt)
    for args in ((c, share, zero), (c, zero, share)):
        got = strided.where(*(strided.asarray(x) for x in args))
        np.testing.assert_array_equal(_bits(got.numpy()), _bits(np.where(*args)))
    for layout in LAYOUTS:
        ref = make_values((5, 33), dt, rng)
        made = [make_layout(layout, x, rng) for x in (rng.random((5, 33)) < 0.5, ref, ref[::-1])]
        if any(m is None for m in made):
            continue
        (tc, ac), (ta, aa), (tb, ab) = made
        got = strided.where(tc, ta, tb)
        want = np.where(ac, aa, ab)
        np.testing.assert_array_equal(_bits(got.numpy()), _bits(want), err_msg=layout)


def test_float_functions_of_integers_follow_numpy():
    # Note [Float results of integer input] in _dtype.pyx: NumPy's per-input rule, checked on
    # the cases a common-dtype rule gets wrong, plus the default-float exceptions
    i8, u8 = np.array([1, 2], np.int8), np.array([3, 4], np.uint8)
    b, i16 = np.array([True, False]), np.array([5, 6], np.int16)
    cases = [
        (np.arctan2, strided.atan2, (i8, u8)),  # int16 in common, yet float16
        (np.hypot, strided.hypot, (b, i16)),
        (np.arctan2, strided.atan2, (b, 2)),  # a Python int lifts bools to int64: float64
        (np.logaddexp, strided.logaddexp, (u8, 2)),  # ... but leaves uint8 as it is
        (np.sqrt, strided.sqrt, (b,)),
        (np.exp, strided.exp, (i16,)),
        (np.nextafter, strided.nextafter, (i8, u8)),
        (np.divide, strided.divide, (i8, u8)),  # true division: float64 whatever the width
    ]
    for ref, fn, args in cases:
        want = ref(*args)
        got = fn(*[strided.asarray(a) if isinstance(a, np.ndarray) else a for a in args])
        assert np.asarray(got).dtype == want.dtype, (ref.__name__, args)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3)
    # names NumPy has no ufunc for give the default float, as SciPy's and PyTorch's do
    assert strided.erf(strided.asarray(i8)).dtype == strided.float64
    assert strided.sigmoid(strided.asarray(b)).dtype == strided.float64
    # the default float is where wide integers go, and only they
    strided.set_default_dtype(strided.float32)
    try:
        assert strided.sqrt(strided.arange(3)).dtype == strided.float32
        assert strided.sqrt(strided.asarray(i8)).dtype == strided.float16
        assert strided.erf(strided.asarray(i8)).dtype == strided.float32
    finally:
        strided.set_default_dtype(strided.float64)
    # the CUDA emulator makes the same choice (the rule lives in the iterator both share)
    x = strided.asarray(i8, device="cuda-emulated")
    assert strided.sin(x).dtype == strided.float16
    np.testing.assert_allclose(np.asarray(strided.sin(x).cpu()), np.sin(i8), rtol=1e-3)
