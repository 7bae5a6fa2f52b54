"""Linear maps, dropout, embeddings and flatten: the layers that are a matmul, a mask, a row
lookup and a reshape."""

from __future__ import annotations

import strided
from strided.nn.functional._args import need_float, need_tensor

__all__ = ["linear", "dropout", "embedding", "flatten"]


def linear(x, weight, bias=None):
    """``x @ weight.T + bias``: ``x`` of shape (..., in), ``weight`` (out, in), ``bias`` (out,).

    ``weight.mT`` is a view (two strides swapped): the GEMM reads it in place, as a transposed
    operand (see Note [Strided views as BLAS matrices]
    in ``strided/_cpu/blas.pyx``).

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> x = strided.asarray([[1.0, 2.0]])
    >>> F.linear(x, strided.asarray([[1.0, 1.0], [0.0, 1.0]]), strided.asarray([0.5, 0.0]))
    tensor([[3.5, 2. ]])
    """
    need_float(x, "input", "linear")
    need_float(weight, "weight", "linear")
    if weight.ndim != 2 or x.ndim == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"linear: input of shape {tuple(x.shape)} and weight of shape {tuple(weight.shape)} "
            "do not fit: weight must be (out_features, in_features) with in_features equal to "
            "the input's last dim"
        )
    out = x @ weight.mT
    if bias is not None:
        if tuple(bias.shape) != (weight.shape[0],):
            raise ValueError(
                f"linear: bias of shape {tuple(bias.shape)} must be ({weight.shape[0]},), one "
                "value per output feature"
            )
        out = out + bias
    return out


def dropout(x, p=0.5, training=True, generator=None):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``, so the
    expected value is unchanged ("inverted dropout"); the identity when not ``training``.

    The mask comes from ``strided.random`` (Philox counters): ``strided.manual_seed`` makes it
    reproducible.
    """
    need_float(x, "input", "dropout")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must be a probability in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    u = strided.random.rand(*x.shape, dtype=x.dtype, device=x.device, generator=generator)
    keep = u >= p
    return strided.where(keep, x, 0.0) * (1.0 / (1.0 - p))


def _padding_row(padding_idx, num_embeddings, fn):
    """``padding_idx`` as a row number in 0..num_embeddings-1 (negative counts from the end)."""
    if padding_idx is None:
        return None
    if not isinstance(padding_idx, int) or not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(
            f"{fn}: padding_idx must be an int in [{-num_embeddings}, {num_embeddings}) for "
            f"{num_embeddings} embeddings, got {padding_idx!r}"
        )
    return padding_idx % num_embeddings


def embedding(indices, weight, padding_idx=None):
    """Rows of ``weight`` (num_embeddings, dim) picked by integer ``indices`` of any shape: the
    result has shape ``indices.shape + (dim,)``. The gradient adds into the picked rows
    (``index_select``'s backward is an ``index_add``), repeated indices included; row
    ``padding_idx`` gets none (the rows it fills are detached).

    On the CPU an index outside 0..num_embeddings-1 raises here; on a CUDA device the gather
    checks on the device and raises at the next synchronisation (Note [Checking indices on the
    device] in strided/cuda/_index.py), so that an embedding never waits for the GPU.
    """
    need_tensor(indices, "indices", "embedding")
    need_float(weight, "weight", "embedding")
    if indices.dtype.kind not in "iu":
        raise TypeError(
            f"embedding: indices must be integers, got {indices.dtype.name} of shape "
            f"{tuple(indices.shape)}; convert with indices.astype('int64')"
        )
    if weight.ndim != 2:
        raise ValueError(
            f"embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape "
            f"{tuple(weight.shape)}"
        )
    padding_idx = _padding_row(padding_idx, weight.shape[0], "embedding")
    flat = strided.reshape(indices, (-1,))
    if flat.device.is_cuda:  # negative rows must fail the device's check, not wrap around
        flat = strided.where(flat < 0, weight.shape[0], flat)
    elif flat.shape[0]:
        lo, hi = int(strided.min(flat)), int(strided.max(flat))
        if lo < 0 or hi >= weight.shape[0]:
            bad = lo if lo < 0 else hi
            raise IndexError(
                f"embedding: index {bad} is out of range for {weight.shape[0]} embeddings "
                f"(valid: 0..{weight.shape[0] - 1})"
            )
    rows = strided.index_select(weight, 0, flat)
    if padding_idx is not None and rows.requires_grad:
        # the same values, but the padded positions' rows come from a detached copy: no
        # gradient flows back into row padding_idx
        keep = strided.expand_dims(flat != padding_idx, axis=1)
        rows = strided.where(keep, rows, rows.detach())
    return strided.reshape(rows, tuple(indices.shape) + (weight.shape[1],))


def flatten(x, start_dim=1, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one (a view when the strides allow it)."""
    return strided.flatten(need_tensor(x, "input", "flatten"), start_dim, end_dim)
