"""Argument checks shared by the ops: one place whose messages name the function, the
argument, and what would work (PyTorch's TORCH_CHECK and TensorArg play this part).

Every public op in ``strided/_ops`` starts by turning its arguments into what its kernels
expect: NumPy-style inputs (lists, NumPy arrays, scalars) into tensors, axes into
non-negative ints. Doing it here, once, keeps the errors alike: an op called with a bad axis
says ``concat: axis=3 is out of range for a tensor with 2 dims (expected a value in [-2, 1])``
whichever op it is. (The functionals of ``strided.nn`` add their own checks, of dtypes and
ranks, in ``strided/nn/functional/_args.py``.)
"""

from __future__ import annotations

import operator

from strided._core import TensorBase
from strided._ops.creation import asarray

__all__ = ["axis", "integer", "tensor"]


def tensor(x, like=None, device=None):
    """``x`` as a tensor: a tensor passes through untouched; lists, NumPy arrays and scalars go
    through ``asarray``, onto ``device``, or ``like``'s device, when one is given.

    Examples
    --------
    >>> import strided
    >>> from strided import _check
    >>> _check.tensor([1, 2])
    tensor([1, 2])
    """
    if isinstance(x, TensorBase):
        return x
    if like is not None:
        device = like.device
    return asarray(x) if device is None else asarray(x, device=device)


def integer(v, fn, name):
    """``v`` as a Python int (NumPy integers and 0-d integer tensors too; not bools or floats),
    or a TypeError naming ``fn``'s argument ``name``."""
    if isinstance(v, bool) or not hasattr(type(v), "__index__"):
        raise TypeError(f"{fn}: {name} must be an integer, got {v!r}")
    return operator.index(v)


def axis(axis, ndim, fn, name="axis", zero_d=False):
    """``axis`` mapped into [0, ndim), or an IndexError naming the valid range (the message of
    _core's normalize_dim, so that every op reports a bad axis alike). With ``zero_d``, a 0-d
    tensor takes axis 0 and -1 (and 0 comes back), as PyTorch's reductions and sorts allow.

    Examples
    --------
    >>> from strided import _check
    >>> _check.axis(-1, 3, "f")
    2
    >>> _check.axis(3, 2, "concat")
    Traceback (most recent call last):
    ...
    IndexError: concat: axis=3 is out of range for a tensor with 2 dims (expected ...)
    """
    axis = integer(axis, fn, name)
    lim = 1 if zero_d and ndim == 0 else ndim
    if not -lim <= axis < lim:
        raise IndexError(
            f"{fn}: {name}={axis} is out of range for a tensor with {ndim} dims "
            f"(expected a value in [{-lim}, {lim - 1}])"
        )
    return axis % lim
