"""The derivatives table: one row per differentiable op, read top to bottom.

Note [How to read a formula]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A row is the op's kernel signature and one formula per differentiable input (PyTorch's
derivatives.yaml)::

    row("divide(x, other)",
        x=lambda grad, other: E.divide(grad, other),
        other=lambda grad, x, other: ...)

A formula's parameters are names: ``grad`` (the output's gradient), the op's inputs (their
values in the forward call), ``result`` (the output), and a few more listed in Note [Named
derivative rows] in rows.py, which also says how a row becomes a node. The names decide what is
saved for backward: ``exp`` saves its result, ``add`` nothing. A formula runs only for an input
that needs a gradient. A few formulas give several inputs' gradients at once (keyed
``**{"x, other": ...}``), where those share a subexpression.

When the op runs with an input that requires grad, the Autograd kernel (``recording.py``) makes
a ``FormulaNode`` (graph.py) holding the row; in backward the engine calls it with the output's
gradient, and each formula gives its input's gradient. The formulas are written with strided's
own public ops, so when the engine runs them with grad mode on (``create_graph=True``) they are
themselves recorded and can be differentiated again: double backward comes for free, as in
PyTorch. Formulas longer than a row live in ``formulas.py`` (PyTorch's FunctionsManual.cpp).

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

Views have a table of their own at the end (``VIEW_TABLE``): a view node keeps geometries, not
tensors (Note [The view kernel] in recording.py).
"""

from __future__ import annotations

from strided._ops import elementwise as E
from strided._ops import indexing as _ix
from strided._ops import shape as _sh
from strided._ops import views as V
from strided.autograd import formulas as F
from strided.autograd.rows import Derivative, row

__all__ = ["Derivative", "TABLE", "VIEW_TABLE", "NOT_DIFFERENTIABLE"]

ROWS = (
    # -- elementwise: binary -------------------------------------------------------------------
    row("add(x, other)", x=lambda grad: grad, other=lambda grad: grad),
    row("subtract(x, other)", x=lambda grad: grad, other=lambda grad: E.negative(grad)),
    row(
        "multiply(x, other)",
        x=lambda grad, other: E.multiply(grad, other),
        other=lambda grad, x: E.multiply(grad, x),
    ),
    row("divide(x, other)", **{"x, other": F.divide_backward}),
    row(
        "pow(x, other)",
        x=lambda grad, x, other: F.pow_base(grad, x, other),
        other=lambda grad, x, other, result: F.pow_exponent(grad, x, other, result),
    ),
    row(
        "maximum(x, other)",
        x=lambda grad, x, other: F.extremum(grad, x, other, E.greater),
        other=lambda grad, x, other: F.extremum(grad, other, x, E.greater),
    ),
    row(
        "minimum(x, other)",
        x=lambda grad, x, other: F.extremum(grad, x, other, E.less),
        other=lambda grad, x, other: F.extremum(grad, other, x, E.less),
    ),
    row("atan2(y, x)", **{"y, x": F.atan2_backward}),
    row(
        "hypot(x, other)",
        x=lambda grad, x, other, result: E.multiply(grad, E.divide(x, result)),
        other=lambda grad, x, other, result: E.multiply(grad, E.divide(other, result)),
    ),
    row("copysign(x, other)", x=F.copysign),
    row(
        "logaddexp(x, other)",
        x=lambda grad, x, other: E.multiply(grad, E.sigmoid(E.subtract(x, other))),
        other=lambda grad, x, other: E.multiply(grad, E.sigmoid(E.subtract(other, x))),
    ),
    row(
        "remainder(x, other)",
        x=lambda grad: grad,
        other=lambda grad, x, other: E.negative(E.multiply(grad, E.floor_divide(x, other))),
    ),
    row(
        "floor_divide(x, other)",
        x=lambda x_meta: F.zeros_of(x_meta),
        other=lambda other_meta: F.zeros_of(other_meta),
    ),
    row(
        "where(condition, x, other)",
        x=lambda grad, condition: E.where(condition, grad, 0.0),
        other=lambda grad, condition: E.where(condition, 0.0, grad),
    ),
    # -- elementwise: unary --------------------------------------------------------------------
    row("abs(x)", x=lambda grad, x: E.multiply(grad, E.sign(x))),
    row("negative(x)", x=lambda grad: E.negative(grad)),
    row("positive(x)", x=lambda grad: grad),
    row("conj(x)", x=lambda grad: E.conj(grad)),
    row("real(x)", x=lambda grad: grad),
    row("square(x)", x=lambda grad, x: E.multiply(grad, E.multiply(x, 2.0))),
    row("sqrt(x)", x=lambda grad, result: E.divide(grad, E.multiply(result, 2.0))),
    row("reciprocal(x)", x=lambda grad, result: E.negative(E.multiply(grad, E.square(result)))),
    row("exp(x)", x=lambda grad, result: E.multiply(grad, result)),
    row("expm1(x)", x=lambda grad, result: E.multiply(grad, E.add(result, 1.0))),
    row("exp2(x)", x=lambda grad, result: E.multiply(grad, E.multiply(result, F.LN2))),
    row("log(x)", x=lambda grad, x: E.divide(grad, x)),
    row("log1p(x)", x=lambda grad, x: E.divide(grad, E.add(x, 1.0))),
    row("log2(x)", x=lambda grad, x: E.divide(grad, E.multiply(x, F.LN2))),
    row("log10(x)", x=lambda grad, x: E.divide(grad, E.multiply(x, F.LN10))),
    row("sin(x)", x=lambda grad, x: E.multiply(grad, E.cos(x))),
    row("cos(x)", x=lambda grad, x: E.negative(E.multiply(grad, E.sin(x)))),
    row("tan(x)", x=lambda grad, result: E.multiply(grad, E.add(E.square(result), 1.0))),
    row("asin(x)", x=lambda grad, x: E.divide(grad, E.sqrt(E.subtract(1.0, E.square(x))))),
    row(
        "acos(x)",
        x=lambda grad, x: E.negative(E.divide(grad, E.sqrt(E.subtract(1.0, E.square(x))))),
    ),
    row("atan(x)", x=lambda grad, x: E.divide(grad, E.add(E.square(x), 1.0))),
    row("sinh(x)", x=lambda grad, x: E.multiply(grad, E.cosh(x))),
    row("cosh(x)", x=lambda grad, x: E.multiply(grad, E.sinh(x))),
    row("tanh(x)", x=lambda grad, result: E.multiply(grad, E.subtract(1.0, E.square(result)))),
    row("asinh(x)", x=lambda grad, x: E.divide(grad, E.sqrt(E.add(E.square(x), 1.0)))),
    row(
        "acosh(x)",
        x=lambda grad, x: E.divide(
            grad, E.multiply(E.sqrt(E.subtract(x, 1.0)), E.sqrt(E.add(x, 1.0)))
        ),
    ),
    row("atanh(x)", x=lambda grad, x: E.divide(grad, E.subtract(1.0, E.square(x)))),
    row(
        "erf(x)",
        x=lambda grad, x: E.multiply(
            grad, E.multiply(E.exp(E.negative(E.square(x))), F.TWO_OVER_SQRT_PI)
        ),
    ),
    row(  # erfc = 1 - erf: the same derivative, negated
        "erfc(x)",
        x=lambda grad, x: E.multiply(
            grad, E.multiply(E.exp(E.negative(E.square(x))), -F.TWO_OVER_SQRT_PI)
        ),
    ),
    row(
        "sigmoid(x)",
        x=lambda grad, result: E.multiply(grad, E.multiply(result, E.subtract(1.0, result))),
    ),
    row("softplus(x)", x=lambda grad, x: E.multiply(grad, E.sigmoid(x))),
    # PyTorch's threshold_backward: the gradient passes where the result is positive
    row("relu(x)", x=lambda grad, result: E.where(E.greater(result, 0), grad, 0.0)),
    # piecewise constant: differentiable, with gradient zero
    row("ceil(x)", x=lambda x_meta: F.zeros_of(x_meta)),
    row("floor(x)", x=lambda x_meta: F.zeros_of(x_meta)),
    row("trunc(x)", x=lambda x_meta: F.zeros_of(x_meta)),
    row("round(x)", x=lambda x_meta: F.zeros_of(x_meta)),
    row("sign(x)", x=lambda x_meta: F.zeros_of(x_meta)),
    # -- reductions ----------------------------------------------------------------------------
    row(
        "sum(x, dims, keepdims, dtype=None)",
        x=lambda grad, x_meta, dims, keepdims: V.expand(
            F.keep_dims(grad, x_meta[0], dims, keepdims), x_meta[0]
        ),
    ),
    row("prod(x, dims, keepdims, dtype=None)", x=F.prod_backward),
    row("max(x, dims, keepdims, dtype=None)", x=F.max_min_backward),
    row("min(x, dims, keepdims, dtype=None)", x=F.max_min_backward),
    row(
        "softmax(x, dims)",
        x=lambda grad, result, dims: F.softmax_backward(grad, result, dims, log=False),
    ),
    row(
        "log_softmax(x, dims)",
        x=lambda grad, result, dims: F.softmax_backward(grad, result, dims, log=True),
    ),
    row("logsumexp(x, dims, keepdims)", x=F.logsumexp_backward),
    # -- scans ---------------------------------------------------------------------------------
    row(
        "cumulative_sum(x, axis, include_initial, dtype)",
        x=lambda grad, axis, include_initial: F.reverse_cumsum(
            F.drop_initial(grad, axis, include_initial), axis
        ),
    ),
    row("cumulative_prod(x, axis, include_initial, dtype)", x=F.cumprod_backward),
    # -- matrix products -----------------------------------------------------------------------
    row(
        "matmul(x, other)",
        x=lambda grad, x, other: F.matmul_left(grad, x, other),
        other=lambda grad, x, other: F.matmul_right(grad, x, other),
    ),
    row(
        "addmm(input, mat1, mat2, *, beta=1, alpha=1)",  # beta * input + alpha * (mat1 @ mat2)
        input=lambda grad, beta: E.multiply(grad, beta),
        mat1=lambda grad, mat1, mat2, alpha: F.matmul_left(F.scaled(grad, alpha), mat1, mat2),
        mat2=lambda grad, mat1, mat2, alpha: F.matmul_right(F.scaled(grad, alpha), mat1, mat2),
    ),
    # -- FFTs: each is linear, its gradient the adjoint transform (Note [FFT gradients] in fft.py)
    row("fft_c2c(x, s, axes, norm, forward)", x=F.fft_c2c_backward),
    row("fft_r2c(x, s, axes, norm)", x=F.fft_r2c_backward),
    row("fft_c2r(x, s, axes, norm)", x=F.fft_c2r_backward),
    # -- joining and copying shape ops ---------------------------------------------------------
    row("concat(*arrays, axis)", arrays=F.concat_backward),
    row("stack(*arrays, axis)", arrays=F.stack_backward),
    row("meshgrid(*arrays, indexing, copy)", arrays=F.meshgrid_backward),
    row(
        "tile(x, repetitions)",
        x=lambda grad, x_meta, repetitions: F.index_map(grad, x_meta, "tile", repetitions),
    ),
    row(
        "repeat(x, repeats, axis)",
        x=lambda grad, x_meta, repeats, axis: F.index_map(grad, x_meta, "repeat", repeats, axis),
    ),
    row(
        "roll(x, shifts)", x=lambda grad, x_meta, shifts: F.index_map(grad, x_meta, "roll", shifts)
    ),
    row("pad(x, pads, mode, value)", x=F.pad_backward),
    row("tril(x, k)", x=lambda grad, k: _sh.tril(grad, k=k)),
    row("triu(x, k)", x=lambda grad, k: _sh.triu(grad, k=k)),
    # -- indexing ------------------------------------------------------------------------------
    row("gather(x, dim, index)", x=F.gather_backward),
    row("take_along_axis(x, dim, index)", x=F.gather_backward),
    row("take(x, indices, axis)", x=F.take_backward),
    row("index_select(x, indices, axis)", x=F.take_backward),
    row(
        "index(x, index)",  # advanced indexing
        x=lambda grad, x_meta, index: _ix.index_put(
            F.zeros_of(x_meta, grad.dtype), F.as_index(index), grad, accumulate=True
        ),
    ),
    row(
        "index_put_(x, index, values, accumulate=False)",
        # overwritten positions lose their gradient, added-to ones keep it
        x=lambda grad, index, accumulate: (
            grad if accumulate else _ix.index_put(grad, F.as_index(index), 0.0)
        ),
        values=lambda grad, index: _ix.getitem(grad, F.as_index(index)),
    ),
    row(
        "scatter_(x, dim, index, src)",
        x=lambda grad, dim, index: _ix.scatter(grad, dim, index, 0.0),
        src=lambda grad, dim, index: _ix.gather(grad, dim, index),
    ),
    row(
        "scatter_add_(x, dim, index, src)",
        x=lambda grad: grad,
        src=lambda grad, dim, index: _ix.gather(grad, dim, index),
    ),
    row(
        "index_add_(x, dim, index, source)",
        x=lambda grad: grad,
        source=lambda grad, dim, index: _ix.index_select(grad, dim, index),
    ),
    row("masked_fill(x, mask, value, out=None)", x=lambda grad, mask: E.where(mask, 0.0, grad)),
    row(
        "sort(x, axis, descending, want_values, want_indices)",
        x=lambda grad, x_meta, result1, axis: F.sort_backward(grad, x_meta, result1, axis),
        outputs=(0,),
        prepare=F.ask_for_indices,
    ),
    row(
        "topk(x, dim, k, largest)",
        x=lambda grad, x_meta, result1, dim: F.sort_backward(grad, x_meta, result1, dim),
        outputs=(0,),
    ),
    # -- copies (Note [Copies through the dispatcher] in _ops/copying.py) ---------------------
    # contiguous_copy(src, dtype): the engine casts the gradient back to src's dtype
    row("contiguous_copy(src, dtype=None)", src=lambda grad: grad),
    # copy_(dst, src): the old values of dst are gone (no gradient); src gets grad
    row("copy_(dst, src)", src=lambda grad: grad),
    row("fill_(dst, value)"),
    # -- linear algebra (Note [Matrix derivatives] in formulas.py) ---------------------------
    row("linalg_inv(a)", a=F.inv_backward),
    row("linalg_svd(x, full_matrices, compute_uv, name)", x=F.svd_backward),
    row("linalg_qr(x, mode)", x=F.qr_backward),
    row("linalg_det(a)", a=F.det_backward),
    row("linalg_slogdet(a)", a=F.slogdet_backward, outputs=(1,)),
    row("linalg_solve(a, b)", **{"a, b": F.solve_backward}),
    row("linalg_cholesky(a, upper)", a=F.cholesky_backward),
    # outputs (w, V): w is the result, V the second output
    row(
        "linalg_eigh(a, uplo)",
        a=lambda grads, result, result1: F.eigh_grad(result, result1, grads[0], grads[1]),
        outputs=(0, 1),
    ),
    row("linalg_eigvalsh(a, uplo)", a=F.eigvalsh_backward),
)

TABLE = {r.op: r for r in ROWS}

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

# -- views: view op -> formula(view node, grad) giving the input's gradient --------------------
VIEW_TABLE = {
    "permute": F.permute_back,
    "transpose": F.permute_back,
    "reverse_dims": F.permute_back,
    "matrix_transpose": F.permute_back,
    "movedim": F.permute_back,
    "view": F.reshape_back,
    "try_view": F.reshape_back,
    "reshape_view": F.reshape_back,
    "unflatten": F.reshape_back,
    "squeeze": F.reshape_back,
    "unsqueeze": F.reshape_back,
    "expand": F.expand_back,
    "broadcast_to": F.expand_back,
    "flip": F.flip_back,
    # everything else (getitem, narrow, select, split, chunk, unbind, unfold, diagonal,
    # as_strided) goes through the storage cells
}
VIEW_DEFAULT = F.strided_backward
