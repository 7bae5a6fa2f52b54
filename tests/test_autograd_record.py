"""The compiled recorder (strided/autograd/_record.pyx, Note [The compiled recorder]) against its
Python form (recording._fast_kernel): the same nodes, edges, saved tensors, source lines and
gradients, the in-place error naming both lines, and a row's fields read at each call."""

from __future__ import annotations

import numpy as np
import pytest

import strided
from strided import _dispatch
from strided.autograd import derivatives as _d
from strided.autograd import recording

OPS = ("add", "multiply", "exp", "sum", "matmul", "tanh", "maximum")


def test_the_compiled_recorder_is_built_and_registered():
    assert recording.COMPILED  # setup.py's MODULES builds it; a stale build would fall back
    strided.ones(1).requires_grad_()  # activates autograd
    assert type(_dispatch._kernels["add"]["Autograd"]).__name__ == "RecordedOp"
    assert _dispatch._kernels["add"]["Autograd"].__qualname__ == "autograd[add]"


def _use(compiled):
    """Register the compiled or the Python fast kernels of OPS; give back the old ones."""
    strided.ones(1).requires_grad_()
    old = {n: _dispatch._kernels[n]["Autograd"] for n in OPS}
    for n in OPS:
        _dispatch._kernels[n]["Autograd"] = recording._autograd_kernel(n, compiled=compiled)
    return old


def _restore(old):
    for n, k in old.items():
        _dispatch._kernels[n]["Autograd"] = k


@pytest.fixture(params=[True, False], ids=["compiled", "python"])
def path(request):
    old = _use(request.param)
    yield request.param
    _restore(old)


def _graph(y):
    """The graph below y as nested (name, saved keys, needs, edges) for comparison."""
    fn = y.grad_fn
    if fn is None or type(fn).__name__ == "AccumulateGrad":
        return type(fn).__name__
    return (
        fn.name(),
        sorted(map(str, fn.saved)),
        fn.needs,
        fn.out_meta,
        fn.input_meta,
        [None if e is None else (type(e[0]).__name__, e[1]) for e in fn.next_functions],
    )


def _run(compiled):
    kind = type(_dispatch._kernels["tanh"]["Autograd"]).__name__
    assert (kind == "RecordedOp") == compiled
    rng = np.random.default_rng(0)
    a = strided.tensor(rng.random((3, 4))).requires_grad_()
    b = strided.tensor(rng.random((4, 2))).requires_grad_()
    c = strided.tensor(rng.random((3, 4)))  # needs no gradient
    h = strided.tanh(strided.matmul(a * c + 1.0, b))
    y = strided.exp(strided.maximum(h, 0.5)).sum()
    y.backward()
    return a, b, h, y


def test_the_same_graph_and_gradients_on_both_paths(path):
    a, b, h, y = _run(path)
    assert "test_autograd_record.py" in y.grad_fn.source
    assert "test_autograd_record.py" in h.grad_fn.source
    mul = h.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0]
    assert mul.name() == "MultiplyBackward"
    assert mul.needs == (True, False) and sorted(map(str, mul.saved)) == ["0", "1"]
    assert h.grad_fn.saved["result"].is_output  # tanh saves its result
    old = _use(not path)
    try:
        other = _run(not path)
    finally:
        _restore(old)
    assert _graph(h) == _graph(other[2])
    np.testing.assert_array_equal(a.grad.numpy(), other[0].grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), other[1].grad.numpy())


def test_the_inplace_error_names_both_lines(path):
    x = strided.ones(3, dtype="float64").requires_grad_()
    w = strided.ones(3, dtype="float64")
    y = x * w  # saves w
    w.add_(1.0)
    with pytest.raises(RuntimeError, match=r"MultiplyBackward saved its argument 1") as err:
        y.sum().backward()
    text = str(err.value)
    assert text.count("test_autograd_record.py:") == 2  # the op's line and the write's line
    assert "add_" in text


def test_a_row_swapped_at_run_time_is_used(path, monkeypatch):
    x = strided.tensor([1.0, 2.0]).requires_grad_()
    row = _d.TABLE["exp"]
    monkeypatch.setattr(row, "formula", lambda node, g: (g * 3.0,))
    monkeypatch.setattr(row, "save", ())
    monkeypatch.setattr(row, "result", False)
    y = strided.exp(x)
    assert not y.grad_fn.saved
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_integer_outputs_and_no_grad_are_not_recorded(path):
    x = strided.tensor([1.0, 2.0]).requires_grad_()
    with strided.no_grad():
        assert strided.exp(x).grad_fn is None
    assert strided.add(x, 1.0).requires_grad
    n = strided.tensor([1, 2])
    assert strided.add(n, n).grad_fn is None


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "shape, strides, offset",
    [
        ((2, 5, 5, 3, 3, 4), (196, 28, 4, 28, 4, 1), 3),  # conv2d's channels-last windows
        ((4, 4), (2, 1), 0),  # overlapping rows
        ((3, 4), (0, 1), 1),  # an expand: stride 0
        ((4, 3), (1, 4), 0),  # a transpose
        ((65, 2), (0, 1), 0),  # 65 taps
        ((3, 3), (-3, 1), 8),  # a negative stride
        ((), (), 7),  # one element
        ((2, 0, 3), (1, 1, 1), 0),  # empty
    ],
)
def test_scatter_view_matches_numpy_add_at(shape, strides, offset, dtype):
    # Note [A view's backward in one pass]: the same sums as np.add.at over the view's cells
    from strided.autograd import _record

    cells = 400
    g = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    flat = strided.zeros(cells, dtype=dtype)
    assert _record.scatter_view(flat, (shape, strides, offset), strided.asarray(g))
    where = np.lib.stride_tricks.as_strided(
        np.arange(cells)[offset:], shape, [s * 8 for s in strides]
    )
    expected = np.zeros(cells, dtype=dtype)
    np.add.at(expected, where.ravel(), g.ravel())
    np.testing.assert_allclose(flat.numpy(), expected, rtol=1e-6, atol=1e-6)
    # and through a view's backward (x.grad of an as_strided view)
    x = strided.zeros(cells, dtype=dtype).requires_grad_()
    strided.as_strided(x, shape, strides, offset).backward(strided.asarray(g))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_scatter_view_declines_and_refuses():
    from strided.autograd import _record

    g = strided.ones((2, 2), dtype="float32")
    assert not _record.scatter_view(strided.zeros(8, dtype="float64"), ((2, 2), (2, 1), 0), g)
    assert not _record.scatter_view(
        strided.zeros(8, dtype="int64"), ((2, 2), (2, 1), 0), strided.ones((2, 2), dtype="int64")
    )
    assert not _record.scatter_view(strided.zeros(8, dtype="float32"), ((4,), (1,), 0), g)
    with pytest.raises(ValueError, match="reaches outside 8 cells"):
        _record.scatter_view(strided.zeros(8, dtype="float32"), ((2, 2), (4, 1), 3), g)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32", "float16"])
def test_where_with_one_scalar_side(dtype):
    # relu's backward row, where(result > 0, grad, 0.0): the scalar side's contiguous loop in
    # binary.pyx.tp; an inf or NaN gradient under a false mask still gives 0 (no multiply)
    rng = np.random.default_rng(1)
    mask = rng.random(1000) > 0.5
    a = (rng.standard_normal(1000) * 10).astype(dtype)
    if dtype.startswith("float"):
        a[:4] = [np.inf, -np.inf, np.nan, 1.0]
    m, t = strided.asarray(mask), strided.asarray(a)
    s = np.asarray(3, dtype=dtype)[()]
    np.testing.assert_array_equal(strided.where(m, t, 0).numpy(), np.where(mask, a, 0))
    np.testing.assert_array_equal(strided.where(m, 3, t).numpy(), np.where(mask, s, a))
    np.testing.assert_array_equal(
        strided.where(m[::2], t[1::2], 0).numpy(), np.where(mask[::2], a[1::2], 0)
    )
