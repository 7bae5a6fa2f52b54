"""Tests for strided/_format.py: repr and str.

The module is loaded from its file and fed a small fake tensor (tests/fake_tensor.py), so these
tests run before, and independently of, the compiled package. The view arithmetic and explain
are tested in test_explain.py.
"""

import numpy as np
import pytest
from fake_tensor import FakeGradFn, FakeTensor, arange, load

fmt = load("_format")


@pytest.fixture(autouse=True)
def default_float64(monkeypatch):
    monkeypatch.setattr(fmt, "_default_float_name", lambda: "float64")


# ---------------------------------------------------------------------------------------------
# repr
# ---------------------------------------------------------------------------------------------


def test_repr_int_matrix():
    x = FakeTensor.of(np.arange(6).reshape(2, 3))
    assert fmt.format_repr(x) == "tensor([[0, 1, 2],\n        [3, 4, 5]])"
    assert fmt.format_str(x) == fmt.format_repr(x)


def test_repr_default_float_and_bool_have_no_dtype():
    assert (
        fmt.format_repr(FakeTensor.of(np.array([1.0, 2.5]))) == "tensor([1. , 2.5])"
    )  # NumPy's formatting
    assert fmt.format_repr(FakeTensor.of(np.array([1.0, 2.0]))) == "tensor([1., 2.])"
    assert fmt.format_repr(FakeTensor.of(np.array([True, False]))) == "tensor([ True, False])"


def test_repr_other_dtypes_say_so():
    x = FakeTensor.of(np.array([1.0, 2.0], dtype=np.float32))
    assert fmt.format_repr(x) == "tensor([1., 2.], dtype=strided.float32)"
    x = FakeTensor.of(np.array([1, 2], dtype=np.int32))
    assert fmt.format_repr(x) == "tensor([1, 2], dtype=strided.int32)"


def test_repr_follows_default_dtype(monkeypatch):
    monkeypatch.setattr(fmt, "_default_float_name", lambda: "float32")
    assert fmt.format_repr(FakeTensor.of(np.ones(2, np.float32))) == "tensor([1., 1.])"
    x = FakeTensor.of(np.ones(2))
    assert fmt.format_repr(x) == "tensor([1., 1.], dtype=strided.float64)"


def test_repr_0d():
    assert fmt.format_repr(FakeTensor.of(np.array(3.0))) == "tensor(3.)"
    assert fmt.format_repr(FakeTensor.of(np.array(7))) == "tensor(7)"
    assert fmt.format_repr(FakeTensor.of(np.array(True))) == "tensor(True)"


def test_repr_empty():
    assert fmt.format_repr(FakeTensor.of(np.zeros(0))) == "tensor([])"
    assert fmt.format_repr(FakeTensor.of(np.zeros((0, 3)))) == "tensor([], size=(0, 3))"
    x = FakeTensor.of(np.zeros((2, 0), dtype=np.int64))
    assert fmt.format_repr(x) == "tensor([], size=(2, 0), dtype=strided.int64)"
    x = FakeTensor.of(np.zeros(0, dtype=np.float32))
    assert fmt.format_repr(x) == "tensor([], dtype=strided.float32)"


def test_repr_of_views_shows_view_values():
    x = arange(6)
    transposed = x.view((3, 2), (1, 3))
    assert fmt.format_repr(transposed) == "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])"
    assert fmt.format_repr(x.view((3,), (2,), 0)) == "tensor([0., 2., 4.])"
    assert fmt.format_repr(x.view((3,), (-1,), 5)) == "tensor([5., 4., 3.])"
    assert fmt.format_repr(x.view((2, 2), (0, 1), 1)) == "tensor([[1., 2.],\n        [1., 2.]])"


def test_repr_large_is_summarised():
    x = FakeTensor.of(np.arange(2000).reshape(40, 50))
    text = fmt.format_repr(x)
    assert text.startswith("tensor([[   0,    1,    2, ...,   47,   48,   49],\n")
    assert "        ...,\n" in text
    assert text.endswith("[1950, 1951, 1952, ..., 1997, 1998, 1999]])")
    assert len(text.splitlines()) == 7
    assert all(len(line) <= 80 for line in text.splitlines())


def test_repr_autograd_suffixes():
    x = FakeTensor.of(np.array([1.0, 2.0]))
    x.requires_grad = True
    assert fmt.format_repr(x) == "tensor([1., 2.], requires_grad=True)"
    x.grad_fn = FakeGradFn("MulBackward0")
    assert fmt.format_repr(x) == "tensor([1., 2.], grad_fn=<MulBackward0>)"


def test_repr_device_uses_cpu_copy():
    x = FakeTensor.of(np.array([1.0, 2.0], dtype=np.float32))
    x.device = "cuda:0"
    assert fmt.format_repr(x) == "tensor([1., 2.], device='cuda:0', dtype=strided.float32)"


def test_repr_wraps_long_suffixes():
    x = FakeTensor.of(np.arange(12.0, dtype=np.float32))
    x.grad_fn = FakeGradFn("SomeVeryLongBackwardNameForWrapping0")
    text = fmt.format_repr(x)
    assert text == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n"
        "       dtype=strided.float32, grad_fn=<SomeVeryLongBackwardNameForWrapping0>)"
    )
