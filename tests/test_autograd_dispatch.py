"""Autograd only through the dispatcher: views and copies reach the Autograd key whoever bound
them and whenever (Note [Views through the Autograd key] in _views.pyx, Note [Copies through the
dispatcher] in _ops/copying.py), and ``requires_grad`` has one definition."""

from __future__ import annotations

import numpy as np

import strided
from strided._core import TensorBase
from strided._ops.copying import contiguous_copy, copy_, fill_  # bound at import, as mathfuncs
from strided._views import narrow, reverse_dims


def _leaf(values):
    return strided.asarray(np.asarray(values, dtype=np.float64)).requires_grad_()


def test_a_view_function_bound_early_is_recorded():
    x = _leaf([1.0, 2.0, 3.0])
    y = narrow(x, 0, 1, 2)
    assert y.grad_fn is not None and y.grad_fn.name() == "NarrowBackward"
    (y * y).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 6.0]


def test_views_of_tensors_without_grad_are_not_recorded():
    x = strided.ones((2, 3))
    assert x[1:].grad_fn is None and x.T.grad_fn is None and not x.reshape(6).requires_grad
    with strided.no_grad():
        assert reverse_dims(_leaf([[1.0, 2.0]])).grad_fn is None


def test_a_copy_function_bound_early_is_recorded():
    x = _leaf([1.0, 2.0])
    y = strided.zeros(2, dtype="float64")
    copy_(y, x)
    assert y.grad_fn is not None
    (y * 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    z = contiguous_copy(x.T)
    assert z.grad_fn is not None


def test_fill_of_a_view_rebases_its_base():
    x = _leaf([1.0, 2.0, 3.0])
    b = x * 1.0
    fill_(b[1:], 0.0)
    b.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0]


def test_requires_grad_is_defined_once():
    assert "requires_grad" in vars(TensorBase)
    assert "requires_grad" not in vars(strided.Tensor)  # no second property installed over it
    t = strided.ones(2, dtype="int64")
    try:
        t.requires_grad = True
    except RuntimeError as e:
        assert "floating-point" in str(e)
    else:
        raise AssertionError("an int64 tensor accepted requires_grad")
    x = _leaf([1.0])
    y = x * 2
    try:
        y.requires_grad = False
    except RuntimeError as e:
        assert "leaf" in str(e)
    else:
        raise AssertionError("a non-leaf's requires_grad was turned off")
