"""``strided.linalg``: the Array API 2024.12 linear algebra extension, as far as strided has it.

The functions live elsewhere (norms in ``_ops/norms.py``, products in ``_ops/linalg.py``, views
in ``_ops/views.py``); this module gathers them under the extension's names, as
``numpy.linalg`` and ``torch.linalg`` do. ``diagonal`` and ``trace`` here take the last two
dims, as the extension says (``strided.diagonal`` is PyTorch's, over dims 0 and 1).

``svd`` and ``svdvals`` (LAPACK's ``?gesdd``, ``_cpu/lapack.pyx``) are only here, not in the
top-level namespace: ``torch.svd`` returns V where ``linalg.svd`` returns Vh, and a top-level
``strided.svd`` would invite that confusion.

Not here yet, because they need factorisations strided does not have (LU, QR, Cholesky,
eigenvalues): cholesky, cross, det, eigh, eigvalsh, inv, matrix_power, matrix_rank, pinv, qr,
slogdet, solve.
"""

from __future__ import annotations

from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.linalg import matmul, outer, svd, svdvals, tensordot, vecdot
from strided._ops.norms import matrix_norm, vector_norm
from strided._ops.views import matrix_transpose

__all__ = [
    "diagonal",
    "matmul",
    "matrix_norm",
    "matrix_transpose",
    "outer",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix in ``x`` (the last two dims), as a view.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.diagonal(strided.arange(9).reshape(3, 3), offset=1)
    tensor([1, 5])
    """
    return _vops.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the ``offset``-th diagonal of each matrix in ``x``; dtypes as ``sum``.

    Examples
    --------
    >>> import strided
    >>> strided.linalg.trace(strided.arange(9).reshape(3, 3))
    tensor(12)
    """
    return _red.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)
