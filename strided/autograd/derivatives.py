"""The derivatives table: one row per differentiable op, op name -> backward formula.

Note [How to read a formula]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A row is ``Derivative(formula, save=..., result=...)``. When the op runs with an input that
requires grad, the Autograd kernel (``recording.py``) makes a ``FormulaNode`` that keeps:

* ``node.args``: the op's arguments as the dispatcher saw them (the *kernel's* signature: for
  ``sum`` that is ``(x, dims, keepdims, dtype)``, with dims already normalised), tensors
  replaced by None unless ``save`` lists their position;
* ``node.saved_tensor(i)`` for each position ``i`` in ``save``, and ``node.saved_tensor("result")``
  when ``result=True``; both check the version counter (Note [Saved tensors and the version
  counter] in graph.py);
* ``node.input_meta[i]``: the ``(shape, dtype, device)`` of tensor argument ``i``;
* ``node.needs[i]``: whether argument ``i`` needs a gradient (skip the work when not).

``formula(node, grad)`` gets the gradient of the op's output (one per output for ops with
several) and returns one gradient per argument, None where none flows. Each formula is written
with strided's own public ops, so when the engine runs it with grad mode on
(``create_graph=True``) the formula is itself recorded and can be differentiated again: double
backward comes for free, as in PyTorch's derivatives.yaml.

A formula never un-broadcasts: ``add(x, y)`` with ``x`` of shape (3, 1) and ``y`` of (4,)
returns the (3, 4) gradient for both, and the engine sums each back to its input's shape and
casts it to its input's dtype (Note [Gradients take their input's shape] in engine.py).

Ops with no row fall in two groups. ``NOT_DIFFERENTIABLE`` ops (comparisons, argmax, integer
ops, ...) just run; their outputs do not require grad. Any other op refuses to run on an input
that requires grad, naming itself, rather than silently dropping the gradient.

Composite ops (``mean``, ``var``, ``std``, ``clip``, ``lerp``, norms, ``tensordot``, ...) need no
row: they are made of ops that have one, and autograd records those (PyTorch's
CompositeImplicitAutograd). ``softmax``, ``log_softmax`` and ``logsumexp`` have rows of their
own: their formulas are shorter and more accurate than the chain of their parts.
"""

from __future__ import annotations

import math

import numpy as np

from strided import _core, _dispatch
from strided import fft as _fft
from strided._dtype import int64
from strided._ops import creation as _cr
from strided._ops import elementwise as E
from strided._ops import indexing as _ix
from strided._ops import linalg as _la
from strided._ops import padding as _pad
from strided._ops import reduction as R
from strided._ops import scan as _scan
from strided._ops import shape as _sh
from strided._ops import views as V
from strided.autograd import grad_mode as _grad_mode

__all__ = ["Derivative", "TABLE", "VIEW_TABLE", "NOT_DIFFERENTIABLE", "sum_to"]


class Derivative:
    """One row: the formula, the argument positions to save, whether to save the result, and
    which outputs are differentiable (None: every floating output)."""

    __slots__ = ("formula", "save", "result", "outputs", "prepare")

    def __init__(self, formula, save=(), result=False, outputs=None, prepare=None):
        self.formula = formula
        self.save = save
        self.result = result
        self.outputs = outputs
        self.prepare = prepare  # args -> args for the forward call (e.g. sort: ask for indices)


def sum_to(g, shape):
    """Sum ``g`` over the dims that broadcasting added or stretched, giving ``shape``."""
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    if dims:
        g = R.sum(g, axis=dims, keepdims=True)
    return V.reshape(g, tuple(shape))


def _arg(node, i):
    """Argument ``i``: the saved tensor, or the Python scalar the op was called with."""
    if i in node.saved:
        return node.saved_tensor(i)
    return node.args[i]


def _both(node, gx, gy):
    return (gx if node.needs[0] else None, gy if node.needs[1] else None)


def _row(fn, *save, result=False):
    return Derivative(fn, save=save, result=result)


# -- elementwise: binary ----------------------------------------------------------------------


def _mul(node, g):
    x, y = _arg(node, 0), _arg(node, 1)
    return _both(
        node,
        E.multiply(g, y) if node.needs[0] else None,
        E.multiply(g, x) if node.needs[1] else None,
    )


def _div(node, g):
    x, y = _arg(node, 0), _arg(node, 1)
    gx = E.divide(g, y)
    gy = E.negative(E.multiply(gx, E.divide(x, y))) if node.needs[1] else None
    return _both(node, gx, gy)


def _pow(node, g):
    # d/dx x**y = y * x**(y-1) (0 where y == 0, so that 0**0 has gradient 0 as in PyTorch);
    # d/dy x**y = x**y * log(x)   (0 where x == 0 and y >= 0: the limit from the right)
    x, y = _arg(node, 0), _arg(node, 1)
    gx = gy = None
    if node.needs[0]:
        gx = E.multiply(g, E.multiply(y, E.pow(x, E.subtract(y, 1))))
        gx = E.where(E.equal(y, 0), 0.0, gx)
    if node.needs[1]:
        r = node.saved_tensor("result")
        gy = E.multiply(g, E.multiply(r, E.log(x)))
        gy = E.where(E.logical_and(E.equal(x, 0), E.greater_equal(y, 0)), 0.0, gy)
    return _both(node, gx, gy)


def _extremum(greater):
    # PyTorch's rule for maximum/minimum: the winner gets the gradient, a tie splits it in half.
    def formula(node, g):
        x, y = _arg(node, 0), _arg(node, 1)
        half = E.multiply(g, 0.5)
        wins_x = greater(x, y)
        wins_y = greater(y, x)
        tie = E.equal(x, y)
        gx = E.where(tie, half, E.where(wins_y, 0.0, g)) if node.needs[0] else None
        gy = E.where(tie, half, E.where(wins_x, 0.0, g)) if node.needs[1] else None
        return _both(node, gx, gy)

    return formula


def _atan2(node, g):
    y, x = _arg(node, 0), _arg(node, 1)  # atan2(y, x)
    r2 = E.add(E.multiply(x, x), E.multiply(y, y))
    return _both(node, E.multiply(g, E.divide(x, r2)), E.multiply(g, E.divide(E.negative(y), r2)))


def _hypot(node, g):
    x, y, r = _arg(node, 0), _arg(node, 1), node.saved_tensor("result")
    return _both(node, E.multiply(g, E.divide(x, r)), E.multiply(g, E.divide(y, r)))


def _copysign(node, g):
    x, r = _arg(node, 0), node.saved_tensor("result")
    ratio = E.where(E.equal(x, 0), 0.0, E.divide(r, E.where(E.equal(x, 0), 1.0, x)))
    return _both(node, E.multiply(g, ratio), None)


def _logaddexp(node, g):
    x, y = _arg(node, 0), _arg(node, 1)
    return _both(
        node,
        E.multiply(g, E.sigmoid(E.subtract(x, y))),
        E.multiply(g, E.sigmoid(E.subtract(y, x))),
    )


def _remainder(node, g):
    x, y = _arg(node, 0), _arg(node, 1)
    gy = E.negative(E.multiply(g, E.floor_divide(x, y))) if node.needs[1] else None
    return _both(node, g, gy)


def _where(node, g):
    c = node.saved_tensor(0)
    gx = E.where(c, g, 0.0) if node.needs[1] else None
    gy = E.where(c, 0.0, g) if node.needs[2] else None
    return (None, gx, gy)


# -- elementwise: unary (x is argument 0, r the result) ----------------------------------------


def _unary(fn, save_x=True, result=False):
    """A unary row: ``fn(g, x, r)`` is the gradient of x."""

    def formula(node, g):
        x = node.saved_tensor(0) if save_x else None
        r = node.saved_tensor("result") if result else None
        return (fn(g, x, r),)

    return Derivative(formula, save=(0,) if save_x else (), result=result)


def _zero_grad(node, *grads):
    """Piecewise-constant ops (floor, sign, ...): differentiable, with gradient zero."""
    return tuple(
        _cr.zeros(m[0], dtype=m[1], device=m[2]) if need else None
        for need, m in zip(node.needs, node.input_meta, strict=True)
    )


_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

TABLE = {
    "add": _row(lambda n, g: _both(n, g, g)),
    "subtract": _row(lambda n, g: _both(n, g, E.negative(g) if n.needs[1] else None)),
    "multiply": _row(_mul, 0, 1),
    "divide": _row(_div, 0, 1),
    "pow": _row(_pow, 0, 1, result=True),
    "maximum": _row(_extremum(E.greater), 0, 1),
    "minimum": _row(_extremum(E.less), 0, 1),
    "atan2": _row(_atan2, 0, 1),
    "hypot": _row(_hypot, 0, 1, result=True),
    "copysign": _row(_copysign, 0, result=True),
    "logaddexp": _row(_logaddexp, 0, 1),
    "remainder": _row(_remainder, 0, 1),
    "floor_divide": _row(_zero_grad),
    "where": _row(_where, 0),
    "abs": _unary(lambda g, x, r: E.multiply(g, E.sign(x))),
    "negative": _unary(lambda g, x, r: E.negative(g), save_x=False),
    "positive": _unary(lambda g, x, r: g, save_x=False),
    "conj": _unary(lambda g, x, r: E.conj(g), save_x=False),
    "real": _unary(lambda g, x, r: g, save_x=False),
    "square": _unary(lambda g, x, r: E.multiply(g, E.multiply(x, 2.0))),
    "sqrt": _unary(lambda g, x, r: E.divide(g, E.multiply(r, 2.0)), False, True),
    "reciprocal": _unary(lambda g, x, r: E.negative(E.multiply(g, E.square(r))), False, True),
    "exp": _unary(lambda g, x, r: E.multiply(g, r), False, True),
    "expm1": _unary(lambda g, x, r: E.multiply(g, E.add(r, 1.0)), False, True),
    "log": _unary(lambda g, x, r: E.divide(g, x)),
    "log1p": _unary(lambda g, x, r: E.divide(g, E.add(x, 1.0))),
    "log2": _unary(lambda g, x, r: E.divide(g, E.multiply(x, _LN2))),
    "log10": _unary(lambda g, x, r: E.divide(g, E.multiply(x, _LN10))),
    "sin": _unary(lambda g, x, r: E.multiply(g, E.cos(x))),
    "cos": _unary(lambda g, x, r: E.negative(E.multiply(g, E.sin(x)))),
    "tan": _unary(lambda g, x, r: E.multiply(g, E.add(E.square(r), 1.0)), False, True),
    "asin": _unary(lambda g, x, r: E.divide(g, E.sqrt(E.subtract(1.0, E.square(x))))),
    "acos": _unary(lambda g, x, r: E.negative(E.divide(g, E.sqrt(E.subtract(1.0, E.square(x)))))),
    "atan": _unary(lambda g, x, r: E.divide(g, E.add(E.square(x), 1.0))),
    "sinh": _unary(lambda g, x, r: E.multiply(g, E.cosh(x))),
    "cosh": _unary(lambda g, x, r: E.multiply(g, E.sinh(x))),
    "tanh": _unary(lambda g, x, r: E.multiply(g, E.subtract(1.0, E.square(r))), False, True),
    "asinh": _unary(lambda g, x, r: E.divide(g, E.sqrt(E.add(E.square(x), 1.0)))),
    "acosh": _unary(
        lambda g, x, r: E.divide(g, E.multiply(E.sqrt(E.subtract(x, 1.0)), E.sqrt(E.add(x, 1.0))))
    ),
    "atanh": _unary(lambda g, x, r: E.divide(g, E.subtract(1.0, E.square(x)))),
    "erf": _unary(
        lambda g, x, r: E.multiply(g, E.multiply(E.exp(E.negative(E.square(x))), _TWO_OVER_SQRT_PI))
    ),
    "sigmoid": _unary(
        lambda g, x, r: E.multiply(g, E.multiply(r, E.subtract(1.0, r))), False, True
    ),
    "softplus": _unary(lambda g, x, r: E.multiply(g, E.sigmoid(x))),
    # PyTorch's threshold_backward: the gradient passes where the result is positive
    "relu": _unary(lambda g, x, r: E.where(E.greater(r, 0), g, 0.0), False, True),
    "ceil": _row(_zero_grad),
    "floor": _row(_zero_grad),
    "trunc": _row(_zero_grad),
    "round": _row(_zero_grad),
    "sign": _row(_zero_grad),
}


# -- reductions (kernel signature: x, dims, keepdims, dtype) -----------------------------------


def _keep(g, node):
    """The gradient of a reduction, with the reduced dims back as size 1 (keepdims form)."""
    dims, keepdims = node.args[1], node.args[2]
    if keepdims or not dims:
        return g
    shape = list(node.input_meta[0][0])
    for d in dims:
        shape[d] = 1
    return V.reshape(g, tuple(shape))


def _sum(node, g):
    return (V.expand(_keep(g, node), node.input_meta[0][0]), None, None, None)


def _prod_others(x, dims):
    """For each element, the product of the *other* elements of its reduction group, without
    dividing (so zeros are fine): exclusive cumulative products from the left and the right."""
    n = x.ndim
    rest = [d for d in range(n) if d not in dims]
    moved = V.permute(x, rest + list(dims))  # reduced dims last ...
    flat = V.reshape(moved, tuple(moved.shape[: len(rest)]) + (-1,))  # ... and merged
    left = _scan.cumulative_prod(flat, axis=-1, include_initial=True)
    left = V.narrow(left, -1, 0, flat.shape[-1])
    rflat = V.flip(flat, axis=(-1,))
    right = _scan.cumulative_prod(rflat, axis=-1, include_initial=True)
    right = V.flip(V.narrow(right, -1, 0, flat.shape[-1]), axis=(-1,))
    others = V.reshape(E.multiply(left, right), moved.shape)
    inverse = [0] * n
    for i, d in enumerate(rest + list(dims)):
        inverse[d] = i
    return V.permute(others, inverse)


def _prod(node, g):
    x = node.saved_tensor(0)
    dims = node.args[1]
    if x.ndim == 0:
        return (g, None, None, None)
    return (E.multiply(V.expand(_keep(g, node), x.shape), _prod_others(x, dims)), None, None, None)


def _max_min(node, g):
    # The gradient goes to the elements equal to the result, split evenly among ties (as
    # PyTorch's amax/amin and its full max()/min()).
    x, r = node.saved_tensor(0), node.saved_tensor("result")
    rk = _keep(r, node)
    mask = E.equal(x, rk)
    # counted in g's dtype: an int64 count would promote a float32 share to float64
    count = R.sum(mask, axis=node.args[1], keepdims=True, dtype=g.dtype)
    share = E.divide(_keep(g, node), count)
    return (E.where(mask, share, 0.0), None, None, None)


def _softmax(node, g):  # kernel signature: (x, dims)
    y = node.saved_tensor("result")
    if not _grad_mode.state.enabled:  # no graph of this backward: one fused launch on a GPU
        fused = R.softmax_backward(g, y, node.args[1], log=False)
        if fused is not None:
            return (fused, None)
    dot = R.sum(E.multiply(g, y), axis=node.args[1], keepdims=True)
    return (E.multiply(y, E.subtract(g, dot)), None)


def _log_softmax(node, g):
    y = node.saved_tensor("result")
    if not _grad_mode.state.enabled:  # see _softmax
        fused = R.softmax_backward(g, y, node.args[1], log=True)
        if fused is not None:
            return (fused, None)
    total = R.sum(g, axis=node.args[1], keepdims=True)
    return (E.subtract(g, E.multiply(E.exp(y), total)), None)


def _logsumexp(node, g):  # kernel signature: (x, dims, keepdims)
    x, r = node.saved_tensor(0), node.saved_tensor("result")
    return (E.multiply(_keep(g, node), E.exp(E.subtract(x, _keep(r, node)))), None, None)


TABLE.update(
    {
        "sum": _row(_sum),
        "prod": _row(_prod, 0),
        "max": _row(_max_min, 0, result=True),
        "min": _row(_max_min, 0, result=True),
        "softmax": _row(_softmax, result=True),
        "log_softmax": _row(_log_softmax, result=True),
        "logsumexp": _row(_logsumexp, 0, result=True),
    }
)


# -- scans (kernel signature: x, axis, include_initial, dtype) ---------------------------------


def _reverse_cumsum(g, axis):
    return V.flip(_scan.cumulative_sum(V.flip(g, axis=(axis,)), axis=axis), axis=(axis,))


def _drop_initial(g, node):
    axis, include_initial = node.args[1], node.args[2]
    if include_initial:  # out[k] = f(x[:k]): out[0] depends on nothing
        return V.narrow(g, axis, 1, g.shape[axis] - 1)
    return g


def _cumsum(node, g):
    axis = node.args[1]
    return (_reverse_cumsum(_drop_initial(g, node), axis), None, None, None)


def _cumprod_quadratic(x, g, axis):
    """grad x[k] = sum over j >= k of g[j] * P[k] * C[k, j], with P[k] the product of x[:k]
    and C[k, j] the product of x[k+1 .. j]: a polynomial in x (Note [cumprod backward with
    zeros]), built as an n x n matrix per line along the axis."""
    n = x.shape[axis]
    xm = V.movedim(x, axis, -1)  # (..., n)
    gm = V.movedim(g, axis, -1)
    ids = _cr.arange(n, device=x.device)  # the masks meet x in `where`: on x's device
    after = E.greater(V.expand_dims(ids, axis=0), V.expand_dims(ids, axis=1))  # [k, i]: i > k
    rows = E.where(after, V.expand_dims(xm, axis=-2), 1.0)  # (..., n, n): x[i] for i > k, else 1
    c = _scan.cumulative_prod(rows, axis=-1)  # [k, j]: the product of x[k+1 .. j]
    p = V.narrow(_scan.cumulative_prod(xm, axis=-1, include_initial=True), -1, 0, n)
    upper = E.greater_equal(V.expand_dims(ids, axis=0), V.expand_dims(ids, axis=1))  # j >= k
    terms = E.where(upper, E.multiply(c, V.expand_dims(gm, axis=-2)), 0.0)
    gx = E.multiply(R.sum(terms, axis=-1), p)
    return V.movedim(gx, -1, axis)


def _cumprod(node, g):
    # Note [cumprod backward with zeros]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # y[j] = x[0] * ... * x[j], so dy[j]/dx[k] = prod over i <= j, i != k of x[i] (k <= j), and
    # grad x[k] = sum over j >= k of g[j] * dy[j]/dx[k]. Without zeros that is
    # reversed_cumsum(g * y)[k] / x[k]. With zeros, as PyTorch's cumprod_backward, split each
    # line along the axis at its first zero z:
    # * k < z: the same formula (x[k] != 0, and y[j] = 0 for j >= z adds nothing);
    # * k = z: sum over j >= z of g[j] * y'[j], where y' is the cumprod of x with x[z] set to 1
    #   (y'[j] is then the product of the others; a second zero after z zeroes it, as it must);
    # * k > z: 0, since every y[j] with j >= k contains the factor x[z] = 0.
    # The division only ever sees the nonzero x[k] with k < z. These values are exact, but the
    # masks make them piecewise: the gradient at k > z is 0 *at* x[z] = 0, while its derivative
    # in x[z] is not. So when backward itself is recorded (create_graph, grad mode on), zeros take
    # PyTorch's other route, a formula that is a polynomial in x (``_cumprod_quadratic``, O(n^2)
    # along the axis) and so differentiates right to any order.
    x, r = node.saved_tensor(0), node.saved_tensor("result")
    axis = node.args[1]
    g, r = _drop_initial(g, node), _drop_initial(r, node)
    if x.ndim == 0 or x.shape[axis] <= 1:
        return (g, None, None, None)
    zero = E.equal(x, 0)
    if not bool(R.any(zero)):  # the common case: one formula, no masks
        return (E.divide(_reverse_cumsum(E.multiply(g, r), axis), x), None, None, None)
    if _grad_mode.state.enabled:
        return (_cumprod_quadratic(x, g, axis), None, None, None)
    zeros_so_far = _scan.cumulative_sum(zero, axis=axis)
    before = E.equal(zeros_so_far, 0)  # k < z
    first = E.logical_and(zero, E.equal(zeros_so_far, 1))  # k = z
    safe_x = E.where(before, x, 1.0)
    g_before = E.divide(_reverse_cumsum(E.multiply(g, r), axis), safe_x)
    others = _scan.cumulative_prod(E.where(first, 1.0, x), axis=axis)  # y' above
    g_first = _reverse_cumsum(E.multiply(g, others), axis)
    gx = E.where(before, g_before, E.where(first, g_first, 0.0))
    return (gx, None, None, None)


TABLE.update(
    {
        "cumulative_sum": _row(_cumsum),
        "cumulative_prod": _row(_cumprod, 0, result=True),
    }
)


# -- matrix products ---------------------------------------------------------------------------


def _matmul_grads(g, a, b, need_a, need_b):
    """Gradients of ``a @ b`` (NumPy's matmul, 1-D operands included) given the gradient g of
    the product: g @ b^T and a^T @ g, with the 1-D operands seen as a row and a column."""
    a2 = V.expand_dims(a, axis=0) if a.ndim == 1 else a
    b2 = V.expand_dims(b, axis=-1) if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = V.expand_dims(g2, axis=-2 if b.ndim > 1 else 0)
    if b.ndim == 1:
        g2 = V.expand_dims(g2, axis=-1)
    ga = _la.matmul(g2, V.matrix_transpose(b2)) if need_a else None
    gb = _la.matmul(V.matrix_transpose(a2), g2) if need_b else None
    if ga is not None and a.ndim == 1:
        ga = V.squeeze(ga, axis=-2)
    if gb is not None and b.ndim == 1:
        gb = V.squeeze(gb, axis=-1)
    return ga, gb


def _matmul(node, g):
    a, b = node.saved_tensor(0), node.saved_tensor(1)
    return _matmul_grads(g, a, b, node.needs[0], node.needs[1])


def _addmm(node, g):  # beta * input + alpha * (mat1 @ mat2)
    beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
    m1, m2 = node.saved_tensor(1), node.saved_tensor(2)
    gi = E.multiply(g, beta) if node.needs[0] else None
    ga = E.multiply(g, alpha) if alpha != 1 else g
    g1, g2 = _matmul_grads(ga, m1, m2, node.needs[1], node.needs[2])
    return (gi, g1, g2)


TABLE.update({"matmul": _row(_matmul, 0, 1), "addmm": _row(_addmm, 1, 2)})


# -- FFTs (kernels: fft_c2c(x, s, axes, norm, forward); fft_r2c and fft_c2r(x, s, axes, norm)) --
# Each is linear: the gradient is the adjoint transform, another FFT (Note [FFT gradients] in
# strided/fft.py).


def _fft_pad_end(g, axis, length):
    """``g`` zero-padded at the end of ``axis`` to ``length``."""
    pairs = [(0, length - g.shape[d] if d == axis else 0) for d in range(g.ndim)]
    return _pad.pad_pairs(g, pairs)


def _fft_unresize(g, shape, axes):
    """The adjoint of padding or truncating the input to the transform's lengths: drop what
    the padding added, pad with zeros what the truncation cut."""
    for a in axes:
        if g.shape[a] > shape[a]:
            g = V.narrow(g, a, 0, shape[a])
        elif g.shape[a] < shape[a]:
            g = _fft_pad_end(g, a, shape[a])
    return g


def _fft_input_grad(node, g):
    """``g`` as the gradient of input 0: its shape (undoing n/s), and real for a real input."""
    shape, dtype = node.input_meta[0][:2]
    g = _fft_unresize(g, shape, node.args[2])
    return E.real(g) if dtype.kind != "c" else g


def _fft_c2c(node, g):
    s, axes, norm, forward = node.args[1:5]
    gx = _fft.c2c(g, s, axes, _fft.DUAL_NORM[norm], not forward)
    return (_fft_input_grad(node, gx), None, None, None, None)


def _fft_r2c(node, g):
    # the one-sided half back to the full spectrum (zeros), then the full adjoint transform
    s, axes, norm = node.args[1:4]
    full = _fft_pad_end(g, axes[-1], s[-1])
    gx = _fft.c2c(full, s, axes, _fft.DUAL_NORM[norm], False)
    return (_fft_input_grad(node, gx), None, None, None)


def _fft_c2r(node, g):
    # rfft of the gradient, with the bins that also stand for their mirror images doubled
    s, axes, norm = node.args[1:4]
    gz = _fft.r2c(g, s, axes, _fft.DUAL_NORM[norm])
    n, last = s[-1], axes[-1]
    m = n // 2 + 1
    if n - m > 0:
        weight = np.ones(m, dtype=_fft.REAL_DTYPE_OF[gz.dtype.name].numpy)
        weight[1 : n - m + 1] = 2
        shape = [1] * gz.ndim
        shape[last] = m
        w = _cr.asarray(weight.reshape(shape), device=gz.device)
        gz = E.multiply(gz, w)
    return (_fft_input_grad(node, gz), None, None, None)


TABLE.update(
    {
        "fft_c2c": _row(_fft_c2c),
        "fft_r2c": _row(_fft_r2c),
        "fft_c2r": _row(_fft_c2r),
    }
)


# -- joining and copying shape ops -------------------------------------------------------------


def _concat(node, g):  # kernel: (*arrays, axis=)
    axis = node.kwargs["axis"]
    grads, start = [], 0
    if axis is None:  # concat of flattened inputs
        for need, (shape, *_) in zip(node.needs, node.input_meta, strict=True):
            n = math.prod(shape)
            grads.append(V.reshape(V.narrow(g, 0, start, n), shape) if need else None)
            start += n
        return tuple(grads)
    for need, (shape, *_) in zip(node.needs, node.input_meta, strict=True):
        n = shape[axis] if shape else 1
        grads.append(V.narrow(g, axis, start, n) if need else None)
        start += n
    return tuple(grads)


def _stack(node, g):
    axis = node.kwargs["axis"]
    return tuple(V.select(g, axis, i) if need else None for i, need in enumerate(node.needs))


def _meshgrid(node, *grads):  # kernel: (*arrays, indexing=, copy=); one output per input
    """Grid i is input i stretched along every other grid axis (Note [meshgrid is expanded
    views] in _ops/shape.py), so its gradient is grid i's gradient summed over those axes."""
    n = len(node.needs)
    order = list(range(n))
    if node.kwargs["indexing"] == "xy" and n >= 2:
        order[0], order[1] = 1, 0  # as the kernel: the first input runs along axis 1
    out = []
    for i, need in enumerate(node.needs):
        g = grads[i] if i < len(grads) else None
        if not need or g is None:
            out.append(None)
            continue
        others = tuple(d for d in range(n) if d != order[i])
        if others:
            g = R.sum(g, axis=others)
        out.append(V.reshape(g, node.input_meta[i][0]))  # (n_i,), or () for a 0-d input
    return tuple(out)


def _index_map(node, g):
    """The backward of any op that only moves, repeats or drops elements (tile, repeat, roll,
    pad): run the same op on the *positions* 0..n-1 of the input, then add each gradient
    element into the position it came from (a scatter-add). Positions a pad invented hold -1
    and get nothing."""
    shape, dtype = node.input_meta[0][:2]
    n = math.prod(shape)
    ids = V.reshape(_cr.arange(n, dtype="int64", device=g.device), shape)  # on g's device
    args = (ids,) + tuple(node.args[1:])
    if node.op == "pad":  # positions a constant pad invents get -1
        args = (ids, node.args[1], node.args[2], -1)
    where = _dispatch.redispatch(node.op, "Autograd", *args, **node.kwargs)
    flat_where = V.reshape(where, (-1,))
    flat_g = V.reshape(g, (-1,))
    if node.op == "pad" and node.args[2] == "constant":
        keep = E.greater_equal(flat_where, 0)
        flat_g = E.where(keep, flat_g, 0.0)
        flat_where = E.where(keep, flat_where, 0)
    gx = _ix.index_add(_cr.zeros(n, dtype=g.dtype, device=g.device), 0, flat_where, flat_g)
    return (V.reshape(gx, shape),) + (None,) * (len(node.args) - 1)


def _pad_back(node, g):
    """pad: with mode='constant' the input's elements sit in one box of the output, so their
    gradient is that box of ``g``, a view when no pad is negative (a crop); the other modes
    repeat elements, and go through ``_index_map``."""
    if node.args[2] != "constant":
        return _index_map(node, g)
    shape = node.input_meta[0][0]
    in_box, out_box = [], []
    for (lo, hi), n in zip(node.args[1], shape, strict=True):
        # input element i lands at output i + lo; a negative pad crops the input's ends
        first, stop = max(0, -lo), n - max(0, -hi)
        in_box.append(slice(first, max(first, stop)))
        out_box.append(slice(first + lo, max(first, stop) + lo))
    box = g[tuple(out_box)]
    if all(lo >= 0 and hi >= 0 for lo, hi in node.args[1]):
        return (box,) + (None,) * (len(node.args) - 1)
    gx = _cr.zeros(shape, dtype=g.dtype, device=g.device)
    gx[tuple(in_box)] = box
    return (gx,) + (None,) * (len(node.args) - 1)


def _triangle(lower):
    def formula(node, g):
        k = node.args[1]
        return ((_sh.tril if lower else _sh.triu)(g, k=k), None)

    return formula


TABLE.update(
    {
        "concat": _row(_concat),
        "stack": _row(_stack),
        "meshgrid": _row(_meshgrid),
        "tile": _row(_index_map),
        "repeat": _row(_index_map),
        "roll": _row(_index_map),
        "pad": _row(_pad_back),
        "tril": _row(_triangle(True)),
        "triu": _row(_triangle(False)),
    }
)


# -- indexing ----------------------------------------------------------------------------------


def _zeros_for(node, i=0, dtype=None):
    shape, dt, device = node.input_meta[i]
    return _cr.zeros(shape, dtype=dtype or dt, device=device)


def _gather(node, g):  # kernel: (x, dim, index)
    dim, index = node.args[1], node.saved_tensor(2)
    return (_ix.scatter_add(_zeros_for(node, dtype=g.dtype), dim, index, g), None, None)


def _take(node, g):  # kernel: (x, indices, axis): out = x.shape[:axis] + indices.shape + rest
    idx, axis = node.saved_tensor(1), node.args[2]
    shape = node.input_meta[0][0]
    flat_shape = shape[:axis] + (idx.numel(),) + shape[axis + 1 :]
    g = V.reshape(g, flat_shape)
    gx = _ix.index_add(_zeros_for(node, dtype=g.dtype), axis, V.reshape(idx, (-1,)), g)
    return (gx, None, None)


def _index(node, g):  # kernel: (x, index): advanced indexing
    index = _arg(node, 1)  # a tuple, or one index tensor (then saved)
    index = index if isinstance(index, tuple) else (index,)
    gx = _ix.index_put(_zeros_for(node, dtype=g.dtype), index, g, accumulate=True)
    return (gx, None)


def _index_put(node, g):  # in place: (x, index, values[, accumulate])
    index = _arg(node, 1)
    index = index if isinstance(index, tuple) else (index,)
    accumulate = node.args[3] if len(node.args) > 3 else False
    gx = None
    if node.needs[0]:  # overwritten positions lose their gradient, added-to ones keep it
        gx = g if accumulate else _ix.index_put(g, index, 0.0)
    gv = _ix.getitem(g, index) if node.needs[2] else None
    return (gx, None, gv) + (None,) * (len(node.args) - 3)


def _scatter_assign(node, g):  # in place: (x, dim, index, src)
    dim, index = node.args[1], node.saved_tensor(2)
    gx = _ix.scatter(g, dim, index, 0.0) if node.needs[0] else None
    gs = _ix.gather(g, dim, index) if node.needs[3] else None
    return (gx, None, None, gs)


def _scatter_add(node, g):
    dim, index = node.args[1], node.saved_tensor(2)
    gs = _ix.gather(g, dim, index) if node.needs[3] else None
    return (g, None, None, gs)


def _index_add(node, g):  # in place: (x, dim, index, source)
    dim, index = node.args[1], node.saved_tensor(2)
    gs = _ix.index_select(g, dim, index) if node.needs[3] else None
    return (g, None, None, gs)


def _masked_fill(node, g):  # (x, mask, value)
    mask = node.saved_tensor(1)
    return (E.where(mask, 0.0, g), None, None)


def _sort(node, gvalues, gindices=None):  # (x, axis, descending, want_values, want_indices)
    indices = node.saved_tensor("indices")
    axis = node.args[1]
    x = _zeros_for(node, dtype=gvalues.dtype)
    if x.ndim == 0:
        return (gvalues,) + (None,) * 4
    return (_ix.scatter(x, axis, indices, gvalues),) + (None,) * 4


def _topk(node, gvalues, gindices=None):  # (x, dim, k, largest)
    indices = node.saved_tensor("indices")
    x = _zeros_for(node, dtype=gvalues.dtype)
    if x.ndim == 0:
        return (gvalues, None, None, None)
    return (_ix.scatter(x, node.args[1], indices, gvalues), None, None, None)


def _ask_for_indices(args):
    x, axis, descending, want_values, _ = args
    return (x, axis, descending, want_values, True)


TABLE.update(
    {
        "gather": _row(_gather, 2),
        "take_along_axis": _row(_gather, 2),
        "take": _row(_take, 1),
        "index_select": _row(_take, 1),
        "index": _row(_index, 1),
        "index_put_": _row(_index_put, 1),
        "scatter_": _row(_scatter_assign, 2),
        "scatter_add_": _row(_scatter_add, 2),
        "index_add_": _row(_index_add, 2),
        "masked_fill": _row(_masked_fill, 1),
        "sort": Derivative(_sort, outputs=(0,), prepare=_ask_for_indices),
        "topk": Derivative(_topk, outputs=(0,)),
    }
)


# -- copies (not dispatched ops: see Note [Ops outside the dispatcher] in recording.py) --------

TABLE.update(
    {
        # contiguous_copy(src, dtype): the engine casts the gradient back to src's dtype
        "contiguous_copy": _row(lambda n, g: (g, None)),
        # copy_(dst, src): the old values of dst are gone (no gradient); src gets g
        "copy_": _row(lambda n, g: (None, g)),
        "fill_": _row(lambda n, g: (None, None)),
    }
)

NOT_DIFFERENTIABLE = frozenset(
    {
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "logical_and",
        "logical_or",
        "logical_xor",
        "logical_not",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_left_shift",
        "bitwise_right_shift",
        "bitwise_invert",
        "isfinite",
        "isinf",
        "isnan",
        "signbit",
        "any",
        "all",
        "argmax",
        "argmin",
        "nonzero",
        "searchsorted",
        "unique",
        "nextafter",
    }
)


# -- views ---------------------------------------------------------------------------------------
# Views are not dispatched either (they are metadata arithmetic in _views.pyx). A view node keeps
# the input's and the output's geometry; ``formula(node, g)`` returns the input's gradient.


def _strided_backward(node, g):
    """The backward of any view, as PyTorch's as_strided_backward: add each gradient element
    into the storage cell the view read it from, then read the input's cells back. Works for
    views that overlap themselves (expand, unfold, as_strided with small strides), where one
    cell feeds several outputs and their gradients must add up."""
    in_shape, in_strides, in_offset = node.in_geometry
    cells = node.storage_cells
    flat = _ix.index_add(
        _cr.zeros(cells, dtype=g.dtype, device=g.device),
        0,
        _view_positions(cells, node.out_geometry, g.device),
        V.reshape(g, (-1,)),
    )
    return V.as_strided(flat, in_shape, in_strides, in_offset)


# Note [Cached view positions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# _strided_backward needs, for every element of the view, the storage cell it was read from:
# an int64 tensor that depends only on the view's geometry (storage size, shape, strides,
# offset) and device. A training loop differentiates the same views every step (a
# convolution's window view), so the last few are kept: computing one is an int64 copy as large
# as the view itself (for a 64x16x8x8 convolution's 3x3 windows, 147,456 positions: more time
# than the convolution's matmul). Nobody writes into them: index_add only reads its indices.
_POSITIONS: dict = {}
_POSITIONS_KEPT = 8


def _view_positions(cells, geometry, device):
    """The storage cell of each element of the view ``geometry`` (shape, strides, offset) over
    ``cells`` cells, flattened in row-major order: a contiguous int64 tensor on ``device``."""
    key = (cells, geometry, device)
    positions = _POSITIONS.pop(key, None)
    if positions is None:
        shape, strides, offset = geometry
        view = _core._from_parts(
            _cr.arange(cells, dtype="int64", device=device).untyped_storage(),
            offset,
            shape,
            strides,
            int64,
        )
        positions = V.reshape(view, (-1,))
        if len(_POSITIONS) >= _POSITIONS_KEPT:
            del _POSITIONS[next(iter(_POSITIONS))]  # the least recently used
    _POSITIONS[key] = positions  # (re)inserted last: the most recently used
    return positions


def _inverse_permutation(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return inv


def _permute_back(node, g):
    """permute, transpose, movedim, .T, .mT: undo the permutation of the dims."""
    return V.permute(g, _inverse_permutation(node.permutation))


def _reshape_back(node, g):
    """view, reshape, squeeze, unsqueeze, flatten, unflatten: the same elements in the same
    order, only grouped into other dims."""
    return V.reshape(g, node.in_geometry[0])


def _flip_back(node, g):
    return V.flip(g, axis=node.flip_dims)


def _expand_back(node, g):
    """expand, broadcast_to: the engine sums the stretched dims (Note [Gradients take their
    input's shape] in engine.py)."""
    return g


# -- linear algebra (the LAPACK ops of _ops/linalg_solve.py) ----------------------------------
# Note [Matrix derivatives]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# With A^H the conjugate transpose and g the incoming gradient (PyTorch's convention for complex
# tensors: the conjugate Wirtinger derivative, so for real tensors these are the usual ones):
#   inv:       X = A^-1                gA = -X^H g X^H
#   det:       d = det A               gA = g conj(d) A^-H       (A must be invertible)
#   slogdet:   l = log|det A|          gA = g A^-H               (real A)
#   solve:     X = A^-1 B              gB = A^-H g,  gA = -gB X^H
#   cholesky:  A = L L^H               gA = sym(L^-H Phi(L^H g) L^-1), Phi: the lower triangle
#                                      with its diagonal halved, sym(M) = (M + M^H) / 2
#   eigh:      A = V diag(w) V^H       gA = V (diag(gw) + skew(V^H gV) / E) V^H, where
#                                      E_ij = w_j - w_i and skew(M) = (M - M^H) / 2
# eigh's gradient is unique only for distinct eigenvalues (E has zeros off the diagonal
# otherwise, and the result is inf or NaN, as in PyTorch), and, like PyTorch's, it is the
# Hermitian gradient: the input is assumed Hermitian, not only its lower triangle read.
#   svd:       A = U diag(S) Vh        (reduced) gA = U (J + diag(gS)) Vh, plus the parts
#              outside U's and V's spans when A is not square (PyTorch's svd_backward), where
#              J = (skew(U^H gU) S + S skew(Vh gVh^H)) / E, E_jk = S_k^2 - S_j^2
#   qr:        A = Q R (m >= n)        gA = (gQ + Q copyltu(M)) R^-H, M = R gR^H - gQ^H Q,
#                                      copyltu(M) = tril(M) + tril(M, -1)^H
# svd's, qr's and eigvalsh's rows recompute the factors from the saved input (LAPACK gives the
# same bits again) rather than saving three outputs; with create_graph the recomputation is
# itself recorded, so the second derivative sees the factors depend on the input. The singular
# vectors' gradient needs distinct singular values; for complex input only the singular values
# are differentiable here, and full_matrices=True only for square input (the extra columns are
# not unique), as in PyTorch.
# eig and eigvals have no row yet: called on a tensor that requires grad they raise.


def _mH(t):
    return E.conj(V.matrix_transpose(t)) if t.dtype.kind == "c" else V.matrix_transpose(t)


def _lsolve():
    from strided._ops import linalg_solve

    return linalg_solve


def _linalg_inv(node, g):
    x = node.saved_tensor("result")
    xh = _mH(x)
    return (E.negative(_la.matmul(_la.matmul(xh, g), xh)),)


def _linalg_det(node, g):
    a, d = node.saved_tensor(0), node.saved_tensor("result")
    scale = V.expand_dims(V.expand_dims(E.multiply(g, E.conj(d)), -1), -1)
    return (E.multiply(scale, _mH(_lsolve().inv(a))),)


def _linalg_slogdet(node, gsign, glogabs):
    a = node.saved_tensor(0)
    if a.dtype.kind == "c":
        raise NotImplementedError(
            "slogdet: the gradient for complex input is not implemented; use det of a real "
            "matrix, or detach the input"
        )
    scale = V.expand_dims(V.expand_dims(glogabs, -1), -1)
    return (E.multiply(scale, _mH(_lsolve().inv(a))),)


def _linalg_solve(node, g):
    a, x = node.saved_tensor(0), node.saved_tensor("result")
    vector = x.ndim == a.ndim - 1  # x2 was a vector (it may not be a tensor at all)
    if vector:
        g, x = V.expand_dims(g, -1), V.expand_dims(x, -1)
    gb = _lsolve().solve(_mH(a), g)
    ga = E.negative(_la.matmul(gb, _mH(x))) if node.needs[0] else None
    return (ga, gb[..., 0] if vector else gb)


def _linalg_cholesky(node, g):
    low = node.saved_tensor("result")
    upper = node.args[1]
    if upper:
        low, g = _mH(low), _mH(g)
    n = low.shape[-1]
    eye = _cr.eye(n, dtype=low.dtype, device=low.device)
    p = _la.matmul(_mH(low), g)
    phi = E.subtract(_sh.tril(p), E.multiply(E.multiply(p, eye), 0.5))
    solve = _lsolve().solve
    y = solve(_mH(low), phi)  # L^-H Phi
    ga = _mH(solve(_mH(low), _mH(y)))  # (L^-H (L^-H Phi)^H)^H = L^-H Phi L^-1
    return (E.multiply(E.add(ga, _mH(ga)), 0.5), None)


def _eigh_grad(w, v, gw, gv):
    n = w.shape[-1]
    eye = _cr.eye(n, dtype=w.dtype, device=w.device)
    inner = None
    if gv is not None:
        vhgv = _la.matmul(_mH(v), gv)
        skew = E.multiply(E.subtract(vhgv, _mH(vhgv)), 0.5)
        e = E.subtract(V.expand_dims(w, -2), V.expand_dims(w, -1))  # e[i, j] = w[j] - w[i]
        e = E.add(e, eye)  # 1 on the diagonal, which the off-diagonal mask drops below
        inner = E.multiply(E.divide(skew, e), E.subtract(1, eye))
    if gw is not None:
        diag = E.multiply(V.expand_dims(gw, -1), eye)
        inner = diag if inner is None else E.add(inner, diag)
    return _la.matmul(_la.matmul(v, inner), _mH(v))


def _linalg_eigh(node, gw, gv):
    w, v = node.saved_tensor("result"), node.saved_tensor("indices")
    return (_eigh_grad(w, v, gw, gv), None)


def _linalg_eigvalsh(node, gw):
    w, v = _lsolve().eigh(node.saved_tensor(0), node.args[1])
    return (_eigh_grad(w, v, gw, None), None)


def _linalg_svd(node, *grads):  # (x, full_matrices, compute_uv, name)
    x, uv = node.saved_tensor(0), node.args[2]
    gu, gs, gvh = grads if uv else (None, grads[0], None)
    m, n = x.shape[-2:]
    k = min(m, n)
    u, s, vh = _la.svd(x, full_matrices=False)  # recorded under create_graph: double backward
    if gu is not None and gu.shape[-1] != k or gvh is not None and gvh.shape[-2] != k:
        raise NotImplementedError(
            "svd: the gradient of U and Vh with full_matrices=True is defined only for square "
            f"matrices (x has shape {x.shape}): use full_matrices=False"
        )
    if (gu is not None or gvh is not None) and x.dtype.kind == "c":
        raise NotImplementedError(
            "svd: the gradient through U and Vh of complex input is not implemented (that of "
            "the singular values is): use svdvals, or detach the input"
        )
    if gu is None and gvh is None:
        return (_la.matmul(E.multiply(u, V.expand_dims(gs, -2)), vh), None, None, None)
    eye = _cr.eye(k, dtype=s.dtype, device=s.device)
    s_row, s_col = V.expand_dims(s, -2), V.expand_dims(s, -1)
    e = E.add(E.subtract(E.multiply(s_row, s_row), E.multiply(s_col, s_col)), eye)
    v = _mH(vh)
    j = None
    if gu is not None:
        uhgu = _la.matmul(_mH(u), gu)
        j = E.multiply(E.subtract(uhgu, _mH(uhgu)), s_row)
    if gvh is not None:
        vhgv = _la.matmul(vh, _mH(gvh))
        t = E.multiply(s_col, E.subtract(vhgv, _mH(vhgv)))
        j = t if j is None else E.add(j, t)
    ga = E.multiply(E.divide(j, e), E.subtract(1, eye))
    if gs is not None:
        ga = E.add(ga, E.multiply(V.expand_dims(gs, -1), eye))
    if m > n and gu is not None:
        ga = _la.matmul(u, ga)
        gus = E.divide(gu, s_row)
        ga = E.add(ga, E.subtract(gus, _la.matmul(u, _la.matmul(_mH(u), gus))))
        ga = _la.matmul(ga, vh)
    elif m < n and gvh is not None:
        ga = _la.matmul(ga, vh)
        sgvh = E.divide(gvh, s_col)
        ga = E.add(ga, E.subtract(sgvh, _la.matmul(_la.matmul(sgvh, v), vh)))
        ga = _la.matmul(u, ga)
    else:
        ga = _la.matmul(u, _la.matmul(ga, vh))
    return (ga, None, None, None)


def _linalg_qr(node, *grads):  # (x, mode)
    x, mode = node.saved_tensor(0), node.args[1]
    gq, gr = grads if mode != "r" else (None, grads[0])
    m, n = x.shape[-2:]
    if m < n:
        raise NotImplementedError(
            f"qr: the gradient is implemented for matrices with at least as many rows as "
            f"columns (x has shape {x.shape}); the factors of a wide matrix are not unique"
        )
    q, r = _lsolve().qr(x)
    if mode == "complete" and m > n and gq is not None:
        raise NotImplementedError(
            f"qr: the gradient of Q with mode='complete' is not defined for a tall matrix (x has "
            f"shape {x.shape}): its last {m - n} columns are not unique; use mode='reduced'"
        )
    mm = None
    if gr is not None:
        mm = _la.matmul(r, _mH(gr))
    if gq is not None:
        t = _la.matmul(_mH(gq), q)
        mm = E.negative(t) if mm is None else E.subtract(mm, t)
    copyltu = E.add(_sh.tril(mm), _mH(_sh.tril(mm, k=-1)))
    b = _la.matmul(q, copyltu)
    if gq is not None:
        b = E.add(b, gq)
    # gA = B R^-H: solve R X = B^H, gA = X^H
    return (_mH(_lsolve().solve(r, _mH(b))), None)


TABLE.update(
    {
        "linalg_inv": _row(_linalg_inv, result=True),
        "linalg_svd": _row(_linalg_svd, 0),
        "linalg_qr": _row(_linalg_qr, 0),
        "linalg_det": _row(_linalg_det, 0, result=True),
        "linalg_slogdet": Derivative(_linalg_slogdet, save=(0,), outputs=(1,)),
        "linalg_solve": _row(_linalg_solve, 0, result=True),
        "linalg_cholesky": _row(_linalg_cholesky, result=True),
        # outputs (w, V): the row saves w as "result" and V as the second output
        "linalg_eigh": Derivative(_linalg_eigh, result=True, outputs=(0, 1)),
        "linalg_eigvalsh": _row(_linalg_eigvalsh, 0),
    }
)

VIEW_TABLE = {
    "permute": _permute_back,
    "transpose": _permute_back,
    "reverse_dims": _permute_back,
    "matrix_transpose": _permute_back,
    "movedim": _permute_back,
    "view": _reshape_back,
    "try_view": _reshape_back,
    "reshape_view": _reshape_back,
    "unflatten": _reshape_back,
    "squeeze": _reshape_back,
    "unsqueeze": _reshape_back,
    "expand": _expand_back,
    "broadcast_to": _expand_back,
    "flip": _flip_back,
    # everything else (getitem, narrow, select, split, chunk, unbind, unfold, diagonal,
    # as_strided) goes through the storage cells
}
