"""The contiguous elementwise kernels' two loops, on every CUDA device this machine can use.

A contiguous unary, binary or where kernel loads and stores whole vectors of up to 16 bytes
when every operand in memory starts at a multiple of its vector's size, and one element at a
time otherwise (Note [Vector loads in the contiguous elementwise loops] in
strided/cuda/kernels/elementwise.cu). Both loops must give the CPU's bits: here every dtype
runs at lengths around a vector's (0, 1, 7, 8, 9, 4096 + 3) on views that start at element 0
(the vector loop and its tail) and at element 1 (the element loop), with Python scalars on
either side and ``out=`` into a view that starts one element in. The CPU is the oracle (its
own tests compare it with NumPy), and NumPy is checked too where it has the dtype. A strided
binary op with one input transposed against the output goes through a shared tile (Note [A
binary op with a transposed input through a shared tile]): every dtype, either input, scalars,
broadcasts, ``out=`` and the edges of the tiles, against the CPU's bits too.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from devices import DEVICES, NVRTC_ONLY, on
from layouts import make_values

import strided
from strided import _views
from strided.cuda import _elementwise

DTYPES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "uint8",
    "int32",
    "int64",
    "bool",
    "complex64",
    "complex128",
)
LENGTHS = (0, 1, 7, 8, 9, 4096 + 3)
OFFSETS = (0, 1)
UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}


def _raw(t):
    """A tensor's elements as unsigned ints (on the CPU, contiguous): comparing them compares
    bits."""
    t = t.cpu().contiguous()
    if t.dtype.name in ("float16", "bfloat16"):
        return np.asarray(_views.bits_view(t))
    a = np.asarray(t)
    return a.view(np.uint8) if a.dtype == bool else a.view(UINT_OF[a.itemsize])


def assert_same_bits(got, want):
    assert got.dtype is want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(_raw(got), _raw(want))


def _view(n, offset, dtype, rng):
    """A CPU tensor of ``n`` finite values of ``dtype`` starting ``offset`` elements into its
    storage; integers small enough that a sum or a negation stays in range (a signed overflow
    is undefined behaviour in C++, which STRIDED_EMULATOR_UBSAN=1 reports)."""
    if dtype in ("int8", "uint8", "int32", "int64"):
        values = rng.integers(0 if dtype == "uint8" else -60, 61, n + offset).astype(dtype)
    elif dtype in ("bool", "complex64", "complex128"):
        values = make_values((n + offset,), np.dtype(dtype), rng, cast_safe=True)
    else:
        values = make_values((n + offset,), strided.float32, rng, cast_safe=True)
    return strided.asarray(values).astype(dtype)[offset:]


def _numpy_agrees(got, dtype, ref):
    """NumPy's answer, where NumPy has the dtype."""
    if dtype not in ("float16", "bfloat16"):
        np.testing.assert_array_equal(np.asarray(got.cpu()), ref)


def _negate(x, out=None):
    if x.dtype.name == "bool":
        return strided.logical_not(x, out=out)
    return strided.negative(x, out=out)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_both_contiguous_loops_give_the_cpus_bits(device, dtype, rng):
    for n in LENGTHS:
        for off_a in OFFSETS:
            for off_b in OFFSETS:
                a, b = _view(n, off_a, dtype, rng), _view(n, off_b, dtype, rng)
                da, db = on(device, a), on(device, b)
                where = f"n={n} offsets=({off_a}, {off_b})"
                got = strided.add(da, db)
                assert got.device.type == da.device.type, where
                assert_same_bits(got, strided.add(a, b))
                _numpy_agrees(got, dtype, np.add(np.asarray(a), np.asarray(b)))
                assert_same_bits(strided.less(da, db), strided.less(a, b))
                assert_same_bits(_negate(da), _negate(a))
                cond = on(device, _view(n, off_b, "bool", rng))
                got = strided.where(cond, da, db)
                assert_same_bits(got, strided.where(cond.cpu(), a, b))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_scalars_on_either_side_and_out_into_a_misaligned_view(device, dtype, rng):
    scalar = True if dtype == "bool" else (3 if dtype[0] in "iu" else 2.5)
    for n in LENGTHS:
        for off in OFFSETS:
            a = _view(n, off, dtype, rng)
            da = on(device, a)
            assert_same_bits(strided.add(da, scalar), strided.add(a, scalar))
            assert_same_bits(strided.add(scalar, da), strided.add(scalar, a))
            assert_same_bits(strided.less(scalar, da), strided.less(scalar, a))
            cond = _view(n, 1 - off, "bool", rng)
            assert_same_bits(
                strided.where(on(device, cond), scalar, da), strided.where(cond, scalar, a)
            )
            assert_same_bits(
                strided.where(on(device, cond), da, scalar), strided.where(cond, a, scalar)
            )
            for out_off in OFFSETS:
                out = on(device, strided.zeros(n + out_off, dtype=dtype))[out_off:]
                result = strided.add(da, da, out=out)
                assert result.data_ptr() == out.data_ptr()
                assert_same_bits(out, strided.add(a, a))
                neg = on(device, strided.zeros(n + out_off, dtype=dtype))[out_off:]
                _negate(da, out=neg)
                assert_same_bits(neg, _negate(a))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ("float16", "float32", "float64", "int8", "complex64"))
def test_the_vector_loop_steps_through_a_grid_smaller_than_the_work(
    device, dtype, rng, monkeypatch
):
    """A grid of fewer threads than vectors: each thread takes several trips (the loops are
    grid-stride loops, any grid is correct)."""
    a, b = _view(4096 * 3 + 5, 0, dtype, rng), _view(4096 * 3 + 5, 0, dtype, rng)
    da, db = on(device, a), on(device, b)
    strided.add(da, db)  # makes the launches
    strided.negative(da)
    for launch in _elementwise._LAUNCHES.values():
        monkeypatch.setattr(launch, "contiguous_per_block", 256 * 64)
    assert_same_bits(strided.add(da, db), strided.add(a, b))
    assert_same_bits(strided.negative(da), strided.negative(a))


def test_vector_widths_match_the_kernels():
    """The host's grid assumes the kernel's vector width: 16 bytes, at most 8 elements, none
    for 16-byte elements."""
    assert [_elementwise.vector_width(s) for s in (1, 2, 4, 8, 16)] == [8, 8, 4, 2, 1]


@NVRTC_ONLY
@pytest.mark.parametrize(
    "name, vector_load",
    [
        ("strided_binary<half_op<op_add>, half_t, half_t, int32_t, true>", "ld.global.v4.u32"),
        (
            "strided_binary<half_op<op_add>, bfloat16_t, bfloat16_t, int64_t, true>",
            "ld.global.v4.u32",
        ),
        ("strided_unary<half_op<op_exp>, half_t, half_t, int32_t, true>", "ld.global.v4.u32"),
        ("strided_binary<op_add, float, float, int32_t, true>", "ld.global.v4.f32"),
        ("strided_binary<op_less, double, bool_t, int32_t, true>", "ld.global.v2.f64"),
        ("strided_where<half_t, int32_t, true>", "ld.global.v4.u32"),
    ],
)
def test_the_contiguous_kernels_load_16_byte_vectors_for_sm90(name, vector_load):
    """NVRTC's PTX for sm_90 has the vector loads, and a float16 op widens and rounds with the
    hardware's conversions (Note [Hardware half conversions in the arithmetic kernels])."""
    from strided.cuda import compile_check

    family = name[len("strided_") : name.index("<")]
    assert any(name in names for key, _, names in _elementwise.all_modules() if key[0] == family), (
        "not an instantiation the runtime compiles"
    )
    ptx = compile_check.ptx("elementwise.cu", name)
    assert vector_load in ptx
    if "half_op" in name and "half_t," in name:
        assert "cvt.f32.f16" in ptx and "cvt.rn.f16.f32" in ptx


# (rows, columns) of ``a``: whole tiles and edges of them; the last has a side under half a
# tile, which keeps the element loop
TILE_SHAPES = ((50, 37), (33, 64), (16, 300), (100, 17), (8, 40))


def _matrix(shape, dtype, rng):
    return _view(shape[0] * shape[1], 0, dtype, rng).reshape(shape)


def _same_with_warnings(f, dargs, cargs, **kwargs):
    """``f`` on the device's and the CPU's arguments: the same bits, the same warnings (a
    device's, when the host next waits for it: Note [Flags from the GPU])."""
    with warnings.catch_warnings(record=True) as w_dev:
        warnings.simplefilter("always")
        got = f(*dargs, **{k: v for k, v in kwargs.items() if k != "cpu_out"}).cpu()
    with warnings.catch_warnings(record=True) as w_cpu:
        warnings.simplefilter("always")
        want = f(*cargs, **({"out": kwargs["cpu_out"]} if "cpu_out" in kwargs else {}))
    assert_same_bits(got, want)
    assert [type(w.message) for w in w_dev] == [type(w.message) for w in w_cpu]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_a_binary_op_with_a_transposed_input_gives_the_cpus_bits(device, dtype, rng):
    """Note [A binary op with a transposed input through a shared tile]: ``a + b.T`` and its
    kin, the transposed input first or second (``out=`` in ``a``'s layout puts the loop in
    it), reversed, against a scalar or a broadcast row, a comparison (a 1-byte result), an
    integer floor division by zero (the flag), and ``x + x.T`` into ``x`` (an overlap); the
    tiled kernel runs where both sides are at least 16 long and b's rows 32 bytes or more."""
    ops = [strided.add, strided.less]
    if dtype != "bool":
        ops.append(strided.subtract)
    if dtype[0] in "iu":
        ops.append(strided.floor_divide)
    scalar = True if dtype == "bool" else (3 if dtype[0] in "iu" else 2.5)
    for n0, n1 in TILE_SHAPES:
        a, b = _matrix((n0, n1), dtype, rng), _matrix((n1, n0), dtype, rng)
        row = _matrix((1, n1), dtype, rng)
        da, db, drow = on(device, a), on(device, b), on(device, row)
        pairs = [
            ((da, db.T), (a, b.T)),
            ((db.T, da), (b.T, a)),
            ((db[::-1].T, da), (b[::-1].T, a)),
            ((db.T, drow), (b.T, row)),
            ((scalar, db.T), (scalar, b.T)),
        ]
        with strided.cuda.trace_launches() as launches:
            strided.add(da, db.T)
        tiled = any("strided_binary_tiled<" in str(k) for k, *_ in launches)
        # b.T's columns are b's rows apart: a 32-byte segment at least, or the loop is
        # nearly coalesced already
        assert tiled == (min(n0, n1) >= 16 and n0 * a.itemsize >= 32), (n0, n1, launches)
        for op in ops:
            for dargs, cargs in pairs:
                _same_with_warnings(op, dargs, cargs)
                want = op(*cargs)
                out = on(device, strided.zeros((n0, n1), dtype=want.dtype))
                cpu_out = strided.zeros((n0, n1), dtype=want.dtype)
                _same_with_warnings(op, dargs[::-1], cargs[::-1], out=out, cpu_out=cpu_out)
                _same_with_warnings(op, dargs, cargs, out=out, cpu_out=cpu_out)
    x = _matrix((40, 40), dtype, rng)
    dx = on(device, x)
    strided.add(dx, dx.T, out=dx)
    strided.add(x, x.T, out=x)
    assert_same_bits(dx, x)
