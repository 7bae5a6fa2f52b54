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
from strided.nn.functional._args import need_float

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
    tensors = (x, weight, bias)
    if not all(t is None or isinstance(t, TensorBase) for t in tensors):
        return None  # a traced value (strided.fx): the ops are the graph
    if strided.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
        return None  # the ops record the backward
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
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = strided.mean(x, axis=dims, keepdims=True)
    var = strided.var(x, axis=dims, keepdims=True)
    out = (x - mean) / strided.sqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out
