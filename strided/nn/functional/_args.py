"""Argument checks shared by the functionals: one place that names the argument, its shape and
its dtype in the message (as ``_check`` does for the ops)."""

from __future__ import annotations

from strided._core import TensorBase

__all__ = ["pair", "need_tensor", "need_float", "need_ndim", "reduce_loss", "no_graph"]


def pair(v, name, fn):
    """``v`` as a (height, width) pair of ints: an int means both."""
    if type(v) is int:  # the common cases first, without the generator below
        return (v, v)
    if type(v) is tuple and len(v) == 2 and type(v[0]) is int and type(v[1]) is int:
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    try:
        a, b = v
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: {name} must be an int or a pair of ints, got {v!r}") from None
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in (a, b)):
        raise TypeError(f"{fn}: {name} must be an int or a pair of ints, got {v!r}")
    return (a, b)


def need_tensor(x, name, fn):
    if not isinstance(x, TensorBase):
        raise TypeError(
            f"{fn}: {name} must be a strided Tensor, got {type(x).__name__}; "
            "wrap it with strided.asarray(...)"
        )
    return x


def need_float(x, name, fn):
    need_tensor(x, name, fn)
    if x.dtype.kind not in "f":
        raise TypeError(
            f"{fn}: {name} must have a floating dtype, got {x.dtype.name} (shape "
            f"{tuple(x.shape)}); convert it with {name}.astype('float32')"
        )
    return x


def need_ndim(x, ndims, name, fn, what):
    if x.ndim not in ndims:
        want = " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(
            f"{fn}: {name} must be {want} ({what}), got shape {tuple(x.shape)} ({x.ndim}-D)"
        )
    return x


def reduce_loss(loss, reduction, fn):
    """Apply ``reduction`` ('mean', 'sum' or 'none') to an elementwise loss."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{fn}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def no_graph(*tensors):
    """Whether a call on ``tensors`` (None allowed) records nothing, so that a one-pass kernel
    may replace the ops (Note [Softmax rows in one pass] and its kin): all are tensors, not a
    tracer's values (strided.fx), and grad mode is off or none requires grad."""
    import strided

    if not all(t is None or isinstance(t, TensorBase) for t in tensors):
        return False
    return not strided.is_grad_enabled() or not any(
        t is not None and t.requires_grad for t in tensors
    )
