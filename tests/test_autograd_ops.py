"""gradcheck and gradgradcheck of every differentiable op (DESIGN.md, "Testing design").

The elementwise, reduction and view rows of the OpInfo tables marked ``supports_autograd`` are
checked here on contiguous, transposed (non-contiguous), negative-stride and broadcast inputs,
with values drawn from each op's smooth domain (away from kinks and poles: finite differences
mean nothing there). Ops whose OpInfo rows are not gradcheck-shaped (indexing, sorting, shape
ops, linalg, in-place writes) and the ``nn.functional`` ops are listed explicitly below.

Every check runs on every device: the CPU, ``cuda-emulated`` (strided's CUDA kernels run by the
CPU emulator, always available) and ``cuda`` (a real GPU, skipped unless ``cupy.is_available()``;
``STRIDED_REQUIRE_GPU=1`` makes that skip a failure), with the leaves built on the device in the
same layouts. After each gradcheck a backward pass checks that every ``.grad`` is on its input's
device, with its input's shape and dtype (``_check_grads_land``).

Note [Second derivatives on the devices]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``gradgradcheck`` differentiates each formula once more, which multiplies the kernel launches,
and the emulator pays for each launch. It is still affordable everywhere (the ``cuda-emulated``
variants of this file take about a minute on two cores), so the devices run exactly what the CPU
runs: every row and case, every layout, gradcheck and gradgradcheck. If that grows too slow,
trim the devices' layouts in ``_grid`` (keep contiguous and negative-stride) and run their
gradgradcheck on the contiguous layout only; never drop a row.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import GPU_ONLY
from opinfo import OPS
from opinfo_elementwise import EW_OPS
from opinfo_reduction import RED_OPS

import strided
from strided.autograd import gradcheck, gradgradcheck
from strided.nn import functional as F

# the CPU, then the devices of tests/devices.py ("cuda" skipped without a usable GPU)
DEVICES = ["cpu", "cuda-emulated", pytest.param("cuda", marks=GPU_ONLY)]


def _grid(layouts):
    """(device, layout) parameters: every layout on every device (Note [Second derivatives on
    the devices])."""
    return [
        pytest.param(
            device, layout, id=f"{device}-{layout}", marks=(GPU_ONLY,) if device == "cuda" else ()
        )
        for device in ("cpu", "cuda-emulated", "cuda")
        for layout in layouts
    ]


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


def _leaf(a, layout="contiguous", device="cpu"):
    """A float64 leaf on ``device`` that requires grad, with the given memory layout (the
    transpose and the reversal are views taken on the device, so the strides are the CPU's)."""
    if layout == "transposed" and a.ndim >= 2:
        t = strided.asarray(np.ascontiguousarray(a.T), device=device).T  # transposed strides
    elif layout == "negative" and a.ndim >= 1:
        t = strided.asarray(np.ascontiguousarray(a[::-1]), device=device)[::-1]
    else:
        t = strided.asarray(np.ascontiguousarray(a), device=device)
    return t.detach().requires_grad_()


def _check_grads_land(fn, inputs):
    """One backward pass: each leaf's ``.grad`` has the leaf's device, shape and dtype."""
    leaves = [x for x in inputs if isinstance(x, strided.Tensor) and x.requires_grad]
    for x in leaves:
        x.grad = None
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = None
    for o in outs:
        if isinstance(o, strided.Tensor) and o.requires_grad:
            s = strided.sum(o * o)  # a non-uniform gradient: 2 * o
            total = s if total is None else total + s
    assert total is not None, "no output requires grad"
    total.backward()
    assert any(x.grad is not None for x in leaves), "no input got a gradient"
    for i, x in enumerate(leaves):
        g = x.grad
        if g is None:  # an input the output does not depend on smoothly (copysign's sign)
            continue
        assert g.device == x.device, f"input {i}: gradient on {g.device}, input on {x.device}"
        assert g.shape == x.shape and g.dtype == x.dtype, (i, g.shape, g.dtype, x.shape)
        x.grad = None


def _check(fn, inputs, second=True, **tol):
    assert gradcheck(fn, inputs, **tol)
    if second:
        assert gradgradcheck(fn, inputs, **tol)
    _check_grads_land(fn, inputs)


# -- elementwise rows --------------------------------------------------------------------------

EW_ROWS = [r for r in EW_OPS if r.supports_autograd]
LAYOUTS = ("contiguous", "transposed", "negative", "broadcast")


@pytest.mark.parametrize("device,layout", _grid(LAYOUTS))
@pytest.mark.parametrize("row", EW_ROWS, ids=lambda r: r.name)
def test_elementwise_gradcheck(row, device, layout):
    rng = np.random.default_rng(0)
    shapes = [(2, 3)] * row.nargs
    if layout == "broadcast" and row.nargs > 1:
        shapes = [(2, 3), (3,), (2, 1)][: row.nargs]
    inputs = []
    for i, shape in enumerate(shapes):
        if row.name == "where" and i == 0:
            inputs.append(strided.asarray(rng.random(shape) < 0.5, device=device))
            continue
        values = _values(row.name, i - (row.name == "where"), shape, rng)
        inputs.append(_leaf(values, layout, device))
    if row.name == "clip":  # bounds apart from the values: no ties at the kinks
        inputs[1] = _leaf(np.full(shapes[1], -1.05), layout, device)
        inputs[2] = _leaf(np.full(shapes[2], 1.05), layout, device)
    _check(row.op, tuple(inputs))


def test_every_differentiable_elementwise_op_has_a_row_marked():
    from strided.autograd import derivatives

    marked = {r.name for r in EW_ROWS}
    for r in EW_OPS:
        if r.name in derivatives.TABLE and "f" in r.kinds:
            assert r.name in marked, r.name


# -- reduction rows ----------------------------------------------------------------------------

RED_ROWS = [r for r in RED_OPS if r.supports_autograd]


@pytest.mark.parametrize("device,layout", _grid(("contiguous", "transposed", "negative")))
@pytest.mark.parametrize("row", RED_ROWS, ids=lambda r: r.name)
def test_reduction_gradcheck(row, device, layout):
    rng = np.random.default_rng(1)
    shape = (3, 4)
    x = _leaf(rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape), layout, device)
    for kw in row.sample_inputs(shape)[:8]:
        kw = dict(kw) | row.kwargs

        def fn(t, kw=kw):
            return row.op(t, **kw)

        _check(fn, (x,))


# -- view rows ---------------------------------------------------------------------------------

VIEW_ROWS = [r for r in OPS if r.supports_autograd]


@pytest.mark.parametrize("device,layout", _grid(("contiguous", "transposed", "negative")))
@pytest.mark.parametrize("row", VIEW_ROWS, ids=lambda r: r.name)
def test_view_gradcheck(row, device, layout):
    rng = np.random.default_rng(2)
    shape = (3, 4)
    values = rng.standard_normal(shape)
    x, on_cpu = _leaf(values, layout, device), _leaf(values, layout)
    samples = list(row.sample_inputs(shape))[:6]
    assert samples, row.name
    checked = 0
    for args in samples:

        def fn(t, args=args):
            out = row.op(t, *args)
            return tuple(out) if isinstance(out, (list, tuple)) else out

        try:  # asked of the CPU leaf, so that a device's own failure is not skipped
            fn(on_cpu)
        except Exception:  # a sample that needs another layout (view of a transpose ...)
            continue
        _check(fn, (x,))
        checked += 1
    assert checked, f"{row.name}: no sample ran on this layout"


# -- ops whose OpInfo rows are not gradcheck-shaped --------------------------------------------
# Each case is (function, make): ``make(layout, device)`` builds the arguments on the device;
# index tensors are arguments too (they do not require grad, so gradcheck leaves them alone),
# which puts them on the same device as the values they index.


def _r(*shape, seed=3, layout="contiguous", lo=-2.0, hi=2.0, device="cpu"):
    rng = np.random.default_rng(seed)
    return _leaf(rng.uniform(lo, hi, shape), layout, device)


def _i(values, device):
    """An int64 index tensor on ``device``."""
    return strided.asarray(values, dtype="int64", device=device)


_IDX = [2, 0, 2]
_IDX2 = [[0, 2, 1, 0], [2, 2, 0, 1]]
_IDX2_3 = [[0, 2, 1], [2, 2, 0]]


def _setitem(x, v):
    """``buf[rows] = v`` into a fresh tensor, then an in-place op on a view of it: the write is
    an ``index_put_``/``copy_`` recorded on a tensor that did not require grad, the view write a
    CopySlices node (Note [Views after an in-place write] in recording.py)."""
    buf = strided.zeros((4, 3), dtype=x.dtype, device=x.device)
    buf[1:3] = x * 3.0
    buf[0] = 7.0
    buf[3].mul_(v)
    buf[::2, 1:].add_(x[:, :2] * v[:2])
    return buf * buf


def _fill_and_copy(x):
    """``fill_`` and ``copy_`` on a non-leaf: the overwritten values get no gradient."""
    y = x * 2.0
    y[0].fill_(1.5)
    y[1:].copy_(x[:1].exp())
    return y * x


def _well(x):
    """``x`` moved away from singular: x + 3 I (for inv, det, solve)."""
    return x + 3 * strided.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _spd(x):
    """A symmetric positive-definite matrix from ``x`` (for cholesky and eigh)."""
    return x @ x.mT + 3 * strided.eye(x.shape[-1], dtype=x.dtype, device=x.device)


EXPLICIT = {
    "matmul_2d": (
        lambda a, b: a @ b,
        lambda L, d: (_r(3, 4, layout=L, device=d), _r(4, 2, seed=4, device=d)),
    ),
    "matmul_batched_broadcast": (
        lambda a, b: strided.matmul(a, b),
        lambda L, d: (_r(2, 3, 4, layout=L, device=d), _r(4, 2, seed=4, device=d)),
    ),
    "matmul_vec_mat": (
        lambda a, b: a @ b,
        lambda L, d: (_r(4, layout=L, device=d), _r(4, 2, seed=4, device=d)),
    ),
    "matmul_mat_vec": (
        lambda a, b: a @ b,
        lambda L, d: (_r(3, 4, layout=L, device=d), _r(4, seed=4, device=d)),
    ),
    "matmul_dot": (
        lambda a, b: a @ b,
        lambda L, d: (_r(4, layout=L, device=d), _r(4, seed=4, device=d)),
    ),
    "addmm": (
        lambda c, a, b: strided.addmm(c, a, b, beta=0.5, alpha=2.0),
        lambda L, d: (
            _r(3, device=d),
            _r(3, 4, layout=L, seed=5, device=d),
            _r(4, 3, seed=6, device=d),
        ),
    ),
    "exp2": (strided.exp2, lambda L, d: (_r(3, 4, layout=L, device=d),)),  # its own kernel row
    "mm": (strided.mm, lambda L, d: (_r(2, 3, layout=L, device=d), _r(3, 2, seed=4, device=d))),
    "bmm": (
        strided.bmm,
        lambda L, d: (_r(2, 2, 3, layout=L, device=d), _r(2, 3, 2, seed=4, device=d)),
    ),
    "outer": (strided.outer, lambda L, d: (_r(3, layout=L, device=d), _r(2, seed=4, device=d))),
    "tensordot": (
        lambda a, b: strided.tensordot(a, b, axes=1),
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(3, 2, seed=4, device=d)),
    ),
    "vecdot": (
        strided.vecdot,
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(3, seed=4, device=d)),
    ),
    "cumsum": (lambda x: strided.cumsum(x, 1), lambda L, d: (_r(3, 4, layout=L, device=d),)),
    "cumulative_sum_initial": (
        lambda x: strided.cumulative_sum(x, axis=0, include_initial=True),
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "cumprod": (
        lambda x: strided.cumprod(x, 0),
        lambda L, d: (_r(3, 4, layout=L, lo=0.5, device=d),),
    ),
    "vector_norm": (
        lambda x: strided.vector_norm(x, axis=1),
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "vector_norm_ord1": (
        lambda x: strided.vector_norm(x, ord=1),
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "matrix_norm": (strided.matrix_norm, lambda L, d: (_r(3, 4, layout=L, device=d),)),
    "concat": (
        lambda a, b: strided.concat([a, b], axis=1),
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(2, 2, seed=4, device=d)),
    ),
    "concat_none": (
        lambda a, b: strided.concat([a, b], axis=None),
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(2, seed=4, device=d)),
    ),
    "stack": (
        lambda a, b: strided.stack([a, b], axis=1),
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(2, 3, seed=4, device=d)),
    ),
    "meshgrid": (
        lambda a, b: tuple(strided.meshgrid(a, b)),
        lambda L, d: (_r(3, layout=L, device=d), _r(2, seed=4, device=d)),
    ),
    "tile": (lambda x: strided.tile(x, (2, 1, 2)), lambda L, d: (_r(2, 3, layout=L, device=d),)),
    "repeat_int": (
        lambda x: strided.repeat(x, 2, axis=1),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "repeat_counts": (
        lambda x: strided.repeat(x, (1, 0, 3), axis=1),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "roll": (
        lambda x: strided.roll(x, (1, -1), axis=(0, 1)),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "pad_constant": (
        lambda x: F.pad(x, (1, 2, 0, 1), value=3.0),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "pad_reflect": (
        lambda x: F.pad(x, (2, 1), mode="reflect"),
        lambda L, d: (_r(2, 4, layout=L, device=d),),
    ),
    "pad_replicate": (
        lambda x: F.pad(x, (2, 1, 1, 0), mode="replicate"),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "tril": (lambda x: strided.tril(x, k=-1), lambda L, d: (_r(3, 3, layout=L, device=d),)),
    "triu": (lambda x: strided.triu(x, k=1), lambda L, d: (_r(3, 3, layout=L, device=d),)),
    # the linalg rows (tests/test_linalg_lapack.py checks more layouts, shapes and functions)
    "linalg_inv": (
        lambda x: strided.linalg.inv(_well(x)),
        lambda L, d: (_r(3, 3, layout=L, device=d),),
    ),
    "linalg_det": (
        lambda x: strided.linalg.det(_well(x)),
        lambda L, d: (_r(3, 3, layout=L, device=d),),
    ),
    "linalg_slogdet": (
        lambda x: strided.linalg.slogdet(_well(x)).logabsdet,
        lambda L, d: (_r(3, 3, layout=L, device=d),),
    ),
    "linalg_solve": (
        lambda a, b: strided.linalg.solve(_well(a), b),
        lambda L, d: (_r(3, 3, layout=L, device=d), _r(3, 2, seed=4, device=d)),
    ),
    "linalg_cholesky": (
        lambda x: strided.linalg.cholesky(_spd(x)),
        lambda L, d: (_r(3, 3, layout=L, device=d),),
    ),
    "linalg_eigh": (
        lambda x: (lambda r: (r.eigenvalues, strided.abs(r.eigenvectors)))(
            strided.linalg.eigh(_spd(x))
        ),
        lambda L, d: (_r(3, 3, layout=L, device=d),),
    ),
    "linalg_eigvalsh": (
        lambda x: strided.linalg.eigvalsh(_spd(x)),
        lambda L, d: (_r(3, 3, layout=L, device=d),),
    ),
    "linalg_svd": (
        lambda x: strided.abs(strided.linalg.svd(x, full_matrices=False).U),
        lambda L, d: (_r(4, 3, layout=L, device=d),),
    ),
    "linalg_qr": (
        lambda x: tuple(strided.linalg.qr(x)),
        lambda L, d: (_r(4, 3, layout=L, device=d),),
    ),
    # the three FFT rows (tests/test_fft.py checks every function, norm and imaginary part)
    "fft_c2c": (
        lambda x: strided.real(strided.fft.fft(x, n=5, norm="ortho")),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "fft_r2c": (
        lambda x: strided.real(strided.fft.rfft2(x, s=(3, 4))),
        lambda L, d: (_r(2, 3, layout=L, device=d),),
    ),
    "fft_c2r": (
        lambda x: strided.fft.irfft(x, n=6, axis=0),
        lambda L, d: (_r(3, 2, layout=L, device=d),),
    ),
    "gather": (
        lambda x, i: strided.gather(x, 1, i),
        lambda L, d: (_r(2, 3, layout=L, device=d), _i(_IDX2_3, d)),
    ),
    "take_along_axis": (
        lambda x, i: strided.take_along_axis(x, i, axis=1),
        lambda L, d: (_r(2, 3, layout=L, device=d), _i(_IDX2_3, d)),
    ),
    "take": (
        lambda x, i: strided.take(x, i, axis=1),
        lambda L, d: (_r(2, 3, layout=L, device=d), _i(_IDX, d)),
    ),
    "take_flat": (
        lambda x, i: strided.take(x, i),
        lambda L, d: (_r(2, 3, layout=L, device=d), _i(_IDX2, d)),
    ),
    "index_select": (
        lambda x, i: strided.index_select(x, 0, i),
        lambda L, d: (_r(3, 2, layout=L, device=d), _i(_IDX, d)),
    ),
    "advanced_getitem": (
        lambda x, i: x[i, 1:],
        lambda L, d: (_r(3, 2, layout=L, device=d), _i(_IDX, d)),
    ),
    "mask_getitem": (lambda x: x[x > 0], lambda L, d: (_r(3, 2, layout=L, device=d),)),
    "scatter": (
        lambda x, s, i: strided.scatter(x, 1, i, s),
        lambda L, d: (
            _r(2, 3, layout=L, device=d),
            _r(2, 2, seed=4, device=d),
            _i([[0, 2], [2, 1]], d),
        ),
    ),
    "scatter_add": (
        lambda x, s, i: strided.scatter_add(x, 1, i, s),
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(2, 4, seed=4, device=d), _i(_IDX2, d)),
    ),
    "index_add": (
        lambda x, s, i: strided.index_add(x, 0, i, s, alpha=2.0),
        lambda L, d: (_r(3, 2, layout=L, device=d), _r(3, 2, seed=4, device=d), _i(_IDX, d)),
    ),
    "index_put": (
        lambda x, v, i: x.index_put((i,), v),
        lambda L, d: (_r(3, 2, layout=L, device=d), _r(2, 2, seed=4, device=d), _i(_IDX[1:], d)),
    ),
    "index_put_accumulate": (
        lambda x, v, i: x.index_put((i,), v, accumulate=True),
        lambda L, d: (_r(3, 2, layout=L, device=d), _r(2, seed=4, device=d), _i(_IDX, d)),
    ),
    "masked_fill": (
        lambda x: strided.masked_fill(x, x > 0, 5.0),
        lambda L, d: (_r(3, 2, layout=L, device=d),),
    ),
    "setitem_and_copyslices": (
        _setitem,
        lambda L, d: (_r(2, 3, layout=L, device=d), _r(3, seed=4, device=d)),
    ),
    "fill_and_copy": (_fill_and_copy, lambda L, d: (_r(3, 2, layout=L, device=d),)),
    "sort": (lambda x: strided.sort(x, axis=1), lambda L, d: (_r(3, 4, layout=L, device=d),)),
    "sort_values_and_indices": (
        lambda x: x.sort(0, descending=True)[0],
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "topk": (
        lambda x: strided.topk(x, 2, dim=1).values,
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "astype": (
        lambda x: x.astype("float32").astype("float64"),
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "max_dim_values": (lambda x: x.max(dim=1).values, lambda L, d: (_r(3, 4, layout=L, device=d),)),
    # nn.functional: composites of the rows above (Note [Convolution is a strided view and a
    # matmul] in strided/nn/functional/conv.py), each checked as a whole
    "conv2d": (
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
        lambda L, d: (
            _r(1, 2, 4, 5, layout=L, device=d),
            _r(3, 2, 3, 3, seed=4, device=d),
            _r(3, seed=5, device=d),
        ),
    ),
    # the stride-1 op with a derivative row of its own (Note [A stride-1 convolution as one
    # op]): the input's gradient by the kernel, the weight's and the bias's by one formula
    "conv2d_stride1": (
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        lambda L, d: (
            _r(2, 3, 5, 6, layout=L, device=d),
            _r(4, 3, 3, 3, seed=4, device=d),
            _r(4, seed=5, device=d),
        ),
    ),
    "conv2d_dilation": (
        lambda x, w: F.conv2d(x, w, dilation=2),
        lambda L, d: (_r(1, 1, 5, 5, layout=L, device=d), _r(2, 1, 2, 2, seed=4, device=d)),
    ),
    "unfold": (
        lambda x: F.unfold(x, 2, stride=1),
        lambda L, d: (_r(1, 2, 3, 3, layout=L, device=d),),
    ),
    "max_pool2d": (
        lambda x: F.max_pool2d(x, 2, stride=1, padding=1),
        lambda L, d: (_r(1, 2, 3, 4, layout=L, device=d),),
    ),
    # channels-last tiles: the op nn::max_pool2d_tiles (Note [Max pooling over tiles in one pass]);
    # x is made (N, H, W, C) and seen as (N, C, H, W)
    "max_pool2d_tiles": (
        lambda x: F.max_pool2d(strided.permute(x, (0, 3, 1, 2)), 2),
        lambda L, d: (_r(2, 4, 5, 3, layout=L, device=d),),
    ),
    "avg_pool2d": (
        lambda x: F.avg_pool2d(x, 3, stride=2, padding=1),
        lambda L, d: (_r(1, 2, 4, 4, layout=L, device=d),),
    ),
    "linear": (
        F.linear,
        lambda L, d: (
            _r(4, 3, layout=L, device=d),
            _r(2, 3, seed=4, device=d),
            _r(2, seed=5, device=d),
        ),
    ),
    "embedding": (
        lambda w, i: F.embedding(i, w),
        lambda L, d: (_r(4, 3, layout=L, device=d), _i([[1, 3], [1, 0]], d)),
    ),
    "dropout_eval": (
        lambda x: F.dropout(x, 0.5, training=False) * 1.0,
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "dropout_training": (  # a fresh generator of one seed per call: the same mask each time
        lambda x: F.dropout(x, 0.4, generator=strided.random.Generator(7)),
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "gelu": (F.gelu, lambda L, d: (_r(3, 4, layout=L, device=d),)),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda L, d: (_r(3, 4, layout=L, device=d),),
    ),
    "softmax_F": (lambda x: F.softmax(x, 0), lambda L, d: (_r(3, 4, layout=L, device=d),)),
    "log_softmax_F": (lambda x: F.log_softmax(x, 1), lambda L, d: (_r(3, 4, layout=L, device=d),)),
    "cross_entropy": (
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
        lambda L, d: (_r(4, 3, layout=L, device=d), _i([2, 0, 1, 2], d)),
    ),
    "nll_loss_sum": (
        lambda x, t: F.nll_loss(x, t, reduction="sum"),
        lambda L, d: (_r(4, 3, layout=L, device=d), _i([2, 0, 1, 2], d)),
    ),
    "mse_loss": (
        F.mse_loss,
        lambda L, d: (_r(3, 4, layout=L, device=d), _r(3, 4, seed=4, device=d)),
    ),
    "bce_with_logits": (
        lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, pos_weight=w),
        lambda L, d: (
            _r(3, 4, layout=L, device=d),
            _r(3, 4, seed=4, lo=0.1, hi=0.9, device=d),
            _r(4, seed=5, lo=0.5, hi=2.0, device=d),
        ),
    ),
    "layer_norm": (
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        lambda L, d: (
            _r(3, 4, layout=L, device=d),
            _r(4, seed=4, device=d),
            _r(4, seed=5, device=d),
        ),
    ),
    "layer_norm_2d_no_affine": (
        lambda x: F.layer_norm(x, (3, 4)),
        lambda L, d: (_r(2, 3, 4, layout=L, device=d),),
    ),
    "layer_norm_weight_only": (
        lambda x, w: F.layer_norm(x, (4,), w),
        lambda L, d: (_r(3, 4, layout=L, device=d), _r(4, seed=4, device=d)),
    ),
    "batch_norm_training": (
        lambda x, w, b: F.batch_norm(
            x,
            strided.zeros(3, dtype=x.dtype, device=x.device),
            strided.ones(3, dtype=x.dtype, device=x.device),
            w,
            b,
            training=True,
        ),
        lambda L, d: (
            _r(4, 3, layout=L, device=d),
            _r(3, seed=4, device=d),
            _r(3, seed=5, device=d),
        ),
    ),
    "batch_norm_eval": (
        lambda x, m, v: F.batch_norm(x, m, v, training=False),
        lambda L, d: (
            _r(4, 3, 2, layout=L, device=d),
            _r(3, seed=4, device=d).detach(),
            _r(3, seed=5, lo=0.5, hi=2.0, device=d).detach(),
        ),
    ),
}


@pytest.mark.parametrize("device,layout", _grid(("contiguous", "transposed", "negative")))
@pytest.mark.parametrize("name", sorted(EXPLICIT))
def test_explicit_gradcheck(name, device, layout):
    fn, make = EXPLICIT[name]
    inputs = make(layout, device)
    if name == "astype":  # float32 round trip: too coarse for the second order
        assert gradcheck(fn, inputs, eps=1e-3, atol=1e-3, rtol=1e-2)
        _check_grads_land(fn, inputs)
        return
    _check(fn, inputs)


def _formulas_used(fn, inputs):
    """The derivatives-table rows (``FormulaNode.op``) in the graph ``fn(*inputs)`` records."""
    out = fn(*inputs)
    todo = [o.grad_fn for o in (out if isinstance(out, tuple) else (out,)) if o.grad_fn]
    seen, ops = set(), set()
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for n in (node, getattr(node, "fn", None)):  # CopySlices wraps the op's node
            if getattr(n, "op", None) is not None:
                ops.add(n.op)
        todo.extend(e[0] for e in node.next_functions if e is not None)
    return ops


def _declare_ops_declared_on_first_use():
    """The project's strided.library ops that are declared on first use, declared now: the
    table then holds their rows whatever ran before in this process (a worker that ran the
    compiler's tests first had nn::im2col's row, another did not)."""
    from strided.fx import layers
    from strided.nn.functional import activation, conv, normalization

    layers._define()
    conv._conv2d_stride1()
    normalization._layer_norm_op()
    activation._gelu_op()
    conv._max_pool_op()


def test_im2col_op_gradcheck():
    # nn::im2col (the compiler's window rows, strided/fx/layers.py): its row is col2im, whose
    # own backward is not a row, so first order only; CPU only, as the op
    from strided.fx import layers

    x = _r(2, 3, 4, 5, device="cpu")
    assert gradcheck(lambda t: layers.im2col(t, (2, 3), (1, 2), (1, 0), (1, 1)), (x,))
    _check_grads_land(lambda t: layers.im2col(t, (2, 3), (1, 2), (1, 0), (1, 1)), (x,))


def test_every_formula_is_checked_by_a_row_or_a_case():
    """Each row of the derivatives TABLE is gradchecked above (so on every device too): by an
    OpInfo row of its own name, somewhere inside an explicit case's graph, or by a test of its
    own."""
    from strided.autograd import derivatives

    _declare_ops_declared_on_first_use()
    covered = {r.name for r in EW_ROWS + RED_ROWS} | {"nn::im2col"}  # test_im2col_op_gradcheck
    for fn, make in EXPLICIT.values():
        covered |= _formulas_used(fn, make("contiguous", "cpu"))
    # the project's rows: built-in ops and its own strided.library ops (namespace nn), not the
    # custom ops other tests declare in this process (test_library.py's testlib::, doctests')
    ours = {n for n in derivatives.TABLE if "::" not in n or n.startswith("nn::")}
    missing = sorted(ours - covered)
    assert not missing, f"add a case (to EXPLICIT) that uses {missing}"


@pytest.mark.parametrize("device", DEVICES)
def test_prod_with_zeros_has_the_product_of_the_others(device):
    x = _leaf(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0]]), device=device)
    # the double backward goes through cumprod's backward, exact with zeros too
    _check(lambda t: strided.prod(t, axis=1), (x,))
    _check(lambda t: strided.prod(t), (x,))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("include_initial", (False, True))
def test_cumprod_with_zeros_is_exact(include_initial, device):
    # Note [cumprod backward with zeros]: one zero, two zeros, a zero first, a zero last
    x = _leaf(
        np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 1.5, 0.0, 4.0], [1.5, -2.0, 0.5, 0.0]]),
        device=device,
    )
    _check(lambda t: strided.cumulative_prod(t, axis=1, include_initial=include_initial), (x,))
    _check(lambda t: strided.cumprod(t, 0), (x,))
    y = strided.asarray([2.0, 0.0, 3.0, 4.0], device=device).requires_grad_()
    strided.cumprod(y, 0).sum().backward()
    # d/dx of 2 + 0 + 0 + 0 with x[1] = 0: only the terms through x[1] survive
    assert y.grad.device == y.device
    assert y.grad.tolist() == [1.0, 2.0 + 2 * 3 + 2 * 3 * 4, 0.0, 0.0]


@pytest.mark.parametrize("device", DEVICES)
def test_maximum_tie_splits_the_gradient(device):
    a = strided.asarray([1.0, 2.0], device=device).requires_grad_()
    b = strided.asarray([1.0, 3.0], device=device).requires_grad_()
    strided.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0] and b.grad.tolist() == [0.5, 1.0]


@pytest.mark.parametrize("device", DEVICES)
def test_max_reduction_tie_is_shared_evenly(device):
    x = strided.asarray([3.0, 1.0, 3.0], device=device).requires_grad_()
    strided.max(x).backward()
    assert x.grad.device == x.device and x.grad.tolist() == [0.5, 0.0, 0.5]


@pytest.mark.parametrize("device", DEVICES)
def test_non_differentiable_outputs_do_not_require_grad(device):
    x = _r(3, 4, device=device)
    for y in (x > 0, strided.argmax(x, axis=1), strided.isnan(x), x.sort(dim=1)[1], strided.any(x)):
        assert not y.requires_grad and y.grad_fn is None


def test_an_op_without_formula_refuses_a_grad_input():
    x = _r(3, 3)
    with pytest.raises(RuntimeError, match="linalg_eig: autograd has no derivative formula"):
        strided.linalg.eig(x)
    with strided.no_grad():
        strided.linalg.eig(x)  # fine without grad


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


@pytest.mark.parametrize("device", DEVICES)
def test_float32_gradient_keeps_its_dtype_when_mixed_with_float64(device):
    a = strided.ones(3, dtype="float32", device=device).requires_grad_()
    b = strided.ones(3, dtype="float64", device=device).requires_grad_()
    (a * b).sum().backward()
    assert a.grad.dtype is strided.float32 and b.grad.dtype is strided.float64
    assert a.grad.device == a.device and b.grad.device == b.device
