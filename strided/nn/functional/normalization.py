"""Batch and layer normalisation: statistics over some dims, then a per-feature affine map.

Note [Batch norm's two variances]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
In training, batch norm normalises with the batch's *biased* variance (divide by n: it is the
variance of exactly the numbers being normalised) but folds the *unbiased* one (divide by n - 1)
into ``running_var``, since the running value estimates the population's variance for
evaluation. PyTorch does the same; a reimplementation that uses one of them for both passes
forward tests and fails the comparison of running statistics. The running update happens under
``no_grad``: it is bookkeeping, not part of the function being differentiated.
"""

from __future__ import annotations

import strided
from strided._core import TensorBase
from strided.autograd.grad_mode import no_grad
from strided.nn.functional._args import need_float, no_graph

__all__ = ["batch_norm", "layer_norm"]


def batch_norm(
    x,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
):
    """Normalise each channel (dim 1) of ``x`` (N, C) or (N, C, L) over all other dims.

    ``training``: use the batch's statistics and update ``running_mean``/``running_var`` in place
    (``running = (1 - momentum) running + momentum batch``); otherwise use the running ones. See
    Note [Batch norm's two variances].
    """
    fn = "batch_norm"
    need_float(x, "input", fn)
    if x.ndim < 2:
        raise ValueError(f"{fn}: input must be (N, C) or (N, C, ...), got {tuple(x.shape)}")
    c = x.shape[1]
    dims = (0,) + tuple(range(2, x.ndim))
    shape = (1, c) + (1,) * (x.ndim - 2)
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and tuple(t.shape) != (c,):
            raise ValueError(f"{fn}: {name} of shape {tuple(t.shape)} must be ({c},)")
    if training:
        n = x.numel() // c
        if n < 2:
            raise ValueError(
                f"{fn}: training needs more than one value per channel, got input of shape "
                f"{tuple(x.shape)}; use eval() or a larger batch"
            )
        mean = strided.mean(x, axis=dims)
        var = strided.var(x, axis=dims)  # biased: Note [Batch norm's two variances]
        if running_mean is not None:
            with no_grad():
                running_mean.copy_(running_mean * (1.0 - momentum) + mean * momentum)
                unbiased = var * (n / (n - 1))
                running_var.copy_(running_var * (1.0 - momentum) + unbiased * momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError(f"{fn}: evaluation needs running_mean and running_var")
        mean, var = running_mean, running_var
    out = (x - strided.reshape(mean, shape)) / strided.sqrt(strided.reshape(var, shape) + eps)
    if weight is not None:
        out = out * strided.reshape(weight, shape)
    if bias is not None:
        out = out + strided.reshape(bias, shape)
    return out


def _layer_norm_rows(x, k, weight, bias, eps):
    """Layer norm in one pass per row, the ops' values (Note [Layer norm rows] in
    strided/_cpu/reduce.pyx.tp), where no graph is recorded and the kernel applies; else None."""
    if not no_graph(x, weight, bias):
        return None  # a traced value (strided.fx), or a graph to record
    from strided._cpu import reduce as _reduce

    return _reduce.layer_norm_rows(x, k, weight, bias, float(eps))


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` dims of ``x`` (each sample on its own),
    then scale by ``weight`` and shift by ``bias`` (both of shape ``normalized_shape``).

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> F.layer_norm(strided.asarray([[1.0, 3.0]]), (2,))
    tensor([[-0.999995,  0.999995]])
    """
    fn = "layer_norm"
    need_float(x, "input", fn)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or tuple(x.shape[x.ndim - k :]) != normalized_shape or k > x.ndim:
        raise ValueError(
            f"{fn}: normalized_shape {normalized_shape} must equal the last dims of the input's "
            f"shape {tuple(x.shape)}"
        )
    fused = _layer_norm_rows(x, k, weight, bias, eps)
    if fused is not None:
        return fused
    if _one_op_case(x, normalized_shape, weight, bias):
        return _layer_norm_op()(x, k, weight, bias, float(eps))
    return _layer_norm_ops(x, k, weight, bias, eps)


def _layer_norm_ops(x, k, weight, bias, eps):
    """Layer norm over the last ``k`` dims as separate ops (the composite every other path
    must agree with)."""
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = strided.mean(x, axis=dims, keepdims=True)
    var = strided.var(x, axis=dims, keepdims=True)
    out = (x - mean) / strided.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


# Note [Layer norm as one op]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Where a graph is recorded (training), the ops above record ten nodes, and their backward
# is ten more loops over the tensor, most of them writing a tensor of its size. On the CPU, in
# float32 and float64, with weight and bias None or of ``normalized_shape`` and x's dtype,
# layer norm is instead one op, ``nn::layer_norm(x, k, weight, bias, eps)``, with a derivative
# row of its own, as Note [A stride-1 convolution as one op] in conv.py does for convolution:
#
# * its forward is ``layer_norm_rows`` (Note [Layer norm rows] in _cpu/reduce.pyx.tp: the
#   ops' values bit for bit) where the rows are contiguous, else the ops, run unrecorded;
# * it saves x (and the weight), not the rows' mean and 1 / sd: recomputing them costs two
#   passes over a row that the backward kernel reads into L1 anyway, where saving them would
#   cost every forward two small tensors, and the saved tensors would have to be kept in step
#   with the rows' layout. The result is not saved either (xhat from the output would divide
#   by the weight, which may be 0);
# * its backward, x's gradient ``(gw - mean(gw) - xhat mean(gw xhat)) / sd`` with
#   ``gw = grad * weight``, is ``layer_norm_backward_rows`` (Note [Layer norm's backward rows]
#   in _cpu/reduce.pyx.tp), one pass per row that also sums grad * xhat and grad over blocks
#   of rows, whose sums over the blocks are the weight's and the bias's gradients. A grad
#   whose rows are not contiguous (the expanded ones of ``.sum()``'s backward) is copied
#   first;
# * when the backward is itself recorded (``create_graph=True``), the same formulas run as
#   public ops, so double backward differentiates them.
#
# The compiler does not see this op: it decomposes ``F.layer_norm`` itself (``_layer_norm`` in
# fx/passes.py) and fuses the rows (Note [One pass per row] in _compile/rows.py).
#
# Measured at 1 thread on the 2-core AMD EPYC (x86-64-v4 kernels), float32, with weight and
# bias, all requiring grad, a step of ``(layer_norm(x, (n,), w, b) * c).sum().backward()``;
# ``STRIDED_NUM_THREADS=1 python benchmarks/bench_layer_norm.py --rounds 11`` (wall-clock
# medians, alternated with PyTorch in one process; the machine shared, load ~4, so the
# ratios are what compares; the weight's and bias's sums made in the kernel took the first
# row from 7.50 ms, with g * xhat written out and two column sums, to 6.67):
#
# ==============  ==================  =========  ==========
# x               before (the ops)    this op    PyTorch
# ==============  ==================  =========  ==========
# 4096 x 1024     22.8 ms             6.67 ms    21.5 ms
# 64 x 256        228 us              75 us      43 us
# ==============  ==================  =========  ==========
#
# (``* c`` and ``.sum()`` with their backward are ~1.9 ms and 28 us of strided's step, ~2.2 ms
# and 20 us of PyTorch's; PyTorch's layer norm forward is ~1.06 ms, so its backward at one
# thread is most of its 4096 x 1024 step. At 64 x 256 the op's Python (the call, the
# recorded node, the formula, the blocks' sum) is most of strided's ~47 us.)


def _one_op_case(x, normalized_shape, weight, bias):
    """Whether layer norm runs as the op of Note [Layer norm as one op]."""
    if not isinstance(x, TensorBase) or x.device.type != "cpu":
        return False
    dt = x.dtype
    if dt.name not in ("float32", "float64"):
        return False
    return all(
        t is None
        or (
            isinstance(t, TensorBase)
            and t.dtype == dt
            and t.device.type == "cpu"
            and tuple(t.shape) == normalized_shape
        )
        for t in (weight, bias)
    )


def _layer_norm_cpu(x, k, weight, bias, eps):
    from strided._cpu import reduce as _reduce

    out = _reduce.layer_norm_rows(x, k, weight, bias, eps)
    if out is not None:
        return out
    with no_grad():
        return _layer_norm_ops(x, k, weight, bias, eps)


def _layer_norm_meta(x, k, weight, bias, eps):
    from strided import library

    return library.TensorMeta(tuple(x.shape), x.dtype, x.device)


def _layer_norm_grads(grad, x, k, weight, eps, needs):
    """Note [Layer norm as one op]: the gradients of x, the weight and the bias."""
    need_x, need_w, need_b = needs[0], needs[2], needs[3]
    lead = tuple(range(x.ndim - k))
    if not strided.is_grad_enabled():
        from strided._cpu import reduce as _reduce

        sums = need_w or need_b
        pair = _reduce.layer_norm_backward_rows(grad, x, k, weight, eps, sums)
        if pair is None:
            g, xc = strided.ascontiguousarray(grad), strided.ascontiguousarray(x)
            pair = _reduce.layer_norm_backward_rows(g, xc, k, weight, eps, sums)
        if pair is not None:
            gx, part = pair
            gw = gb = None
            if sums:  # the blocks' partial sums of grad * xhat and of grad
                shape = tuple(x.shape[x.ndim - k :])
                both = strided.sum(part, axis=0)
                gw = strided.reshape(both[0], shape) if need_w else None
                gb = strided.reshape(both[1], shape) if need_b else None
            return (gx if need_x else None), gw, gb
    gb = strided.sum(grad, axis=lead) if need_b else None
    if not (need_x or need_w):
        return None, None, gb
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = strided.mean(x, axis=dims, keepdims=True)
    sd = strided.sqrt(strided.var(x, axis=dims, keepdims=True) + eps)
    xhat = (x - mean) / sd
    gw = grad if weight is None else grad * weight
    gx = None
    if need_x:
        m1 = strided.mean(gw, axis=dims, keepdims=True)
        m2 = strided.mean(gw * xhat, axis=dims, keepdims=True)
        gx = (gw - m1 - xhat * m2) / sd
    return gx, (strided.sum(grad * xhat, axis=lead) if need_w else None), gb


_OP = []


def _layer_norm_op():
    """``nn::layer_norm``, declared on first use (Note [Layer norm as one op])."""
    if not _OP:
        from strided import library

        _OP.append(
            library.declare(
                "nn::layer_norm(Tensor x, int k, Tensor? weight, Tensor? bias, float eps)"
                " -> Tensor",
                _layer_norm_cpu,
                _layer_norm_meta,
                **{"x, weight, bias": _layer_norm_grads},
            )
        )
    return _OP[0]
