"""Tests for strided/_ops/creation.py: where tensors come from. NumPy is the oracle for dtypes
and values; the Array API standard for ``copy=``."""

from __future__ import annotations

import array
import math

import numpy as np
import pytest
from layouts import ALL_DTYPES, make_values, to_numpy_dtype

import strided


def _np(t):
    return np.asarray(t)


def _shares(t, arr):
    """Whether tensor ``t`` and NumPy array ``arr`` view the same memory."""
    return np.shares_memory(_np(t), arr)


# =============================================================================================
# asarray from Python data
# =============================================================================================

NESTED = [
    True,
    [True, False],
    3,
    -7,
    [1, 2, 3],
    [[1, -2], [3, 4]],
    2.5,
    [0.5, -1.25],
    [[1.0, 2.0]],
    1j,
    [1 + 2j, -3j],
    [1, 2.5],  # mixed: int and float
    [True, 2],  # mixed: bool and int
    [1, 2.0, 3j],  # mixed: all three
    [[[1], [2]], [[3], [4]]],
    [],
    [[], []],
    (1, 2),  # tuples too
    [(1, 2), [3, 4]],
    [2**63],  # past int64: uint64, as NumPy
    [2**63, 1],  # NumPy 2 gives float64 here
    [-(2**63)],
]


@pytest.mark.parametrize("data", NESTED, ids=repr)
def test_asarray_nested_matches_numpy(data):
    t = strided.asarray(data)
    ref = np.asarray(data)
    assert t.shape == ref.shape
    assert t.dtype.numpy == ref.dtype
    np.testing.assert_array_equal(_np(t), ref, strict=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_asarray_dtype_argument(dtype):
    data = [[0, 1, 2], [3, 4, 5]]
    expected = np.asarray(data, dtype=to_numpy_dtype(dtype))
    for spelled in (dtype, dtype.name, to_numpy_dtype(dtype)):
        t = strided.asarray(data, dtype=spelled)
        assert t.dtype is dtype
        np.testing.assert_array_equal(_np(t), expected, strict=True)


def test_asarray_python_types_as_dtype():
    assert strided.asarray([1], dtype=float).dtype is strided.float64
    assert strided.asarray([1], dtype=int).dtype is strided.int64
    assert strided.asarray([1], dtype=bool).dtype is strided.bool
    assert strided.asarray([1], dtype=complex).dtype is strided.complex128


def test_asarray_scalars():
    for value, dtype in [
        (True, strided.bool),
        (5, strided.int64),
        (2.5, strided.float64),
        (1j, strided.complex128),
        (2**63, strided.uint64),
    ]:
        t = strided.asarray(value)
        assert t.shape == () and t.dtype is dtype
        assert t.item() == value
    t = strided.asarray(np.float32(1.5))
    assert t.dtype is strided.float32 and t.item() == 1.5
    assert strided.asarray(7, dtype="int8").dtype is strided.int8


def test_asarray_big_python_ints_as_numpy():
    assert strided.asarray(2**64 - 1).item() == 2**64 - 1
    for bad in (2**64, -(2**63) - 1, [2**64], [[1, 2**70]], [-(2**63) - 1]):
        with pytest.raises(OverflowError, match="does not fit in int64 or uint64"):
            strided.asarray(bad)


def test_asarray_zero_d_tensors_inside_lists():
    a, b = strided.asarray(1.5), strided.asarray(-2.0)
    t = strided.asarray([a, b, 3.0])
    np.testing.assert_array_equal(_np(t), [1.5, -2.0, 3.0])
    assert t.dtype is strided.float64
    assert t.untyped_storage() is not a.untyped_storage()
    rows = strided.asarray([strided.arange(3), strided.arange(3, 6)])
    np.testing.assert_array_equal(_np(rows), np.arange(6).reshape(2, 3))


@pytest.mark.parametrize(
    "data",
    [
        [[1, 2], [3]],
        [1, [2]],
        [[[1], [2]], [[3], [4, 5]]],
        [[1, 2], [3, [4]]],
    ],
    ids=repr,
)
def test_asarray_ragged_lists(data):
    with pytest.raises(ValueError, match="ragged"):
        strided.asarray(data)


def test_asarray_ragged_message_says_where():
    with pytest.raises(ValueError, match=r"items of \[1\] have different lengths \[1, 2\]"):
        strided.asarray([[[1], [2]], [[3], [4, 5]]])


def test_asarray_non_numbers():
    with pytest.raises(TypeError, match="strings are not numbers"):
        strided.asarray(["a", "b"])
    with pytest.raises(TypeError, match="not numbers"):
        strided.asarray([None, 1])
    with pytest.raises(TypeError, match="cannot make a tensor from a object"):
        strided.asarray(object())


# =============================================================================================
# asarray and copy= (Array API). See Note [asarray and copy=].
# =============================================================================================


def test_asarray_copy_of_a_tensor():
    x = strided.arange(4)
    assert strided.asarray(x) is x
    assert strided.asarray(x, copy=False) is x
    c = strided.asarray(x, copy=True)
    assert c.untyped_storage() is not x.untyped_storage()
    np.testing.assert_array_equal(_np(c), _np(x))
    converted = strided.asarray(x, dtype="float32")
    assert converted.dtype is strided.float32
    with pytest.raises(ValueError, match="converting int64 to float32 needs a copy.*copy=False"):
        strided.asarray(x, dtype="float32", copy=False)
    assert strided.asarray(x, dtype="int64", copy=False) is x


def test_asarray_copy_of_a_list():
    assert strided.asarray([1, 2], copy=True).shape == (2,)
    assert strided.asarray([1, 2], copy=None).shape == (2,)
    with pytest.raises(ValueError, match="nested sequence cannot be viewed without a copy"):
        strided.asarray([1, 2], copy=False)
    with pytest.raises(ValueError, match="Python scalar cannot be viewed without a copy"):
        strided.asarray(1.5, copy=False)


def test_asarray_copy_must_be_bool_or_none():
    with pytest.raises(ValueError, match="copy must be True, False or None"):
        strided.asarray([1], copy="yes")


@pytest.mark.parametrize("copy", [None, False])
def test_asarray_numpy_shares_memory(copy):
    a = np.arange(6.0).reshape(2, 3)
    t = strided.asarray(a, copy=copy)
    assert _shares(t, a)
    a[0, 1] = 100.0  # NumPy -> strided
    assert t[0, 1].item() == 100.0
    t[1, 2] = -5.0  # strided -> NumPy
    assert a[1, 2] == -5.0


def test_asarray_numpy_copy_true_is_independent():
    a = np.arange(6.0)
    t = strided.asarray(a, copy=True)
    assert not _shares(t, a)
    a[0] = 100.0
    assert t[0].item() == 0.0


def test_asarray_numpy_dtype_conversion():
    a = np.arange(4, dtype=np.int32)
    t = strided.asarray(a, dtype="float64")
    assert t.dtype is strided.float64 and not _shares(t, a)
    np.testing.assert_array_equal(_np(t), a.astype(np.float64))
    with pytest.raises(ValueError, match="converting NumPy int32 to float64 needs a copy"):
        strided.asarray(a, dtype="float64", copy=False)


def test_asarray_numpy_non_native_byte_order():
    a = np.arange(4, dtype=">i4")
    with pytest.raises(TypeError, match=r"NumPy dtype >i4 is not supported; pass dtype="):
        strided.asarray(a)
    t = strided.asarray(a, dtype="int32")
    assert t.dtype is strided.int32
    np.testing.assert_array_equal(_np(t), [0, 1, 2, 3])
    with pytest.raises(ValueError, match="needs a conversion copy"):
        strided.asarray(a, copy=False)
    with pytest.raises(TypeError, match="non-native byte order"):
        strided.from_numpy(a)


def test_asarray_numpy_unsupported_dtype():
    with pytest.raises(TypeError, match="float128 is not supported"):
        strided.asarray(np.zeros(3, np.longdouble))
    t = strided.asarray(np.ones(3, np.longdouble), dtype="float32")
    np.testing.assert_array_equal(_np(t), np.ones(3, np.float32))


def test_asarray_misaligned_numpy_array_is_copied():
    # The address is odd, so int16 elements cannot be shared through element strides.
    a = np.zeros(9, np.uint8)[1:].view(np.int16)
    a[:] = [1, -2, 3, 4]
    t = strided.asarray(a)
    np.testing.assert_array_equal(_np(t), [1, -2, 3, 4])
    with pytest.raises(ValueError, match="not aligned for"):
        strided.asarray(a, copy=False)


def test_asarray_numpy_negative_strides_shared():
    a = np.arange(12.0).reshape(3, 4)[::-1, ::2]
    t = strided.asarray(a)
    assert t.stride() == (-4, 2)
    assert _shares(t, a)
    np.testing.assert_array_equal(_np(t), a)


# =============================================================================================
# asarray from buffers
# =============================================================================================


def test_asarray_bytes_is_read_only():
    data = b"\x01\x02\x03\x04"
    t = strided.asarray(data)
    assert t.dtype is strided.uint8 and t.shape == (4,)
    np.testing.assert_array_equal(_np(t), [1, 2, 3, 4])
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 9
    with pytest.raises(ValueError, match="read-only"):
        t.fill_(0)
    with pytest.raises(ValueError, match="read-only"):
        t.copy_(strided.zeros(4, dtype="uint8"))
    assert memoryview(t).readonly
    assert data == b"\x01\x02\x03\x04"


def test_asarray_bytearray_and_memoryview_share():
    buf = bytearray(b"\x00" * 8)
    t = strided.asarray(buf)
    t[1] = 7
    assert buf[1] == 7
    m = memoryview(buf).cast("i")
    t32 = strided.asarray(m)
    assert t32.dtype is strided.int32 and t32.shape == (2,)
    t32[1] = -1
    assert buf[4:] == b"\xff\xff\xff\xff"


def test_asarray_array_array_shares():
    aa = array.array("d", [1.0, 2.0, 3.0])
    t = strided.asarray(aa)
    assert t.dtype is strided.float64
    t[0] = 9.0
    assert aa[0] == 9.0
    c = strided.asarray(aa, copy=True)
    c[1] = -1.0
    assert aa[1] == 2.0


def test_asarray_object_with_array_interface():
    class HasArray:
        def __array__(self, dtype=None, copy=None):
            return np.arange(3, dtype=np.int16)

    t = strided.asarray(HasArray())
    assert t.dtype is strided.int16
    np.testing.assert_array_equal(_np(t), [0, 1, 2])


def test_asarray_device():
    assert strided.asarray([1], device="cpu").device == "cpu"
    if not strided.cuda.is_available():
        with pytest.raises(strided.cuda.CudaUnavailableError, match="cuda-emulated"):
            strided.asarray([1], device="cuda")
    assert strided.asarray([1], device="cuda-emulated").device == "cuda-emulated:0"
    with pytest.raises(ValueError, match="unknown device"):
        strided.asarray([1], device="tpu")


# =============================================================================================
# tensor()
# =============================================================================================


def test_tensor_always_copies():
    a = np.arange(3.0)
    t = strided.tensor(a)
    assert not _shares(t, a)
    x = strided.arange(3)
    assert strided.tensor(x).untyped_storage() is not x.untyped_storage()
    assert strided.tensor([[1, 2]], dtype="int8").dtype is strided.int8
    assert strided.tensor(1.5, requires_grad=True).requires_grad
    assert not strided.tensor(1.5).requires_grad


# =============================================================================================
# empty, zeros, ones, full and their _like twins
# =============================================================================================


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_zeros_ones_full_every_dtype(dtype):
    nd = to_numpy_dtype(dtype)
    for shape in [(), (0,), (3,), (2, 0, 3), (2, 3)]:
        for made, ref in [
            (strided.zeros(shape, dtype=dtype), np.zeros(shape, nd)),
            (strided.ones(shape, dtype=dtype), np.ones(shape, nd)),
            (strided.full(shape, 1, dtype=dtype), np.full(shape, 1, nd)),
        ]:
            assert made.dtype is dtype and made.shape == shape
            assert made.is_contiguous()
            np.testing.assert_array_equal(_np(made), ref, strict=True)
        e = strided.empty(shape, dtype=dtype)
        assert e.shape == shape and e.dtype is dtype and e.is_contiguous()


def test_shape_spellings():
    for make in (strided.zeros, strided.ones, strided.empty):
        assert make(2, 3).shape == (2, 3)
        assert make((2, 3)).shape == (2, 3)
        assert make([2, 3]).shape == (2, 3)
        assert make(4).shape == (4,)
        assert make(()).shape == ()
        assert make(np.int64(3)).shape == (3,)
    assert strided.full(3, 1.0).shape == (3,)


def test_shape_by_keyword_and_numpys_positional_dtype():
    # See Note [shape, three ways]: the Array API's keyword (scikit-learn's PolynomialFeatures
    # calls empty(shape=...)), PyTorch's separate sizes and NumPy's dtype as the 2nd argument.
    for name in ("zeros", "ones", "empty"):
        make, ref = getattr(strided, name), getattr(np, name)
        for args, kwargs in [
            ((), {"shape": (2, 3)}),
            ((), {"shape": 4, "dtype": "int32"}),
            (((2, 3), "int8"), {}),
            ((3, np.float32), {}),
            ((2, strided.complex64), {}),
        ]:
            got, want = make(*args, **kwargs), ref(*args, **kwargs)
            assert got.shape == want.shape and got.dtype == want.dtype, (name, args, kwargs)
            if name != "empty":
                np.testing.assert_array_equal(_np(got), want)
        with pytest.raises(TypeError, match="not both; got \\(2, 3\\) and then \\(4,\\)"):
            make((2, 3), 4)
        with pytest.raises(TypeError, match="dtype given twice"):
            make(3, "int8", dtype="int16")
        with pytest.raises(TypeError, match="more integer sizes .* or one dtype"):
            make(3, "int8", "C")
    assert (
        strided.full(shape=(2,), fill_value=3).tolist()
        == np.full(shape=(2,), fill_value=3).tolist()
    )


def test_default_dtype_of_fresh_tensors():
    assert strided.zeros(2).dtype is strided.float64
    assert strided.ones(2).dtype is strided.float64
    assert strided.empty(2).dtype is strided.float64
    assert strided.eye(2).dtype is strided.float64


@pytest.mark.parametrize(
    "value,dtype",
    [
        (True, strided.bool),
        (7, strided.int64),
        (-1.5, strided.float64),
        (1 + 1j, strided.complex128),
        (np.int8(3), strided.int8),
        (np.float32(2), strided.float32),
        (2**63, strided.uint64),
    ],
)
def test_full_infers_dtype_from_value(value, dtype):
    t = strided.full((2, 2), value)
    assert t.dtype is dtype
    np.testing.assert_array_equal(_np(t), np.full((2, 2), value, to_numpy_dtype(dtype)))


def test_full_from_a_0d_tensor():
    t = strided.full((3,), strided.asarray(2.5, dtype="float32"))
    assert t.dtype is strided.float32
    np.testing.assert_array_equal(_np(t), [2.5, 2.5, 2.5])


def test_full_value_checks():
    with pytest.raises(OverflowError, match="does not fit in dtype int8"):
        strided.full((2,), 300, dtype="int8")
    with pytest.raises(TypeError, match="complex value .* in a tensor of dtype float64"):
        strided.full((2,), 1j, dtype="float64")
    with pytest.raises(ValueError, match="must be a scalar or a 0-d tensor"):
        strided.full((2,), strided.ones(2))


def test_like_functions():
    x = strided.arange(6, dtype="int16").reshape(2, 3).T  # non-contiguous
    for make, value in [(strided.zeros_like, 0), (strided.ones_like, 1)]:
        t = make(x)
        assert t.shape == (3, 2) and t.dtype is strided.int16 and t.is_contiguous()
        np.testing.assert_array_equal(_np(t), np.full((3, 2), value, np.int16))
        assert make(x, dtype="float32").dtype is strided.float32
    f = strided.full_like(x, 9)
    np.testing.assert_array_equal(_np(f), np.full((3, 2), 9, np.int16), strict=True)
    assert strided.full_like(x, 2.5, dtype="float64").dtype is strided.float64
    e = strided.empty_like(x)
    assert e.shape == (3, 2) and e.dtype is strided.int16
    assert e.untyped_storage() is not x.untyped_storage()
    # NumPy arrays and lists work too, as the Array API's x may be any array
    assert strided.zeros_like(np.zeros((2, 2), np.uint8)).dtype is strided.uint8
    assert strided.ones_like([1.5, 2.5]).shape == (2,)


def test_zeros_of_a_large_tensor_is_zero():
    # Large buffers come from mmap (or the block cache): still all zeros.
    for _ in range(2):
        t = strided.zeros(3 * 1024 * 1024, dtype="uint8")
        assert not _np(t).any()
        t.fill_(1)
        del t


# =============================================================================================
# arange, linspace, eye
# =============================================================================================

ARANGE = [
    (5,),
    (0,),
    (-3,),
    (2, 9),
    (9, 2),
    (10, 0, -3),
    (0, 10, 3),
    (-5, 5, 2),
    (3, 3),
    (0.5, 2.0, 0.5),
    (0, 1, 0.1),
    (-5.5, 3, 0.7),
    (1.0, 0.0, -0.25),
    (2.5,),
    (0, 1, 2.0),
    (2**62, 2**62 + 5),
]


@pytest.mark.parametrize("args", ARANGE, ids=repr)
def test_arange_matches_numpy(args):
    t = strided.arange(*args)
    ref = np.arange(*args)
    assert t.dtype.numpy == ref.dtype
    assert t.shape == ref.shape
    # NumPy computes the step as (start + step) - start, strided uses step itself: the values
    # may differ in the last bits.
    np.testing.assert_allclose(_np(t), ref, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iuf"], ids=str)
def test_arange_dtype(dtype):
    t = strided.arange(1, 11, 3, dtype=dtype)
    np.testing.assert_array_equal(
        _np(t), np.arange(1, 11, 3, dtype=to_numpy_dtype(dtype)), strict=True
    )


def test_arange_errors():
    with pytest.raises(ValueError, match="step must not be zero"):
        strided.arange(0, 10, 0)
    with pytest.raises(TypeError, match="dtype bool is not supported"):
        strided.arange(3, dtype="bool")
    with pytest.raises(TypeError, match="dtype complex64 is not supported"):
        strided.arange(3, dtype="complex64")
    with pytest.raises(TypeError, match="start must be a real number"):
        strided.arange("3")
    with pytest.raises(OverflowError, match="exceed the int64 range"):
        strided.arange(2**63 - 2, 2**63 + 1)


def test_arange_accepts_0d_tensors_and_numpy_scalars():
    t = strided.arange(strided.asarray(4), np.int32(8))
    np.testing.assert_array_equal(_np(t), [4, 5, 6, 7])
    with pytest.raises(TypeError, match="must be a scalar"):
        strided.arange(strided.arange(3))


LINSPACE = [
    (0, 1, 5, True),
    (0, 1, 5, False),
    (-3, 7, 11, True),
    (1, 1, 3, True),
    (0, 1, 1, True),
    (0, 1, 1, False),
    (0, 1, 0, True),
    (2, -1, 7, False),
    (0, 1e10, 4, True),
]


@pytest.mark.parametrize("start,stop,num,endpoint", LINSPACE)
def test_linspace_matches_numpy(start, stop, num, endpoint):
    t = strided.linspace(start, stop, num, endpoint=endpoint)
    ref = np.linspace(start, stop, num, endpoint=endpoint)
    assert t.dtype is strided.float64 and t.shape == ref.shape
    np.testing.assert_allclose(_np(t), ref, rtol=1e-15, atol=0)
    if endpoint and num > 1:
        assert t[-1].item() == stop  # exactly, as NumPy guarantees
    if num:
        assert t[0].item() == start


def test_linspace_complex():
    t = strided.linspace(1 + 2j, -3j, 5)
    assert t.dtype is strided.complex128
    np.testing.assert_allclose(_np(t), np.linspace(1 + 2j, -3j, 5), rtol=1e-15)
    t = strided.linspace(0, 1, 4, dtype="complex64", endpoint=False)
    np.testing.assert_array_equal(
        _np(t), np.linspace(0, 1, 4, dtype="complex64", endpoint=False), strict=True
    )


@pytest.mark.parametrize("dtype", ["int64", "int8", "int32", "float32"])
def test_linspace_other_dtypes(dtype):
    # NumPy 2 rounds toward -inf for integer dtypes.
    t = strided.linspace(-3.5, 7, 9, dtype=dtype)
    np.testing.assert_array_equal(_np(t), np.linspace(-3.5, 7, 9, dtype=dtype), strict=True)


def test_linspace_unsigned_dtype():
    t = strided.linspace(0, 200, 9, dtype="uint8")
    np.testing.assert_array_equal(_np(t), np.linspace(0, 200, 9, dtype="uint8"), strict=True)


def test_linspace_errors():
    with pytest.raises(ValueError, match="num must be >= 0, got -1"):
        strided.linspace(0, 1, -1)
    with pytest.raises(TypeError):
        strided.linspace(0, 1, 2.5)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_eye_every_dtype(dtype):
    nd = to_numpy_dtype(dtype)
    for args, k in [
        ((3,), 0),
        ((3, 5), 0),
        ((5, 3), 0),
        ((4,), 1),
        ((4,), -2),
        ((3, 5), 3),
        ((3, 5), -4),
        ((3, 5), 7),
        ((0,), 0),
        ((2, 0), 0),
        ((1,), 0),
    ]:
        t = strided.eye(*args, k=k, dtype=dtype)
        np.testing.assert_array_equal(
            _np(t), np.eye(*args, k=k, dtype=nd), strict=True, err_msg=f"eye{args}, k={k}"
        )


def test_eye_takes_numpys_positional_k_and_any_k():
    for args in [
        (3, 4, 1),
        (3, None, -1, "int8"),
        (2, 2, 2**63),
        (0, None, 2**63),
        (3, 3, -(2**64)),
    ]:
        np.testing.assert_array_equal(_np(strided.eye(*args)), np.eye(*args), strict=True)


# =============================================================================================
# from_numpy and .numpy(): memory shared both ways
# =============================================================================================


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(12.0).reshape(3, 4),
        lambda: np.arange(12.0).reshape(3, 4)[::-1, ::-2],
        lambda: np.arange(24, dtype=np.int16).reshape(2, 3, 4).transpose(2, 0, 1),
        lambda: np.array(5.0),
        lambda: np.zeros((3, 0)),
        lambda: np.broadcast_to(np.arange(3.0), (4, 3)),
        lambda: np.arange(10, dtype=np.complex64)[2:9:3],
    ],
    ids=["contiguous", "negative", "transposed", "0-d", "empty", "broadcast", "stepped"],
)
def test_from_numpy_shares_memory(make):
    a = make()
    t = strided.from_numpy(a)
    assert t.shape == a.shape and t.dtype.numpy == a.dtype
    assert t.strides == a.strides or a.size == 0
    np.testing.assert_array_equal(_np(t), a, strict=True)
    if a.size and a.flags.writeable:
        flat_index = (0,) * a.ndim
        a[flat_index] = 42  # NumPy -> strided
        assert t[flat_index].item() == 42
        t[flat_index] = 7  # strided -> NumPy
        assert a[flat_index] == 7
        back = t.numpy()
        assert np.shares_memory(back, a)


def test_from_numpy_read_only():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = strided.from_numpy(a)
    np.testing.assert_array_equal(_np(t), a)
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 1.0
    assert memoryview(t).readonly
    assert not t.numpy().flags.writeable


def test_from_numpy_keeps_the_array_alive():
    t = strided.from_numpy(np.arange(1000.0))
    import gc

    gc.collect()
    assert t[999].item() == 999.0


def test_from_numpy_errors():
    with pytest.raises(TypeError, match="expects a numpy.ndarray, got list"):
        strided.from_numpy([1, 2])
    with pytest.raises(TypeError, match="NumPy dtype float128 is not supported"):
        strided.from_numpy(np.zeros(3, np.longdouble))
    odd = np.zeros(16, np.uint8)[1:9].view(np.int16)
    with pytest.raises(ValueError, match="not aligned for"):
        strided.from_numpy(odd)


def test_numpy_method_shares_memory():
    t = strided.arange(6.0).reshape(2, 3)
    a = t.numpy()
    a[1, 1] = -1.0
    assert t[1, 1].item() == -1.0
    t[0, 0] = 9.0
    assert a[0, 0] == 9.0
    v = t.T[::-1]
    av = v.numpy()
    assert av.strides == v.strides
    np.testing.assert_array_equal(av, np.asarray(t).T[::-1])


# =============================================================================================
# set_default_dtype
# =============================================================================================


def test_set_default_dtype_float32():
    strided.set_default_dtype(strided.float32)  # the autouse fixture restores it
    assert strided.get_default_dtype() is strided.float32
    assert strided.asarray([1.5, 2]).dtype is strided.float32
    assert strided.asarray(1.5).dtype is strided.float32
    assert strided.asarray([1j]).dtype is strided.complex64
    assert strided.asarray([1, 2]).dtype is strided.int64  # ints are not affected
    assert strided.arange(0.0, 1.0, 0.25).dtype is strided.float32
    assert strided.arange(3).dtype is strided.int64
    assert strided.linspace(0, 1, 3).dtype is strided.float32
    assert strided.linspace(0, 1j, 3).dtype is strided.complex64
    assert strided.zeros(2).dtype is strided.float32
    assert strided.full(2, 1.5).dtype is strided.float32
    assert strided.eye(2).dtype is strided.float32
    # NumPy arrays keep their own dtype
    assert strided.asarray(np.zeros(2)).dtype is strided.float64
    np.testing.assert_array_equal(
        _np(strided.linspace(0, 1, 5)), np.linspace(0, 1, 5, dtype=np.float32)
    )


def test_set_default_dtype_rejects_non_floats():
    with pytest.raises((TypeError, ValueError)):
        strided.set_default_dtype(strided.int32)
    assert strided.get_default_dtype() is strided.float64


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_asarray_round_trip_of_interesting_values(dtype, rng):
    values = make_values((3, 4), dtype, rng)
    t = strided.asarray(values.tolist(), dtype=dtype)
    np.testing.assert_array_equal(_np(t), values, strict=True)
    assert math.prod(t.shape) == values.size
