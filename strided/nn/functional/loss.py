"""Loss functions: mean squared error, cross-entropy (integer targets, class probabilities,
label smoothing), negative log-likelihood and binary cross-entropy with logits.

Each is written so that large logits cannot overflow: cross-entropy goes through
``log_softmax`` (max subtracted first), and BCE-with-logits through ``log1p(exp(-|x|))``.
"""

from __future__ import annotations

import strided
from strided.nn.functional._args import need_float, need_tensor, reduce_loss
from strided.nn.functional.activation import log_softmax

__all__ = ["mse_loss", "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"]


def mse_loss(input, target, reduction="mean"):
    """``(input - target) ** 2``, averaged (or summed, or kept) over all elements.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> F.mse_loss(strided.asarray([1.0, 2.0]), strided.asarray([1.0, 4.0]))
    tensor(2.)
    """
    need_float(input, "input", "mse_loss")
    need_tensor(target, "target", "mse_loss")
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"mse_loss: input of shape {tuple(input.shape)} and target of shape "
            f"{tuple(target.shape)} differ; PyTorch would broadcast with a warning, strided asks "
            "for equal shapes (reshape the target)"
        )
    d = input - target
    return reduce_loss(d * d, reduction, "mse_loss")


def _check_classes(logp, target, fn):
    """``target`` holds class indices for the (N, C, d1, ...) scores: check shape and range."""
    n_cls = logp.shape[1]
    want = (logp.shape[0],) + tuple(logp.shape[2:])
    if tuple(target.shape) != want:
        raise ValueError(
            f"{fn}: input of shape {tuple(logp.shape)} (N, C, ...) needs a target of class "
            f"indices of shape {want}, got {tuple(target.shape)}"
        )
    if target.numel():
        lo, hi = int(strided.min(target)), int(strided.max(target))
        if lo < 0 or hi >= n_cls:
            raise IndexError(
                f"{fn}: target holds class {lo if lo < 0 else hi}, outside 0..{n_cls - 1} for "
                f"an input with {n_cls} classes (dim 1 of shape {tuple(logp.shape)})"
            )


def nll_loss(log_probs, target, reduction="mean"):
    """``-log_probs[n, target[n]]``: the loss of a model whose last layer is ``log_softmax``."""
    fn = "nll_loss"
    need_float(log_probs, "input", fn)
    need_tensor(target, "target", fn)
    if log_probs.ndim < 2:
        raise ValueError(f"{fn}: input must be (N, C, ...), got shape {tuple(log_probs.shape)}")
    if target.dtype.kind not in "iu":
        raise TypeError(
            f"{fn}: target must hold integer class indices, got {target.dtype.name}; "
            "convert with target.astype('int64')"
        )
    _check_classes(log_probs, target, fn)
    picked = strided.take_along_axis(log_probs, strided.expand_dims(target, axis=1), axis=1)
    return reduce_loss(-strided.squeeze(picked, axis=1), reduction, fn)


def cross_entropy(input, target, reduction="mean", label_smoothing=0.0):
    """Cross-entropy between the logits ``input`` (N, C) or (N, C, d1, ...) and ``target``.

    ``target`` holds integer class indices (N,) / (N, d1, ...), or class probabilities of the
    input's shape. With ``label_smoothing`` = e the target becomes the mixture ``(1 - e) *
    target + e * uniform``, which for class indices gives (as in PyTorch)::

        loss = (1 - e) * nll + e * mean_over_classes(-log_softmax(input))

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> logits = strided.asarray([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> F.cross_entropy(logits, strided.asarray([0, 2]), reduction="none")
    tensor([0.23954477, 1.09861229])
    """
    fn = "cross_entropy"
    need_float(input, "input", fn)
    need_tensor(target, "target", fn)
    if input.ndim < 2:
        raise ValueError(
            f"{fn}: input must be logits of shape (N, C) or (N, C, d1, ...), got shape "
            f"{tuple(input.shape)}; for one sample use input.reshape(1, -1)"
        )
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{fn}: label_smoothing must be in [0, 1], got {label_smoothing}")
    logp = log_softmax(input, 1)
    n_cls = input.shape[1]
    if target.dtype.kind == "f":  # class probabilities
        if tuple(target.shape) != tuple(input.shape):
            raise ValueError(
                f"{fn}: a target of class probabilities must have the input's shape "
                f"{tuple(input.shape)}, got {tuple(target.shape)}"
            )
        if label_smoothing:
            target = target * (1.0 - label_smoothing) + label_smoothing / n_cls
        return reduce_loss(-strided.sum(target * logp, axis=1), reduction, fn)
    if target.dtype.kind not in "iu":
        raise TypeError(
            f"{fn}: target must be integer class indices or float class probabilities, got "
            f"{target.dtype.name}"
        )
    _check_classes(logp, target, fn)
    picked = strided.take_along_axis(logp, strided.expand_dims(target, axis=1), axis=1)
    loss = -strided.squeeze(picked, axis=1)
    if label_smoothing:
        smooth = -strided.mean(logp, axis=1)
        loss = loss * (1.0 - label_smoothing) + smooth * label_smoothing
    return reduce_loss(loss, reduction, fn)


def binary_cross_entropy_with_logits(input, target, reduction="mean", pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target`` in [0, 1], computed from the
    logits without forming the sigmoid::

        loss = (1 - y) x + (1 + (w - 1) y) (log1p(exp(-|x|)) + max(-x, 0))

    (w the ``pos_weight``, 1 by default), which never takes the log of 0 or exponentiates a large
    positive number.
    """
    fn = "binary_cross_entropy_with_logits"
    need_float(input, "input", fn)
    need_float(target, "target", fn)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"{fn}: input of shape {tuple(input.shape)} and target of shape "
            f"{tuple(target.shape)} must be equal"
        )
    softplus_neg = strided.log1p(strided.exp(-strided.abs(input))) + strided.relu(-input)
    if pos_weight is None:
        loss = (1.0 - target) * input + softplus_neg
    else:
        loss = (1.0 - target) * input + (1.0 + (pos_weight - 1.0) * target) * softplus_neg
    return reduce_loss(loss, reduction, fn)
