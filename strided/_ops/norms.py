"""Norms (Array API 2024.12 ``linalg.vector_norm`` and ``linalg.matrix_norm``), composed of the
reductions in ``_ops/reduction.py`` and elementwise ops, as PyTorch's CompositeImplicitAutograd
ops are: no kernel of their own.

Note [Norms]
~~~~~~~~~~~~
Every norm reads ``|x|``, so complex input gives a real result (complex64 -> float32) and the
arithmetic is that of the real dtype; integer and bool input is first cast to the default float
dtype. The 2-norm is ``sqrt(sum(|x|**2))``, computed as written, like NumPy's ``norm`` and
PyTorch's ``vector_norm``: it overflows to inf when the squares do (for float32, elements above
about 1.8e19), where LAPACK's ``nrm2`` would first scale by the largest element. The sum is
pairwise (Note [Reductions] in ``_cpu/reduce.pyx.tp``), so its rounding error grows with
log(n), not n.

Matrix norms of order ``"nuc"``, 2 and -2 are the sum, the largest and the smallest of the
singular values (``linalg.svdvals``, LAPACK's ``?gesdd``), which are real and in the precision
of the input (float32 for float32 and complex64), as NumPy's ``norm`` computes them. A matrix
with a zero dim has no singular values: its ``"nuc"`` and 2-norms are 0 (an empty sum; NumPy's
2-norm is a max starting at 0), and its -2-norm raises ValueError, as in NumPy.
"""

from __future__ import annotations

import math

from strided import _check
from strided._dtype import default_float_dtype
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops.creation import zeros
from strided._ops.linalg import svdvals

__all__ = ["vector_norm", "matrix_norm"]


_tensor = _check.tensor  # lists, NumPy arrays and scalars become tensors


def _abs(x):
    """|x| in a real floating dtype (see Note [Norms])."""
    if x.dtype.kind in "biu":
        x = x.astype(default_float_dtype())
    return _ew.abs(x)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_nonempty(name, what, a, dims):
    """An extreme over zero elements has no value: say so in this function's words."""
    reduced = math.prod(a.shape[d] for d in dims)
    kept = math.prod(s for d, s in enumerate(a.shape) if d not in dims)
    if reduced == 0 and kept != 0:
        raise ValueError(
            f"{name}: {what} over zero elements has no value (the max or min of nothing); "
            f"the input has shape {a.shape}"
        )


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector ``ord``-norm of ``x`` over ``axis`` (all elements when None).

    ``ord``: 2 (default) ``sqrt(sum(|x|**2))``; 1 ``sum(|x|)``; ``inf`` ``max(|x|)``; ``-inf``
    ``min(|x|)``; 0 the number of non-zero elements; any other real ``p``
    ``sum(|x|**p)**(1/p)``. ``axis`` is an int or a tuple of ints. The result is real: see
    Note [Norms]. ``ord=inf`` or ``-inf`` over zero elements raises ValueError.

    Examples
    --------
    >>> import strided
    >>> strided.vector_norm(strided.asarray([3.0, 4.0]))
    tensor(5.)
    >>> strided.vector_norm(strided.asarray([[3.0, -4.0], [0.0, 1.0]]), axis=1, ord=1)
    tensor([7., 1.])
    >>> strided.vector_norm(strided.asarray([3 + 4j]), ord=float("inf"))
    tensor(5.)
    """
    if not _is_number(ord):
        raise ValueError(
            f"vector_norm: ord must be a real number (2, 1, inf, -inf, 0 or another p), got {ord!r}"
        )
    x = _tensor(x)
    a = _abs(x)
    dims = _red._dims("vector_norm", a, axis, None)
    if ord == 2:
        return _ew.sqrt(_red.sum(_ew.multiply(a, a), axis=dims, keepdims=keepdims))
    if ord == 1:
        return _red.sum(a, axis=dims, keepdims=keepdims)
    if ord == math.inf or ord == -math.inf:
        _check_nonempty("vector_norm", f"ord={ord}", a, dims)
        extreme = _red.max if ord > 0 else _red.min
        return extreme(a, axis=dims, keepdims=keepdims)
    if ord == 0:
        return _red.sum(_ew.not_equal(a, 0), axis=dims, keepdims=keepdims, dtype=a.dtype)
    total = _red.sum(_ew.pow(a, float(ord)), axis=dims, keepdims=keepdims)
    return _ew.pow(total, 1.0 / ord)


def _singular_value_norm(x, ord, keepdims):
    """The "nuc", 2 or -2 matrix norm: the sum, max or min of each matrix's singular values."""
    s = svdvals(x)
    if ord == "nuc":
        result = _red.sum(s, axis=-1)
    elif s.shape[-1] == 0 and ord == 2:
        result = zeros(s.shape[:-1], dtype=s.dtype)  # see Note [Norms]: NumPy's max from 0
    else:
        if s.shape[-1] == 0:  # also for an empty batch, as NumPy
            raise ValueError(
                f"matrix_norm: ord=-2 is the smallest singular value, and a matrix of shape "
                f"{x.shape[-2:]} has none (x has shape {x.shape}); ord='fro', 'nuc' and 2 "
                "give 0 for matrices with a zero dim"
            )
        result = (_red.max if ord == 2 else _red.min)(s, axis=-1)
    return result[..., None, None] if keepdims else result


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The matrix ``ord``-norm of each matrix in ``x`` (the last two dims; the others are a
    batch).

    ``ord``: ``"fro"`` (default) ``sqrt(sum(|x|**2))``; ``"nuc"`` the sum of the singular
    values; 2 the largest singular value; -2 the smallest; 1 the largest column sum of ``|x|``;
    -1 the smallest; ``inf`` the largest row sum; ``-inf`` the smallest. With ``keepdims`` the
    last two dims stay, with size 1. The result is real (Note [Norms]).

    Examples
    --------
    >>> import strided
    >>> m = strided.asarray([[1.0, -2.0], [3.0, 4.0]])
    >>> strided.matrix_norm(m, ord=1), strided.matrix_norm(m, ord=float("inf"))
    (tensor(6.), tensor(7.))
    >>> strided.matrix_norm(strided.asarray([[3.0, 0.0], [0.0, -4.0]]), ord="nuc")
    tensor(7.)
    >>> strided.matrix_norm(strided.ones((5, 2, 2))).shape
    (5,)
    """
    x = _tensor(x)
    if x.ndim < 2:
        raise ValueError(
            f"matrix_norm: x must have at least 2 dims (a matrix, or a stack of them), "
            f"got shape {x.shape}"
        )
    if (isinstance(ord, str) and ord == "nuc") or (_is_number(ord) and ord in (2, -2)):
        return _singular_value_norm(x, ord, keepdims)
    a = _abs(x)
    if isinstance(ord, str) and ord == "fro":
        return _ew.sqrt(_red.sum(_ew.multiply(a, a), axis=(-2, -1), keepdims=keepdims))
    if _is_number(ord) and ord in (1, -1, math.inf, -math.inf):
        # 1/-1: sum down each column, then the extreme over columns; inf/-inf: rows
        inner, outer = (-2, -1) if abs(ord) == 1 else (-1, -2)
        sums = _red.sum(a, axis=inner, keepdims=True)
        _check_nonempty("matrix_norm", f"ord={ord}", sums, (sums.ndim + outer,))
        extreme = _red.max if ord > 0 else _red.min
        result = extreme(sums, axis=outer, keepdims=True)
        return result if keepdims else result.squeeze((-2, -1))
    raise ValueError(
        f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}"
    )
