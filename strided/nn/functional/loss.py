"""Loss functions: mean squared error, cross-entropy (integer targets with class weights and
an ignored index, class probabilities, label smoothing), negative log-likelihood and binary
cross-entropy with logits, with PyTorch's signatures.

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


def _check_classes(logp, target, ignore_index, fn):
    """``target`` holds class indices for the (N, C, d1, ...) scores: check its shape, and on
    the CPU its range (``ignore_index`` aside). On a CUDA device reading the range back would
    make every loss wait for the GPU: there the gather checks it on the device and raises at
    the next synchronisation (Note [Checking indices on the device] in strided/cuda/_index.py)."""
    n_cls = logp.shape[1]
    want = (logp.shape[0],) + tuple(logp.shape[2:])
    if tuple(target.shape) != want:
        raise ValueError(
            f"{fn}: input of shape {tuple(logp.shape)} (N, C, ...) needs a target of class "
            f"indices of shape {want}, got {tuple(target.shape)}"
        )
    if target.numel() and not target.device.is_cuda:
        kept = target[target != ignore_index]
        if kept.numel():
            lo, hi = int(strided.min(kept)), int(strided.max(kept))
            if lo < 0 or hi >= n_cls:
                raise IndexError(
                    f"{fn}: target holds class {lo if lo < 0 else hi}, outside 0..{n_cls - 1} "
                    f"for an input with {n_cls} classes (dim 1 of shape {tuple(logp.shape)}); "
                    f"ignore_index is {ignore_index}"
                )


def _check_weight(weight, logp, fn):
    if weight is None:
        return None
    need_float(weight, "weight", fn)
    n_cls = logp.shape[1]
    if tuple(weight.shape) != (n_cls,):
        raise ValueError(
            f"{fn}: weight of shape {tuple(weight.shape)} must be ({n_cls},), one value per "
            f"class of the input of shape {tuple(logp.shape)}"
        )
    return weight


def _class_shape(weight, logp):
    """``weight`` (C,) shaped to broadcast along dim 1 of the (N, C, d1, ...) scores."""
    return strided.reshape(weight, (1, -1) + (1,) * (logp.ndim - 2))


def _nll_of_classes(logp, target, weight, ignore_index, reduction, label_smoothing, fn):
    """The loss of log-probabilities ``logp`` (N, C, ...) against class indices, PyTorch's
    ``nll_loss`` with ``weight`` and ``ignore_index``, and cross-entropy's label smoothing.

    Note [Weighted and ignored targets]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Sample i with class y_i costs ``-w[y_i] * logp[i, y_i]``; a sample whose target equals
    ``ignore_index`` costs 0 and counts for nothing. ``mean`` is then a *weighted* mean: the sum
    of the costs divided by the sum of the weights ``w[y_i]`` of the samples not ignored (not by
    N), so that a weight of 2 counts a sample twice; with every sample ignored it is 0/0 = nan,
    as in PyTorch. Label smoothing e mixes in the uniform target: the smoothing term of sample i
    is ``-sum_c w[c] * logp[i, c]``, reduced the same way, and the loss is ``(1 - e) * nll + e /
    C * smooth``. Ignored samples are gathered at class 0 and masked, so the gather never sees
    ``ignore_index`` (-100 by default), and nothing here waits for a GPU.
    """
    _check_classes(logp, target, ignore_index, fn)
    weight = _check_weight(weight, logp, fn)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    kept = target != ignore_index
    safe = strided.where(kept, target, 0)
    if safe.device.is_cuda:  # a negative class must fail the gather's check, not wrap around
        safe = strided.where(safe < 0, logp.shape[1], safe)
    picked = strided.squeeze(
        strided.take_along_axis(logp, strided.expand_dims(safe, axis=1), axis=1), axis=1
    )
    w = kept.astype(logp.dtype)  # the weight of each sample: 0 where ignored
    if weight is not None:
        w = strided.take(weight, safe) * w
    loss = -picked * w
    if label_smoothing:
        per_class = logp if weight is None else logp * _class_shape(weight, logp)
        smooth = strided.where(kept, -strided.sum(per_class, axis=1), 0.0)
    if reduction == "none":
        pass
    elif reduction == "sum":
        loss = loss.sum()
        smooth = smooth.sum() if label_smoothing else None
    else:
        total = w.sum()
        loss = loss.sum() / total
        smooth = smooth.sum() / total if label_smoothing else None
    if label_smoothing:
        loss = loss * (1.0 - label_smoothing) + smooth * (label_smoothing / logp.shape[1])
    return loss


def nll_loss(log_probs, target, weight=None, ignore_index=-100, reduction="mean"):
    """``-weight[t] * log_probs[n, t]`` with t = ``target[n]``: the loss of a model whose last
    layer is ``log_softmax``, as PyTorch's ``F.nll_loss`` (Note [Weighted and ignored targets]).

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> logp = strided.log(strided.asarray([[0.5, 0.5], [0.9, 0.1]]))
    >>> F.nll_loss(logp, strided.asarray([1, -100]))       # the second sample is ignored
    tensor(0.69314718)
    """
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
    return _nll_of_classes(log_probs, target, weight, ignore_index, reduction, 0.0, fn)


def cross_entropy(
    input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0
):
    """Cross-entropy between the logits ``input`` (N, C) or (N, C, d1, ...) and ``target``, as
    PyTorch's ``F.cross_entropy``.

    ``target`` holds integer class indices (N,) / (N, d1, ...), or class probabilities of the
    input's shape. ``weight`` (C,) rescales each class's cost; samples whose target is
    ``ignore_index`` cost nothing; ``mean`` divides by the summed weights of the samples kept
    (Note [Weighted and ignored targets]). With ``label_smoothing`` = e the target becomes the
    mixture ``(1 - e) * target + e * uniform``, which for class indices gives (as in PyTorch)::

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
        weight = _check_weight(weight, logp, fn)
        if weight is not None:  # each class's share rescaled; the mean is still over N
            target = target * _class_shape(weight, logp)
        return reduce_loss(-strided.sum(target * logp, axis=1), reduction, fn)
    if target.dtype.kind not in "iu":
        raise TypeError(
            f"{fn}: target must be integer class indices or float class probabilities, got "
            f"{target.dtype.name}"
        )
    return _nll_of_classes(logp, target, weight, ignore_index, reduction, label_smoothing, fn)


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
