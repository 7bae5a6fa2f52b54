"""The helper formulas behind the rows of ``derivatives.py`` (PyTorch's ``FunctionsManual.cpp``).

A row of the derivatives table is one short expression per input; when the expression would not
fit on a line, or several rows share it, it lives here as a function of named values (the
gradient, the op's inputs, its result), written with strided's own public ops so that with
``create_graph=True`` it is recorded and differentiated again. Nothing here knows about nodes:
``rows.py`` unpacks a node into the names a row asks for.

``sum_to`` is here too: the engine sums every gradient back to its input's shape with it (Note
[Gradients take their input's shape] in engine.py), and CopySlices uses it.
"""

from __future__ import annotations

import math

import numpy as np

from strided import _core, _dispatch
from strided import fft as _fft
from strided._cpu import reduce as _reduce
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

try:  # compiled (setup.py's MODULES); a checkout built before it takes the taps
    from strided.autograd import _record
except ImportError:
    _record = None

LN2, LN10 = math.log(2.0), math.log(10.0)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


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


def zeros_of(meta, dtype=None):
    """Zeros of an input's (shape, dtype, device): the gradient of a piecewise-constant op
    (floor, sign, ...), and the canvas the indexing formulas scatter into."""
    shape, dt, device = meta
    return _cr.zeros(shape, dtype=dtype or dt, device=device)


# -- elementwise ---------------------------------------------------------------------------------


def pow_base(grad, x, y):
    """d/dx x**y = y * x**(y-1), 0 where y == 0 (so that 0**0 has gradient 0, as in PyTorch)."""
    gx = E.multiply(grad, E.multiply(y, E.pow(x, E.subtract(y, 1))))
    return E.where(E.equal(y, 0), 0.0, gx)


def pow_exponent(grad, x, y, result):
    """d/dy x**y = x**y * log(x), 0 where x == 0 and y >= 0 (the limit from the right)."""
    gy = E.multiply(grad, E.multiply(result, E.log(x)))
    return E.where(E.logical_and(E.equal(x, 0), E.greater_equal(y, 0)), 0.0, gy)


def extremum(grad, x, y, greater):
    """The gradient of x in maximum(x, y) (``greater``: E.greater) or minimum (E.less):
    PyTorch's rule, the winner gets the gradient and a tie splits it in half."""
    half = E.multiply(grad, 0.5)
    return E.where(E.equal(x, y), half, E.where(greater(y, x), 0.0, grad))


def divide_backward(grad, x, other, needs):
    """Both gradients of x / other, sharing grad / other."""
    gx = E.divide(grad, other)
    gy = E.negative(E.multiply(gx, E.divide(x, other))) if needs[1] else None
    return gx, gy


def atan2_backward(grad, y, x):
    """Both gradients of atan2(y, x), sharing x**2 + y**2."""
    r2 = E.add(E.multiply(x, x), E.multiply(y, y))
    return E.multiply(grad, E.divide(x, r2)), E.multiply(grad, E.divide(E.negative(y), r2))


def copysign(grad, x, result):
    ratio = E.where(E.equal(x, 0), 0.0, E.divide(result, E.where(E.equal(x, 0), 1.0, x)))
    return E.multiply(grad, ratio)


# -- reductions (kernel signature: x, dims, keepdims, dtype) -------------------------------------


def keep_dims(grad, x_shape, dims, keepdims):
    """The gradient of a reduction, with the reduced dims back as size 1 (keepdims form)."""
    if keepdims or not dims:
        return grad
    shape = list(x_shape)
    for d in dims:
        shape[d] = 1
    return V.reshape(grad, tuple(shape))


def prod_others(x, dims):
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


def prod_backward(grad, x, dims, keepdims):
    if x.ndim == 0:
        return grad
    return E.multiply(
        V.expand(keep_dims(grad, x.shape, dims, keepdims), x.shape), prod_others(x, dims)
    )


def max_min_backward(grad, x, result, dims, keepdims):
    """The gradient goes to the elements equal to the result, split evenly among ties (as
    PyTorch's amax/amin and its full max()/min())."""
    rk = keep_dims(result, x.shape, dims, keepdims)
    if not _grad_mode.state.enabled:  # no graph of this backward: one pass, where it can
        fused = _reduce.max_backward(x, rk, keep_dims(grad, x.shape, dims, keepdims), dims)
        if fused is not None:  # See Note [max's backward in one pass] in _cpu/reduce.pyx.tp
            return fused
    mask = E.equal(x, rk)
    # counted in grad's dtype: an int64 count would promote a float32 share to float64
    count = R.sum(mask, axis=dims, keepdims=True, dtype=grad.dtype)
    share = E.divide(keep_dims(grad, x.shape, dims, keepdims), count)
    return E.where(mask, share, 0.0)


def softmax_backward(grad, result, dims, log):
    y = result
    if not _grad_mode.state.enabled:  # no graph of this backward: one fused kernel
        fused = R.softmax_backward(grad, y, dims, log=log)
        if fused is not None:
            return fused
    if log:
        total = R.sum(grad, axis=dims, keepdims=True)
        return E.subtract(grad, E.multiply(E.exp(y), total))
    dot = R.sum(E.multiply(grad, y), axis=dims, keepdims=True)
    return E.multiply(y, E.subtract(grad, dot))


def logsumexp_backward(grad, x, result, dims, keepdims):
    g, r = keep_dims(grad, x.shape, dims, keepdims), keep_dims(result, x.shape, dims, keepdims)
    return E.multiply(g, E.exp(E.subtract(x, r)))


# -- scans (kernel signature: x, axis, include_initial, dtype) ------------------------------------


def reverse_cumsum(g, axis):
    return V.flip(_scan.cumulative_sum(V.flip(g, axis=(axis,)), axis=axis), axis=(axis,))


def drop_initial(g, axis, include_initial):
    if include_initial:  # out[k] = f(x[:k]): out[0] depends on nothing
        return V.narrow(g, axis, 1, g.shape[axis] - 1)
    return g


def cumprod_quadratic(x, g, axis):
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


def cumprod_backward(grad, x, result, axis, include_initial):
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
    # PyTorch's other route, a formula that is a polynomial in x (``cumprod_quadratic``, O(n^2)
    # along the axis) and so differentiates right to any order.
    g = drop_initial(grad, axis, include_initial)
    r = drop_initial(result, axis, include_initial)
    if x.ndim == 0 or x.shape[axis] <= 1:
        return g
    zero = E.equal(x, 0)
    if not bool(R.any(zero)):  # the common case: one formula, no masks
        return E.divide(reverse_cumsum(E.multiply(g, r), axis), x)
    if _grad_mode.state.enabled:
        return cumprod_quadratic(x, g, axis)
    zeros_so_far = _scan.cumulative_sum(zero, axis=axis)
    before = E.equal(zeros_so_far, 0)  # k < z
    first = E.logical_and(zero, E.equal(zeros_so_far, 1))  # k = z
    safe_x = E.where(before, x, 1.0)
    g_before = E.divide(reverse_cumsum(E.multiply(g, r), axis), safe_x)
    others = _scan.cumulative_prod(E.where(first, 1.0, x), axis=axis)  # y' above
    g_first = reverse_cumsum(E.multiply(g, others), axis)
    return E.where(before, g_before, E.where(first, g_first, 0.0))


# -- matrix products -----------------------------------------------------------------------------


def _as_matrices(g, a, b):
    """a and b with a 1-D operand seen as a row (a) or a column (b), and g to match."""
    a2 = V.expand_dims(a, axis=0) if a.ndim == 1 else a
    b2 = V.expand_dims(b, axis=-1) if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = V.expand_dims(g2, axis=-2 if b.ndim > 1 else 0)
    if b.ndim == 1:
        g2 = V.expand_dims(g2, axis=-1)
    return g2, a2, b2


def matmul_left(grad, a, b):
    """The gradient of ``a`` in ``a @ b`` (NumPy's matmul, 1-D operands included): g @ b^T."""
    g2, _, b2 = _as_matrices(grad, a, b)
    ga = _la.matmul(g2, V.matrix_transpose(b2))
    return V.squeeze(ga, axis=-2) if a.ndim == 1 else ga


def matmul_right(grad, a, b):
    """The gradient of ``b`` in ``a @ b``: a^T @ g."""
    g2, a2, _ = _as_matrices(grad, a, b)
    gb = _la.matmul(V.matrix_transpose(a2), g2)
    return V.squeeze(gb, axis=-1) if b.ndim == 1 else gb


def scaled(grad, alpha):
    """``grad * alpha``, skipping the multiplication when alpha is 1 (addmm's mat1 and mat2)."""
    return E.multiply(grad, alpha) if alpha != 1 else grad


# -- FFTs (Note [FFT gradients] in strided/fft.py) -----------------------------------------------


def fft_pad_end(g, axis, length):
    """``g`` zero-padded at the end of ``axis`` to ``length``."""
    pairs = [(0, length - g.shape[d] if d == axis else 0) for d in range(g.ndim)]
    return _pad.pad_pairs(g, pairs)


def fft_unresize(g, shape, axes):
    """The adjoint of padding or truncating the input to the transform's lengths: drop what
    the padding added, pad with zeros what the truncation cut."""
    for a in axes:
        if g.shape[a] > shape[a]:
            g = V.narrow(g, a, 0, shape[a])
        elif g.shape[a] < shape[a]:
            g = fft_pad_end(g, a, shape[a])
    return g


def fft_input_grad(g, x_meta, axes):
    """``g`` as the gradient of input x: its shape (undoing n/s), and real for a real input."""
    shape, dtype = x_meta[:2]
    g = fft_unresize(g, shape, axes)
    return E.real(g) if dtype.kind != "c" else g


def fft_c2c_backward(grad, x_meta, s, axes, norm, forward):
    gx = _fft.c2c(grad, s, axes, _fft.DUAL_NORM[norm], not forward)
    return fft_input_grad(gx, x_meta, axes)


def fft_r2c_backward(grad, x_meta, s, axes, norm):
    # the one-sided half back to the full spectrum (zeros), then the full adjoint transform
    full = fft_pad_end(grad, axes[-1], s[-1])
    gx = _fft.c2c(full, s, axes, _fft.DUAL_NORM[norm], False)
    return fft_input_grad(gx, x_meta, axes)


def fft_c2r_backward(grad, x_meta, s, axes, norm):
    # rfft of the gradient, with the bins that also stand for their mirror images doubled
    gz = _fft.r2c(grad, s, axes, _fft.DUAL_NORM[norm])
    n, last = s[-1], axes[-1]
    m = n // 2 + 1
    if n - m > 0:
        weight = np.ones(m, dtype=_fft.REAL_DTYPE_OF[gz.dtype.name].numpy)
        weight[1 : n - m + 1] = 2
        shape = [1] * gz.ndim
        shape[last] = m
        w = _cr.asarray(weight.reshape(shape), device=gz.device)
        gz = E.multiply(gz, w)
    return fft_input_grad(gz, x_meta, axes)


# -- joining and copying shape ops ---------------------------------------------------------------


def concat_backward(grad, arrays_meta, needs, axis):
    grads, start = [], 0
    if axis is None:  # concat of flattened inputs
        for need, (shape, *_) in zip(needs, arrays_meta, strict=True):
            n = math.prod(shape)
            grads.append(V.reshape(V.narrow(grad, 0, start, n), shape) if need else None)
            start += n
        return tuple(grads)
    for need, (shape, *_) in zip(needs, arrays_meta, strict=True):
        n = shape[axis] if shape else 1
        grads.append(V.narrow(grad, axis, start, n) if need else None)
        start += n
    return tuple(grads)


def stack_backward(grad, needs, axis):
    return tuple(V.select(grad, axis, i) if need else None for i, need in enumerate(needs))


def meshgrid_backward(grads, arrays_meta, needs, indexing):
    """Grid i is input i stretched along every other grid axis (Note [meshgrid is expanded
    views] in _ops/shape.py), so its gradient is grid i's gradient summed over those axes."""
    n = len(needs)
    order = list(range(n))
    if indexing == "xy" and n >= 2:
        order[0], order[1] = 1, 0  # as the kernel: the first input runs along axis 1
    out = []
    for i, need in enumerate(needs):
        g = grads[i] if i < len(grads) else None
        if not need or g is None:
            out.append(None)
            continue
        others = tuple(d for d in range(n) if d != order[i])
        if others:
            g = R.sum(g, axis=others)
        out.append(V.reshape(g, arrays_meta[i][0]))  # (n_i,), or () for a 0-d input
    return tuple(out)


def index_map(grad, x_meta, op, *args):
    """The backward of any op that only moves, repeats or drops elements (tile, repeat, roll,
    pad): run the same op on the *positions* 0..n-1 of the input, then add each gradient
    element into the position it came from (a scatter-add). Positions a pad invented hold -1
    and get nothing."""
    shape = x_meta[0]
    n = math.prod(shape)
    ids = V.reshape(_cr.arange(n, dtype="int64", device=grad.device), shape)  # on grad's device
    if op == "pad":  # positions a constant pad invents get -1
        args = (args[0], args[1], -1)
    where = _dispatch.redispatch(op, "Autograd", ids, *args)
    flat_where = V.reshape(where, (-1,))
    flat_g = V.reshape(grad, (-1,))
    if op == "pad" and args[1] == "constant":
        keep = E.greater_equal(flat_where, 0)
        flat_g = E.where(keep, flat_g, 0.0)
        flat_where = E.where(keep, flat_where, 0)
    gx = _ix.index_add(_cr.zeros(n, dtype=grad.dtype, device=grad.device), 0, flat_where, flat_g)
    return V.reshape(gx, shape)


def pad_backward(grad, x_meta, pads, mode, value):
    """pad: with mode='constant' the input's elements sit in one box of the output, so their
    gradient is that box of ``grad``, a view when no pad is negative (a crop); the other modes
    repeat elements, and go through ``index_map``."""
    if mode != "constant":
        return index_map(grad, x_meta, "pad", pads, mode, value)
    shape = x_meta[0]
    in_box, out_box = [], []
    for (lo, hi), n in zip(pads, shape, strict=True):
        # input element i lands at output i + lo; a negative pad crops the input's ends
        first, stop = max(0, -lo), n - max(0, -hi)
        in_box.append(slice(first, max(first, stop)))
        out_box.append(slice(first + lo, max(first, stop) + lo))
    box = grad[tuple(out_box)]
    if all(lo >= 0 and hi >= 0 for lo, hi in pads):
        return box
    gx = _cr.zeros(shape, dtype=grad.dtype, device=grad.device)
    gx[tuple(in_box)] = box
    return gx


# -- indexing ------------------------------------------------------------------------------------


def gather_backward(grad, x_meta, dim, index):
    """gather(x, dim, index) and take_along_axis: grad added back where each element came from
    (into the fresh zeros themselves: a copy of them would be one more allocation and launch)."""
    return _ix.scatter_add(zeros_of(x_meta, grad.dtype), dim, index, grad, inplace=True)


def take_backward(grad, x_meta, indices, axis):
    """take(x, indices, axis): out = x.shape[:axis] + indices.shape + rest; index_select too."""
    shape = x_meta[0]
    flat_shape = shape[:axis] + (indices.numel(),) + shape[axis + 1 :]
    g = V.reshape(grad, flat_shape)
    return _ix.index_add(zeros_of(x_meta, g.dtype), axis, V.reshape(indices, (-1,)), g)


def as_index(index):
    """An advanced index as a tuple (one index tensor is saved alone)."""
    return index if isinstance(index, tuple) else (index,)


def sort_backward(grad, x_meta, indices, axis):
    """sort and topk: the values' gradient scattered back to where each value came from."""
    x = zeros_of(x_meta, grad.dtype)
    if x.ndim == 0:
        return grad
    return _ix.scatter(x, axis, indices, grad)


def ask_for_indices(args):
    """sort's ``prepare``: the forward call must also return the indices, for the backward."""
    x, axis, descending, want_values, _ = args
    return (x, axis, descending, want_values, True)


# -- views ---------------------------------------------------------------------------------------
# A view node keeps the input's and the output's geometry; ``formula(node, g)`` returns the
# input's gradient (VIEW_TABLE in derivatives.py picks one per view op).


def strided_backward(node, g):
    """The backward of any view, as PyTorch's as_strided_backward: add each gradient element
    into the storage cell the view read it from, then read the input's cells back. Works for
    views that overlap themselves (expand, unfold, as_strided with small strides), where one
    cell feeds several outputs and their gradients must add up."""
    in_shape, in_strides, in_offset = node.in_geometry
    cells = node.storage_cells
    if not _grad_mode.state.enabled:  # not create_graph: the taps' in-place adds may be used
        if _record is not None and not g.is_cuda and g.dtype.kind == "f":
            # Note [A view's backward in one pass] in _record.pyx
            flat = _cr.zeros(cells, dtype=g.dtype, device=g.device)
            if _record.scatter_view(flat, node.out_geometry, g):
                return V.as_strided(flat, in_shape, in_strides, in_offset)
        flat = _scatter_by_taps(cells, node.out_geometry, g)
        if flat is not None:
            return V.as_strided(flat, in_shape, in_strides, in_offset)
    flat = _ix.index_add(
        _cr.zeros(cells, dtype=g.dtype, device=g.device),
        0,
        _view_positions(cells, node.out_geometry, g.device),
        V.reshape(g, (-1,)),
    )
    return V.as_strided(flat, in_shape, in_strides, in_offset)


# Note [A view's backward by taps]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``strided_backward``'s index_add is general, but slow for a convolution's window view (for the
# digits CNN's 64x16x8x8 input and 3x3 windows: 147,456 scattered adds, 3 ms, more than the
# rest of the convolution's backward). Most views that overlap themselves do so through a few
# dims only: the window view (N, H_out, W_out, kh, kw, C) of conv2d has strides (.., s_H, s_W,
# s_H, s_W, ..), and with the two tap dims (kh, kw) held fixed the rest reads every cell at
# most once. So the gradient is scattered tap by tap: for each of the kh * kw taps, one
# strided in-place add of the gradient's slice for that tap into the cells it was read from
# (9 vectorised adds instead of 147,456 scattered ones; PyTorch's col2im does the same sums).
# The taps are found from the strides alone: dims sorted by stride, a dim is *kept* when its
# stride steps beyond every cell the kept dims before it reach (then the kept dims address
# distinct cells), else it is a tap. Views with negative strides, more than 64 taps (an
# expand's stride-0 dims are taps), or a recorded backward (create_graph: the in-place adds
# would not be differentiable) take index_add. On the CPU, float32 and float64 take the same
# sums in one compiled pass first (Note [A view's backward in one pass] in _record.pyx): the
# taps are its reference, and the road for other devices and dtypes.
_MAX_TAPS = 64


def _scatter_by_taps(cells, geometry, g):
    """``index_add`` of strided_backward by taps (Note [A view's backward by taps]): the flat
    storage of ``cells`` cells with each element of ``g`` added into the cell the view
    ``geometry`` read it from; None when the view does not fit the rule."""
    shape, strides, offset = geometry
    if any(st < 0 for st in strides):
        return None
    reach, taps = 0, []
    # equal strides: the larger dim first, so that it is kept and the smaller one is the tap
    # (conv2d's W_out and kw share a stride: 9 taps of kh x kw, not 64 of H_out x W_out)
    dims = sorted((st, -size, d) for d, (size, st) in enumerate(zip(shape, strides, strict=True)))
    for st, size, d in dims:
        size = -size
        if size == 1:
            continue
        if st > reach:
            reach += (size - 1) * st  # kept: beyond every cell the kept dims reach so far
        else:
            taps.append(d)
    if math.prod(shape[d] for d in taps) > _MAX_TAPS:
        return None
    kept = [d for d in range(len(shape)) if d not in taps]
    kept_shape = tuple(shape[d] for d in kept)
    kept_strides = tuple(strides[d] for d in kept)
    flat = _cr.zeros(cells, dtype=g.dtype, device=g.device)
    storage = flat.untyped_storage()
    index = [slice(None)] * len(shape)
    for tap in np.ndindex(*(shape[d] for d in taps)):
        start = offset
        for d, i in zip(taps, tap, strict=True):
            index[d] = i
            start += i * strides[d]
        cells_of_tap = _core._from_parts(storage, start, kept_shape, kept_strides, g.dtype)
        E.add(cells_of_tap, g[tuple(index)], out=cells_of_tap)
    return flat


# Note [Cached view positions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# strided_backward needs, for every element of the view, the storage cell it was read from:
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


def permute_back(node, g):
    """permute, transpose, movedim, .T, .mT: undo the permutation of the dims."""
    return V.permute(g, _inverse_permutation(node.permutation))


def reshape_back(node, g):
    """view, reshape, squeeze, unsqueeze, flatten, unflatten: the same elements in the same
    order, only grouped into other dims."""
    return V.reshape(g, node.in_geometry[0])


def flip_back(node, g):
    return V.flip(g, axis=node.flip_dims)


def expand_back(node, g):
    """expand, broadcast_to: the engine sums the stretched dims (Note [Gradients take their
    input's shape] in engine.py)."""
    return g


# -- linear algebra (the LAPACK ops of _ops/linalg_solve.py) -------------------------------------
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


def mH(t):
    """The conjugate transpose of the last two dims (the transpose, for real tensors)."""
    return E.conj(V.matrix_transpose(t)) if t.dtype.kind == "c" else V.matrix_transpose(t)


def _lsolve():
    from strided._ops import linalg_solve

    return linalg_solve


def inv_backward(grad, result):
    xh = mH(result)
    return E.negative(_la.matmul(_la.matmul(xh, grad), xh))


def det_backward(grad, a, result):
    scale = V.expand_dims(V.expand_dims(E.multiply(grad, E.conj(result)), -1), -1)
    return E.multiply(scale, mH(_lsolve().inv(a)))


def slogdet_backward(grads, a):
    glogabs = grads[1]
    if a.dtype.kind == "c":
        raise NotImplementedError(
            "slogdet: the gradient for complex input is not implemented; use det of a real "
            "matrix, or detach the input"
        )
    scale = V.expand_dims(V.expand_dims(glogabs, -1), -1)
    return E.multiply(scale, mH(_lsolve().inv(a)))


def solve_backward(grad, a, result, needs):
    """Both gradients of X = solve(A, B): gB = A^-H g, gA = -gB X^H (a vector B stays one)."""
    x = result
    vector = x.ndim == a.ndim - 1  # B was a vector (it may not be a tensor at all)
    g = grad
    if vector:
        g, x = V.expand_dims(g, -1), V.expand_dims(x, -1)
    gb = _lsolve().solve(mH(a), g)
    ga = E.negative(_la.matmul(gb, mH(x))) if needs[0] else None
    return ga, gb[..., 0] if vector else gb


def cholesky_backward(grad, result, upper):
    low, g = (mH(result), mH(grad)) if upper else (result, grad)
    n = low.shape[-1]
    eye = _cr.eye(n, dtype=low.dtype, device=low.device)
    p = _la.matmul(mH(low), g)
    phi = E.subtract(_sh.tril(p), E.multiply(E.multiply(p, eye), 0.5))
    solve = _lsolve().solve
    y = solve(mH(low), phi)  # L^-H Phi
    ga = mH(solve(mH(low), mH(y)))  # (L^-H (L^-H Phi)^H)^H = L^-H Phi L^-1
    return E.multiply(E.add(ga, mH(ga)), 0.5)


def eigh_grad(w, v, gw, gv):
    n = w.shape[-1]
    eye = _cr.eye(n, dtype=w.dtype, device=w.device)
    inner = None
    if gv is not None:
        vhgv = _la.matmul(mH(v), gv)
        skew = E.multiply(E.subtract(vhgv, mH(vhgv)), 0.5)
        e = E.subtract(V.expand_dims(w, -2), V.expand_dims(w, -1))  # e[i, j] = w[j] - w[i]
        e = E.add(e, eye)  # 1 on the diagonal, which the off-diagonal mask drops below
        inner = E.multiply(E.divide(skew, e), E.subtract(1, eye))
    if gw is not None:
        diag = E.multiply(V.expand_dims(gw, -1), eye)
        inner = diag if inner is None else E.add(inner, diag)
    return _la.matmul(_la.matmul(v, inner), mH(v))


def eigvalsh_backward(grad, a, uplo):
    w, v = _lsolve().eigh(a, uplo)
    return eigh_grad(w, v, grad, None)


def svd_backward(grads, x, compute_uv):
    gu, gs, gvh = grads if compute_uv else (None, grads[0], None)
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
        return _la.matmul(E.multiply(u, V.expand_dims(gs, -2)), vh)
    eye = _cr.eye(k, dtype=s.dtype, device=s.device)
    s_row, s_col = V.expand_dims(s, -2), V.expand_dims(s, -1)
    e = E.add(E.subtract(E.multiply(s_row, s_row), E.multiply(s_col, s_col)), eye)
    v = mH(vh)
    j = None
    if gu is not None:
        uhgu = _la.matmul(mH(u), gu)
        j = E.multiply(E.subtract(uhgu, mH(uhgu)), s_row)
    if gvh is not None:
        vhgv = _la.matmul(vh, mH(gvh))
        t = E.multiply(s_col, E.subtract(vhgv, mH(vhgv)))
        j = t if j is None else E.add(j, t)
    ga = E.multiply(E.divide(j, e), E.subtract(1, eye))
    if gs is not None:
        ga = E.add(ga, E.multiply(V.expand_dims(gs, -1), eye))
    if m > n and gu is not None:
        ga = _la.matmul(u, ga)
        gus = E.divide(gu, s_row)
        ga = E.add(ga, E.subtract(gus, _la.matmul(u, _la.matmul(mH(u), gus))))
        ga = _la.matmul(ga, vh)
    elif m < n and gvh is not None:
        ga = _la.matmul(ga, vh)
        sgvh = E.divide(gvh, s_col)
        ga = E.add(ga, E.subtract(sgvh, _la.matmul(_la.matmul(sgvh, v), vh)))
        ga = _la.matmul(u, ga)
    else:
        ga = _la.matmul(u, _la.matmul(ga, vh))
    return ga


def qr_backward(grads, x, mode):
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
        mm = _la.matmul(r, mH(gr))
    if gq is not None:
        t = _la.matmul(mH(gq), q)
        mm = E.negative(t) if mm is None else E.subtract(mm, t)
    copyltu = E.add(_sh.tril(mm), mH(_sh.tril(mm, k=-1)))
    b = _la.matmul(q, copyltu)
    if gq is not None:
        b = E.add(b, gq)
    # gA = B R^-H: solve R X = B^H, gA = X^H
    return mH(_lsolve().solve(r, mH(b)))
