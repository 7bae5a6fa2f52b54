"""The one dtype table (Note [The dtype table] in strided/_dtype_table.py): every DType, the
CUDA type names and the generated kernels follow its rows, and every kernel family covers every
dtype the table says it should, so that a new row is caught here wherever a switch lacks it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import strided
from strided import _dtype_table
from strided._cpu import binary as _binary
from strided._cpu import reduce as _reduce
from strided._cpu import unary as _unary
from strided.cuda import _launch

ROWS = _dtype_table.ROWS
NATIVE = _dtype_table.NATIVE_ROWS  # Note [Half precision rows]: the fused lists take these
ALL = [strided._dtype.as_dtype(r.name) for r in ROWS]
HALF_NAMES = ("float16", "bfloat16")


def _np(d):
    """The NumPy dtype of the oracle: float16 is NumPy's own; bfloat16 is ml_dtypes' (the tests
    that need it skip without it)."""
    if d.numpy is None:
        pytest.skip("bfloat16 needs the ml_dtypes package as its NumPy oracle")
    return d.numpy


def _values(d, n=5):
    """n distinct-ish values of dtype ``d`` as a NumPy array (small, so any op is defined)."""
    a = np.array([3, 1, 2, 0, 1, 4, 2][:n])
    if d.kind == "b":
        return (a % 2).astype(bool)
    if d.kind == "c":
        return (a + 1j * a[::-1]).astype(d.numpy)
    return a.astype(_np(d))


def test_every_row_is_one_dtype_in_table_order():
    assert len({r.name for r in ROWS}) == len(ROWS) == len({r.code for r in ROWS})
    for index, row in enumerate(ROWS):
        d = strided._dtype.as_dtype(row.name)
        assert d.num == index, row
        assert (d.name, d.kind, d.itemsize, d.c_type, d.cuda_type, d.format) == (
            row.name,
            row.kind,
            row.itemsize,
            row.c_type,
            row.cuda,
            row.format,
        )
        if row.name != "bfloat16":  # NumPy has none (ml_dtypes' kind is "V")
            assert np.dtype(row.name).itemsize == row.itemsize
            assert np.dtype(row.name).kind == row.kind
    # CUDA spells every row; its arithmetic kernels take the native rows, the halves go through
    # float32 there (Note [CUDA half precision through float32] in strided/cuda/_half.py)
    assert _launch.C_TYPES == {r.name: r.cuda for r in ROWS}
    assert _launch.NATIVE == tuple(r.name for r in NATIVE)
    assert _launch.HALVES == HALF_NAMES
    # the templates' rows: every row whose kernel type does its own arithmetic, and the halves
    assert _dtype_table.DTYPES == tuple((r.code, r.name, r.kernel, r.kind) for r in NATIVE)
    assert [r.name for r in ROWS if r not in NATIVE] == list(HALF_NAMES)
    assert _dtype_table.HALVES == (
        ("kFloat16", "float16", "f16"),
        ("kBFloat16", "bfloat16", "bf16"),
    )
    assert [r.code for r in ROWS[-2:]] == ["kFloat16", "kBFloat16"]  # last: old codes kept


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_the_copy_family_covers_every_dtype(d):
    # the casting copy (every source to every destination), the same-dtype copy and fill
    a = _values(d)
    t = strided.asarray(a)
    np.testing.assert_array_equal(np.asarray(t[::-1].contiguous()), a[::-1])
    np.testing.assert_array_equal(np.asarray(strided.full((3,), a[1], dtype=d)), np.full(3, a[1]))
    for target in ALL:
        if d.kind == "c" and target.kind != "c":
            continue  # NumPy warns and drops the imaginary part; strided refuses or agrees
        got = np.asarray(t.astype(target))
        np.testing.assert_array_equal(got, a.astype(_np(target)), err_msg=f"{d} -> {target}")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log(0) and friends: values do not matter
@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_the_generated_families_cover_every_dtype_their_kinds_claim(d):
    # binary, unary and reductions: each op has a loop for every dtype of its kinds
    a = strided.asarray(_values(d))
    b = strided.asarray(_values(d)[::-1].copy())
    for name, (_, kinds) in _binary.OPS.items():
        if d.kind in kinds and hasattr(strided, name):
            getattr(strided, name)(a, b)
    for name, (_, kinds) in _unary.OPS.items():
        if d.kind in kinds and hasattr(strided, name):
            getattr(strided, name)(a)
    for name in _reduce.OPS:
        if hasattr(strided, name):
            try:
                getattr(strided, name)(a)
            except TypeError as e:  # a reduction that refuses this kind says so by name
                assert d.name in str(e) or "complex" in str(e) or "bool" in str(e), (name, e)


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_the_hand_written_families_cover_every_dtype(d):
    # sorting, selection, search, unique, indexing and scans switch on every ScalarType
    a = _values(d)
    t = strided.asarray(a)
    np.testing.assert_array_equal(np.asarray(strided.sort(t)), np.sort(a))
    np.testing.assert_array_equal(np.asarray(strided.unique_values(t)), np.unique(a))
    sorted_ = np.sort(a)
    got = strided.searchsorted(strided.asarray(sorted_), t)  # complex: NumPy's sort order
    np.testing.assert_array_equal(np.asarray(got), np.searchsorted(sorted_, a))
    idx = np.array([4, 0, 2])
    np.testing.assert_array_equal(np.asarray(strided.take(t, strided.asarray(idx))), a[idx])
    np.testing.assert_array_equal(np.asarray(t[t != 0]), a[a != 0])
    if d.kind != "b":
        np.testing.assert_array_equal(np.asarray(strided.cumsum(t)), np.cumsum(a))
        if d.kind != "c":
            got = strided.topk(t, 2)
            np.testing.assert_array_equal(np.asarray(got.values), np.sort(a)[::-1][:2])


# --- the fused types (strided/_fused.pxd.tp) --------------------------------------------------

STRIDED = Path(strided.__file__).parent
FUSED_BLOCK = re.compile(r"^ctypedef fused (\w+):\n((?:[ \t]+\S.*\n|[ \t]*#.*\n)+)", re.M)


def _fused_lists(text):
    """{name: [member C types]} of every ``ctypedef fused`` block in a Cython source."""
    out = {}
    for name, body in FUSED_BLOCK.findall(text):
        members = [line.split("#")[0].strip() for line in body.splitlines()]
        out[name] = [m for m in members if m]
    return out


def _kernels(kinds, min_itemsize=0):
    return [r.kernel for r in NATIVE if r.kind in kinds and r.itemsize >= min_itemsize]


def test_the_fused_lists_are_the_rows_their_kinds_name():
    # each list of the rendered _fused.pxd, derived again here from the rows, independently of
    # the template's own code; a new list must be added here too
    unsigned_of = {r.itemsize: r.kernel for r in NATIVE if r.kind == "u"}
    widths = sorted({r.itemsize for r in NATIVE})
    expected = {
        "signed_t": _kernels("i"),
        "unsigned_t": _kernels("u"),
        "integer_t": _kernels("iu"),
        "real_t": _kernels("f"),
        "complex_t": _kernels("c"),
        "number_t": _kernels("iufc"),
        "word_t": [unsigned_of.get(w, f"word{8 * w}") for w in widths],
        "element_t": _kernels("ufc"),
        "minmax_t": [max((r for r in NATIVE if r.kind == "i"), key=lambda r: r.itemsize).kernel]
        + _kernels("f"),
        "matmul_acc_t": _kernels("b") + _kernels("u", 4),
    }
    assert _fused_lists((STRIDED / "_fused.pxd").read_text()) == expected


def test_no_module_spells_a_list_of_dtypes_out():
    # a fused type whose members are all kernel types of the table belongs in _fused.pxd.tp
    # (or in a template's loop over the rows); rendered files are checked through their .tp
    dtype_types = {r.kernel for r in ROWS} | {r.c_type for r in ROWS}
    hand_written = []
    for path in sorted(STRIDED.rglob("*")):
        if path.suffix not in (".pyx", ".pxd", ".tp", ".pxi"):
            continue
        if path.with_name(path.name + ".tp").exists():
            continue  # rendered from a template: its lists come from the rows
        for name, members in _fused_lists(path.read_text()).items():
            if members and set(members) <= dtype_types:
                hand_written.append(f"{path.relative_to(STRIDED)}: {name}")
    assert hand_written == []


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_the_random_family_covers_every_dtype_of_its_kinds(d):
    # integers for bool and the integers, uniform and normal for the floating and complex rows;
    # every other dtype is refused by name
    from strided._cpu import random as _random

    if d.name == "bfloat16":
        _np(d)
    out = strided.empty((1000,), dtype=d)
    if d.kind in "biu":
        _random.integers_fill(out, 7, 0, 0, 2)
        got = np.asarray(out)
        assert set(np.unique(got).tolist()) == {0, 1}, d
    else:
        with pytest.raises(TypeError, match=d.name):
            _random.integers_fill(out, 7, 0, 0, 2)
    for fill, args in ((_random.uniform_fill, (0.0, 1.0)), (_random.normal_fill, (0.0, 1.0))):
        if d.kind in "fc":
            fill(out, 7, 0, *args)
            got = np.asarray(out)
            assert np.isfinite(got).all() and got.std() > 0.1, (d, fill)
            if d.kind == "c":
                assert got.imag.std() > 0.1, (d, fill)
        else:
            with pytest.raises(TypeError, match=d.name):
                fill(out, 7, 0, *args)
