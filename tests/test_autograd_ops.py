"""gradcheck and gradgradcheck of every differentiable op (DESIGN.md, "Testing design").

The elementwise, reduction and view rows of the OpInfo tables marked ``supports_autograd`` are
checked here on contiguous, transposed (non-contiguous), negative-stride and broadcast inputs,
with values drawn from each op's smooth domain (away from kinks and poles: finite differences
mean nothing there). Ops whose OpInfo rows are not gradcheck-shaped (indexing, sorting, shape
ops, linalg) are listed explicitly below.
"""

from __future__ import annotations

import numpy as np
import pytest
from opinfo import OPS
from opinfo_elementwise import EW_OPS
from opinfo_reduction import RED_OPS

import strided
from strided.autograd import gradcheck, gradgradcheck

# -- values: a smooth domain per op ------------------------------------------------------------

_DOMAINS = {
    "log": (0.3, 2.0),
    "log1p": (-0.5, 2.0),
    "log2": (0.3, 2.0),
    "log10": (0.3, 2.0),
    "sqrt": (0.3, 2.0),
    "reciprocal": (0.5, 2.0),
    "asin": (-0.8, 0.8),
    "acos": (-0.8, 0.8),
    "atanh": (-0.8, 0.8),
    "acosh": (1.3, 3.0),
    "tan": (-1.0, 1.0),
    "divide": ((-2.0, 2.0), (0.5, 2.0)),
    "pow": ((0.5, 2.0), (-1.5, 1.5)),
    "remainder": ((0.1, 0.9), (1.5, 2.0)),
    "floor_divide": ((0.1, 0.9), (1.5, 2.0)),
    "copysign": ((0.3, 2.0), (0.3, 2.0)),
    "hypot": ((0.3, 2.0), (0.3, 2.0)),
}


def _values(name, i, shape, rng):
    lo, hi = (-2.0, 2.0)
    d = _DOMAINS.get(name)
    if d is not None:
        lo, hi = d[i] if isinstance(d[0], tuple) else d
    v = rng.uniform(lo, hi, shape)
    if lo < 0 < hi:  # away from 0, where abs, relu, sign... have kinks
        v = np.where(np.abs(v) < 0.1, 0.3, v)
    return v


def _leaf(a, layout="contiguous"):
    """A float64 leaf that requires grad, with the given memory layout."""
    if layout == "transposed" and a.ndim >= 2:
        t = strided.asarray(np.ascontiguousarray(a.T)).T  # same values, transposed strides
    elif layout == "negative" and a.ndim >= 1:
        t = strided.asarray(np.ascontiguousarray(a[::-1]))[::-1]
    else:
        t = strided.asarray(np.ascontiguousarray(a))
    return t.detach().requires_grad_()


def _check(fn, inputs, second=True, **tol):
    assert gradcheck(fn, inputs, **tol)
    if second:
        assert gradgradcheck(fn, inputs, **tol)


# -- elementwise rows --------------------------------------------------------------------------

EW_ROWS = [r for r in EW_OPS if r.supports_autograd]
LAYOUTS = ("contiguous", "transposed", "negative", "broadcast")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("row", EW_ROWS, ids=lambda r: r.name)
def test_elementwise_gradcheck(row, layout):
    rng = np.random.default_rng(0)
    shapes = [(2, 3)] * row.nargs
    if layout == "broadcast" and row.nargs > 1:
        shapes = [(2, 3), (3,), (2, 1)][: row.nargs]
    inputs = []
    for i, shape in enumerate(shapes):
        if row.name == "where" and i == 0:
            inputs.append(strided.asarray(rng.random(shape) < 0.5))
            continue
        inputs.append(_leaf(_values(row.name, i - (row.name == "where"), shape, rng), layout))
    if row.name == "clip":  # bounds apart from the values: no ties at the kinks
        inputs[1] = _leaf(np.full(shapes[1], -1.05), layout)
        inputs[2] = _leaf(np.full(shapes[2], 1.05), layout)
    _check(row.op, tuple(inputs))


def test_every_differentiable_elementwise_op_has_a_row_marked():
    from strided.autograd import derivatives

    marked = {r.name for r in EW_ROWS}
    for r in EW_OPS:
        if r.name in derivatives.TABLE and "f" in r.kinds:
            assert r.name in marked, r.name


# -- reduction rows ----------------------------------------------------------------------------

RED_ROWS = [r for r in RED_OPS if r.supports_autograd]


@pytest.mark.parametrize("layout", ("contiguous", "transposed", "negative"))
@pytest.mark.parametrize("row", RED_ROWS, ids=lambda r: r.name)
def test_reduction_gradcheck(row, layout):
    rng = np.random.default_rng(1)
    shape = (3, 4)
    x = _leaf(rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape), layout)
    for kw in row.sample_inputs(shape)[:8]:
        kw = dict(kw) | row.kwargs

        def fn(t, kw=kw):
            return row.op(t, **kw)

        _check(fn, (x,))


# -- view rows ---------------------------------------------------------------------------------

VIEW_ROWS = [r for r in OPS if r.supports_autograd]


@pytest.mark.parametrize("layout", ("contiguous", "transposed", "negative"))
@pytest.mark.parametrize("row", VIEW_ROWS, ids=lambda r: r.name)
def test_view_gradcheck(row, layout):
    rng = np.random.default_rng(2)
    shape = (3, 4)
    x = _leaf(rng.standard_normal(shape), layout)
    samples = list(row.sample_inputs(shape))[:6]
    assert samples, row.name
    for args in samples:

        def fn(t, args=args):
            out = row.op(t, *args)
            return tuple(out) if isinstance(out, (list, tuple)) else out

        try:
            fn(x)
        except Exception:  # a sample that needs another layout (view of a transpose ...)
            continue
        _check(fn, (x,))


# -- ops whose OpInfo rows are not gradcheck-shaped --------------------------------------------


def _r(*shape, seed=3, layout="contiguous", lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    return _leaf(rng.uniform(lo, hi, shape), layout)


_IDX = strided.asarray([2, 0, 2])
_IDX2 = strided.asarray([[0, 2, 1, 0], [2, 2, 0, 1]])

EXPLICIT = {
    "matmul_2d": (lambda a, b: a @ b, lambda L: (_r(3, 4, layout=L), _r(4, 2, seed=4))),
    "matmul_batched_broadcast": (
        lambda a, b: strided.matmul(a, b),
        lambda L: (_r(2, 3, 4, layout=L), _r(4, 2, seed=4)),
    ),
    "matmul_vec_mat": (lambda a, b: a @ b, lambda L: (_r(4, layout=L), _r(4, 2, seed=4))),
    "matmul_mat_vec": (lambda a, b: a @ b, lambda L: (_r(3, 4, layout=L), _r(4, seed=4))),
    "matmul_dot": (lambda a, b: a @ b, lambda L: (_r(4, layout=L), _r(4, seed=4))),
    "addmm": (
        lambda c, a, b: strided.addmm(c, a, b, beta=0.5, alpha=2.0),
        lambda L: (_r(3), _r(3, 4, layout=L, seed=5), _r(4, 3, seed=6)),
    ),
    "mm": (strided.mm, lambda L: (_r(2, 3, layout=L), _r(3, 2, seed=4))),
    "bmm": (strided.bmm, lambda L: (_r(2, 2, 3, layout=L), _r(2, 3, 2, seed=4))),
    "outer": (strided.outer, lambda L: (_r(3, layout=L), _r(2, seed=4))),
    "tensordot": (
        lambda a, b: strided.tensordot(a, b, axes=1),
        lambda L: (_r(2, 3, layout=L), _r(3, 2, seed=4)),
    ),
    "vecdot": (strided.vecdot, lambda L: (_r(2, 3, layout=L), _r(3, seed=4))),
    "cumsum": (lambda x: strided.cumsum(x, 1), lambda L: (_r(3, 4, layout=L),)),
    "cumulative_sum_initial": (
        lambda x: strided.cumulative_sum(x, axis=0, include_initial=True),
        lambda L: (_r(3, 4, layout=L),),
    ),
    "cumprod": (lambda x: strided.cumprod(x, 0), lambda L: (_r(3, 4, layout=L, lo=0.5),)),
    "vector_norm": (
        lambda x: strided.vector_norm(x, axis=1),
        lambda L: (_r(3, 4, layout=L),),
    ),
    "vector_norm_ord1": (
        lambda x: strided.vector_norm(x, ord=1),
        lambda L: (_r(3, 4, layout=L),),
    ),
    "matrix_norm": (strided.matrix_norm, lambda L: (_r(3, 4, layout=L),)),
    "concat": (
        lambda a, b: strided.concat([a, b], axis=1),
        lambda L: (_r(2, 3, layout=L), _r(2, 2, seed=4)),
    ),
    "concat_none": (
        lambda a, b: strided.concat([a, b], axis=None),
        lambda L: (_r(2, 3, layout=L), _r(2, seed=4)),
    ),
    "stack": (
        lambda a, b: strided.stack([a, b], axis=1),
        lambda L: (_r(2, 3, layout=L), _r(2, 3, seed=4)),
    ),
    "tile": (lambda x: strided.tile(x, (2, 1, 2)), lambda L: (_r(2, 3, layout=L),)),
    "repeat_int": (lambda x: strided.repeat(x, 2, axis=1), lambda L: (_r(2, 3, layout=L),)),
    "repeat_counts": (
        lambda x: strided.repeat(x, (1, 0, 3), axis=1),
        lambda L: (_r(2, 3, layout=L),),
    ),
    "roll": (lambda x: strided.roll(x, (1, -1), axis=(0, 1)), lambda L: (_r(2, 3, layout=L),)),
    "pad_constant": (
        lambda x: strided.pad(x, (1, 2, 0, 1), value=3.0),
        lambda L: (_r(2, 3, layout=L),),
    ),
    "pad_reflect": (
        lambda x: strided.pad(x, (2, 1), mode="reflect"),
        lambda L: (_r(2, 4, layout=L),),
    ),
    "pad_replicate": (
        lambda x: strided.pad(x, (2, 1, 1, 0), mode="replicate"),
        lambda L: (_r(2, 3, layout=L),),
    ),
    "tril": (lambda x: strided.tril(x, k=-1), lambda L: (_r(3, 3, layout=L),)),
    "triu": (lambda x: strided.triu(x, k=1), lambda L: (_r(3, 3, layout=L),)),
    "gather": (lambda x: strided.gather(x, 1, _IDX2[:, :3]), lambda L: (_r(2, 3, layout=L),)),
    "take_along_axis": (
        lambda x: strided.take_along_axis(x, _IDX2[:, :3], axis=1),
        lambda L: (_r(2, 3, layout=L),),
    ),
    "take": (lambda x: strided.take(x, _IDX, axis=1), lambda L: (_r(2, 3, layout=L),)),
    "take_flat": (lambda x: strided.take(x, _IDX2), lambda L: (_r(2, 3, layout=L),)),
    "index_select": (
        lambda x: strided.index_select(x, 0, _IDX),
        lambda L: (_r(3, 2, layout=L),),
    ),
    "advanced_getitem": (lambda x: x[_IDX, 1:], lambda L: (_r(3, 2, layout=L),)),
    "mask_getitem": (lambda x: x[x > 0], lambda L: (_r(3, 2, layout=L),)),
    "scatter": (
        lambda x, s: strided.scatter(x, 1, strided.asarray([[0, 2], [2, 1]]), s),
        lambda L: (_r(2, 3, layout=L), _r(2, 2, seed=4)),
    ),
    "scatter_add": (
        lambda x, s: strided.scatter_add(x, 1, _IDX2, s),
        lambda L: (_r(2, 3, layout=L), _r(2, 4, seed=4)),
    ),
    "index_add": (
        lambda x, s: strided.index_add(x, 0, _IDX, s, alpha=2.0),
        lambda L: (_r(3, 2, layout=L), _r(3, 2, seed=4)),
    ),
    "index_put": (
        lambda x, v: x.index_put((_IDX[1:],), v),
        lambda L: (_r(3, 2, layout=L), _r(2, 2, seed=4)),
    ),
    "index_put_accumulate": (
        lambda x, v: x.index_put((_IDX,), v, accumulate=True),
        lambda L: (_r(3, 2, layout=L), _r(2, seed=4)),
    ),
    "masked_fill": (
        lambda x: strided.masked_fill(x, x > 0, 5.0),
        lambda L: (_r(3, 2, layout=L),),
    ),
    "sort": (lambda x: strided.sort(x, axis=1), lambda L: (_r(3, 4, layout=L),)),
    "sort_values_and_indices": (
        lambda x: x.sort(0, descending=True)[0],
        lambda L: (_r(3, 4, layout=L),),
    ),
    "topk": (lambda x: strided.topk(x, 2, dim=1).values, lambda L: (_r(3, 4, layout=L),)),
    "astype": (lambda x: x.astype("float32").astype("float64"), lambda L: (_r(3, 4, layout=L),)),
    "max_dim_values": (lambda x: x.max(1).values, lambda L: (_r(3, 4, layout=L),)),
}


@pytest.mark.parametrize("layout", ("contiguous", "transposed", "negative"))
@pytest.mark.parametrize("name", sorted(EXPLICIT))
def test_explicit_gradcheck(name, layout):
    fn, make = EXPLICIT[name]
    inputs = make(layout)
    second = name not in ("astype",)  # float32 round trip: too coarse for the second order
    if name == "astype":
        assert gradcheck(fn, inputs, eps=1e-3, atol=1e-3, rtol=1e-2)
        return
    _check(fn, inputs, second=second)


def test_prod_with_zeros_has_the_product_of_the_others():
    x = _leaf(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0]]))
    # the double backward goes through cumprod's backward, exact with zeros too
    _check(lambda t: strided.prod(t, axis=1), (x,))
    _check(lambda t: strided.prod(t), (x,))


@pytest.mark.parametrize("include_initial", (False, True))
def test_cumprod_with_zeros_is_exact(include_initial):
    # Note [cumprod backward with zeros]: one zero, two zeros, a zero first, a zero last
    x = _leaf(np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 0.0, 4.0], [1.5, -2.0, 0.5, 0.0]]))
    _check(lambda t: strided.cumulative_prod(t, axis=1, include_initial=include_initial), (x,))
    _check(lambda t: strided.cumprod(t, 0), (x,))
    y = strided.asarray([2.0, 0.0, 3.0, 4.0]).requires_grad_()
    strided.cumprod(y, 0).sum().backward()
    # d/dx of 2 + 0 + 0 + 0 with x[1] = 0: only the terms through x[1] survive
    assert y.grad.tolist() == [1.0, 2.0 + 2 * 3 + 2 * 3 * 4, 0.0, 0.0]


def test_maximum_tie_splits_the_gradient():
    a = strided.asarray([1.0, 2.0]).requires_grad_()
    b = strided.asarray([1.0, 3.0]).requires_grad_()
    strided.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0] and b.grad.tolist() == [0.5, 1.0]


def test_max_reduction_tie_is_shared_evenly():
    x = strided.asarray([3.0, 1.0, 3.0]).requires_grad_()
    strided.max(x).backward()
    assert x.grad.tolist() == [0.5, 0.0, 0.5]


def test_non_differentiable_outputs_do_not_require_grad():
    x = _r(3, 4)
    for y in (x > 0, strided.argmax(x, axis=1), strided.isnan(x), x.sort(1)[1], strided.any(x)):
        assert not y.requires_grad and y.grad_fn is None


def test_an_op_without_formula_refuses_a_grad_input():
    x = _r(3, 3)
    with pytest.raises(RuntimeError, match="linalg_svd: autograd has no derivative formula"):
        strided.linalg.svd(x)
    with strided.no_grad():
        strided.linalg.svd(x)  # fine without grad


@pytest.mark.parametrize("indexing", ("xy", "ij"))
@pytest.mark.parametrize("copy", (True, False))
def test_meshgrid_gradients(indexing, copy):
    a, b, c = _r(3), _r(2, seed=4), _leaf(np.array(1.5))

    def grids(*xs):
        return tuple(strided.meshgrid(*xs, indexing=indexing, copy=copy))

    _check(grids, (a, b))
    _check(grids, (a, b, c))
    # one grid used: the other input gets nothing but zeros through the unused output
    x, y = strided.meshgrid(a, b, indexing=indexing)
    (x * 2).sum().backward()
    assert a.grad.tolist() == [4.0, 4.0, 4.0]
    assert b.grad is None or b.grad.tolist() == [0.0, 0.0]


def test_float32_gradient_keeps_its_dtype_when_mixed_with_float64():
    a = strided.ones(3, dtype="float32").requires_grad_()
    b = strided.ones(3, dtype="float64").requires_grad_()
    (a * b).sum().backward()
    assert a.grad.dtype is strided.float32 and b.grad.dtype is strided.float64
