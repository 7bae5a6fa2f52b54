"""dtypes and promotion (strided/_dtype.pyx), with NumPy 2 (NEP 50) as the oracle."""

import itertools
import pickle

import numpy as np
import pytest

import strided
from strided._dtype import all_dtypes

DTYPES = all_dtypes()
NAMES = [d.name for d in DTYPES]
# NumPy is the oracle for every dtype it has; bfloat16 is not one of them (ml_dtypes adds it to
# NumPy, with promotion rules of its own that treat it as a non-float: it is checked against
# PyTorch and its own table below, Note [Promoting the half types] in _dtype.pyx).
NUMPY_NAMES = [n for n in NAMES if n != "bfloat16"]


def test_table_facts():
    for d in DTYPES:
        assert getattr(strided, d.name) is d
        if d.name == "bfloat16":
            assert (d.kind, d.itemsize, d.format) == ("f", 2, "")
            continue
        assert d.itemsize == np.dtype(d.name).itemsize
        assert d.numpy == np.dtype(d.name)
        assert d.kind == np.dtype(d.name).kind
        assert isinstance(d.c_type, str) and isinstance(d.cuda_type, str)
    assert strided.bool.c_type == "unsigned char"
    assert strided.complex64.cuda_type == "complex64_t"  # as strided/cuda/kernels spell it


def test_dtype_equality_and_hash():
    assert strided.float32 == "float32"
    assert strided.float32 == np.float32
    assert strided.float32 == np.dtype("float32")
    assert strided.float32 != strided.float64
    assert strided.float32 != "float64"
    assert {strided.int8: 1}[strided.int8] == 1
    assert pickle.loads(pickle.dumps(strided.uint16)) is strided.uint16
    # NumPy takes strided's dtypes for its own
    assert np.dtype(strided.float32) == np.float32 and np.dtype(strided.bool) == np.bool_
    assert np.zeros(2, dtype=strided.int16).dtype == np.int16
    assert np.result_type(strided.float32, np.float64) == np.float64
    # anything that is not a dtype is unequal, never an error
    for other in ({"a": "b"}, {}, [1, 2], None, object(), 3.5, "not a dtype"):
        assert not (strided.float32 == other) and strided.float32 != other
    # not even float64 == None, which NumPy says is True (np.dtype(None) is float64): a dtype
    # equal to None broke ``table.get(key) == dtype`` in the Array API suite's can_cast test
    assert np.dtype("float64") == None  # noqa: E711 - the comparison under test
    assert not (strided.float64 == None) and strided.float64 != None  # noqa: E711
    assert not (None == strided.float64) and None != strided.float64  # noqa: E711


class _RaisingDtype:
    @property
    def dtype(self):
        raise RuntimeError("not today")


@pytest.mark.parametrize("d", [d for d in DTYPES if d.name in NUMPY_NAMES], ids=NUMPY_NAMES)
def test_dtype_hash_agrees_with_numpy_equality(d):
    # Note [DType equality and hash]: equal to what its NumPy dtype equals, both ways round
    npd = np.dtype(d.name)
    for other in (npd, npd.type, npd.str, npd.char, d.name):
        assert d == other and other == d and not (d != other), other
    assert hash(d) == hash(npd)
    assert {npd: "x"}[d] == "x" and {d: "y"}[npd] == "y"
    assert len({d, npd}) == 1
    # anything else is unequal, and comparing never raises
    for other in (_RaisingDtype(), strided.zeros(1, dtype=d), (d,), {d: d}, b"zz", 1j):
        assert not (d == other) and d != other
    assert (d == strided.float64) is (d is strided.float64)
    assert (d == "float64") is (d is strided.float64)


@pytest.mark.parametrize("a,b", list(itertools.product(NUMPY_NAMES, NUMPY_NAMES)))
def test_promote_types_matches_numpy(a, b):
    expected = np.promote_types(a, b)
    assert strided.promote_types(a, b).numpy == expected


@pytest.mark.parametrize("other", NAMES)
def test_bfloat16_promotes_as_float16_does(other):
    # Note [Promoting the half types]: bfloat16 takes float16's places in the table (every int8
    # and uint8 fits in 8 significant bits as in 11), except with float16 itself, where the
    # smallest dtype holding both is float32 (PyTorch's answer)
    bf, f16 = strided.bfloat16, strided.float16
    got = strided.promote_types(bf, other)
    assert got is strided.promote_types(other, bf)
    if other in ("float16",):
        assert got is strided.float32
    elif other == "bfloat16":
        assert got is bf
    else:
        want = strided.promote_types(f16, other)
        assert got is (bf if want is f16 else want)


def test_half_promotion_agrees_with_pytorch_where_pytorch_is_value_safe():
    torch = pytest.importorskip("torch")
    for a, b in itertools.product(
        ["float16", "bfloat16"],
        [
            "bool",
            "int8",
            "uint8",
            "float16",
            "bfloat16",
            "float32",
            "float64",
            "complex64",
            "complex128",
        ],
    ):
        want = torch.promote_types(getattr(torch, a), getattr(torch, b))
        assert strided.promote_types(a, b).name == str(want).split(".")[1], (a, b)


@pytest.mark.parametrize("d", NUMPY_NAMES)
@pytest.mark.parametrize("scalar", [True, 1, -1, 1.5, 1.5j])
def test_result_type_weak_scalars_match_numpy(d, scalar):
    expected = np.result_type(np.zeros(1, d), scalar)
    assert strided.result_type(getattr(strided, d), scalar).numpy == expected


def test_result_type_many_and_tensors():
    x = strided.zeros(2, dtype="int8")
    assert strided.result_type(x, strided.uint8, 1) is strided.int16
    assert strided.result_type(1, 2.0) is strided.float64
    assert strided.result_type(True, False) is strided.bool
    with pytest.raises(ValueError, match="at least one"):
        strided.result_type()


def test_default_dtype_changes_scalar_promotion():
    strided.set_default_dtype(strided.float32)
    try:
        assert strided.get_default_dtype() is strided.float32
        assert strided.result_type(strided.int32, 1.5) is strided.float32
        assert strided.result_type(1.5j) is strided.complex64
    finally:
        strided.set_default_dtype(strided.float64)
    with pytest.raises(TypeError, match="float32 or float64"):
        strided.set_default_dtype(strided.int32)


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_can_cast_matches_numpy(casting):
    for a, b in itertools.product(NUMPY_NAMES, NUMPY_NAMES):
        assert strided.can_cast(a, b, casting=casting) == np.can_cast(a, b, casting=casting), (
            a,
            b,
            casting,
        )


def test_can_cast_accepts_tensors_and_rejects_bad_casting():
    assert strided.can_cast(strided.zeros(1, dtype="int8"), strided.int16)
    with pytest.raises(ValueError, match="casting must be one of"):
        strided.can_cast(strided.int8, strided.int16, casting="sometimes")


@pytest.mark.parametrize(
    "d", ["float16", "float32", "float64", "complex64", "complex128", "bfloat16"]
)
def test_finfo(d):
    f = strided.finfo(d)
    if d == "bfloat16":
        ref = pytest.importorskip("ml_dtypes").finfo(pytest.importorskip("ml_dtypes").bfloat16)
    else:
        ref = np.finfo(d)
    assert f.bits == ref.bits
    assert f.eps == float(ref.eps)
    assert f.max == float(ref.max) and f.min == float(ref.min)
    assert f.smallest_normal == float(ref.smallest_normal)
    assert f.resolution == float(ref.resolution) and f.precision == ref.precision
    assert f.dtype in (strided.float16, strided.float32, strided.float64, strided.bfloat16)


@pytest.mark.parametrize("d", [n for n in NAMES if n[0] in "iu"])
def test_iinfo(d):
    i = strided.iinfo(d)
    assert (i.bits, i.min, i.max) == (np.iinfo(d).bits, np.iinfo(d).min, np.iinfo(d).max)


def test_info_errors():
    with pytest.raises(TypeError, match="iinfo"):
        strided.finfo("int8")
    with pytest.raises(TypeError, match="finfo"):
        strided.iinfo("float32")


KINDS = {
    "bool": lambda k: k == "b",
    "signed integer": lambda k: k == "i",
    "unsigned integer": lambda k: k == "u",
    "integral": lambda k: k in "iu",
    "real floating": lambda k: k == "f",
    "complex floating": lambda k: k == "c",
    "numeric": lambda k: k in "iufc",
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_isdtype(kind):
    for d in DTYPES:
        assert strided.isdtype(d, kind) == KINDS[kind](d.kind)
    assert strided.isdtype(strided.int8, ("real floating", strided.int8))
    with pytest.raises(ValueError, match="unknown kind"):
        strided.isdtype(strided.int8, "integer-ish")


@pytest.mark.parametrize("name", ["foo", "object", "datetime64", "float128"])
def test_unsupported_dtype_names(name):
    with pytest.raises(TypeError, match="not supported by strided; use one of"):
        strided.zeros(2, dtype=name)


def test_python_types_as_dtypes():
    assert strided.zeros(1, dtype=float).dtype is strided.float64
    assert strided.zeros(1, dtype=int).dtype is strided.int64
    assert strided.zeros(1, dtype=bool).dtype is strided.bool
    assert strided.zeros(1, dtype=complex).dtype is strided.complex128


def test_namespace_info():
    info = strided.__array_namespace_info__()
    assert info.default_dtypes()["real floating"] is strided.float64
    assert set(info.dtypes(kind="integral")) == {n for n in NAMES if n[0] in "iu"}
    assert info.default_device() == "cpu"
    assert strided.__array_api_version__ == "2025.12"
