"""``pad`` (PyTorch's ``torch.nn.functional.pad``): constant, reflect, replicate and circular
padding of the last dims, composed like the shape ops of shape.py: a fresh output whose regions
are filled with the one strided copy kernel through views (the centre is the input, each
border a narrowed, flipped or broadcast view of it), so it runs on every device and registers
the same composition under both keys (Note [Shape ops on the dispatcher] in shape.py).
"""

from __future__ import annotations

import numpy as np

from strided import _core, _dispatch, _views
from strided._ops import copying as _copy  # device-generic: CPU and CUDA tensors
from strided._ops.shape import _dispatched, _empty, _ints, _tensor

__all__ = ["pad"]


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_cpu(x, pads, mode, value):
    """``pads`` holds one (left, right) pair per dim of x, first dim first.

    Note [Padding with views]
    ~~~~~~~~~~~~~~~~~~~~~~~~~
    ``constant``: fill the whole output with the value, then copy ``x`` into the interior (a
    narrow per dim). A negative pad crops: the interior then starts inside ``x``.

    The other modes copy the interior first, then fill the borders *from the output itself*,
    one dim at a time. Along dim d, with left pad p and interior size n:

    - ``reflect``: ``out[p-1], ..., out[0]`` are ``out[p+1], ..., out[2p]``: the left border
      is ``flip(out[p+1 : 2p+1])``, a narrow seen backwards through a negative stride (a view,
      see ``flip``), so the mirror costs nothing but the copy itself;
    - ``replicate``: the border is the edge slice ``out[p : p+1]``, broadcast by the copy;
    - ``circular``: the left border is the interior's last p slices, ``out[n : n+p]``.

    Going dim by dim makes the corners right for free: when dim d is padded, the borders of
    the dims padded before it are already filled, and the narrows along d span them, so a
    corner is the reflection (replica, wrap) of a border. Source and destination are disjoint
    parts of one storage; when their address ranges interleave, ``copy_`` copies the source
    aside first (its overlap rule), which costs a temporary but never a wrong value.
    """
    new = [n + lo + hi for n, (lo, hi) in zip(x.shape, pads, strict=True)]
    out = _empty(new, x.dtype, x)
    if mode == "constant":
        _copy.fill_(out, value)
        dst, src = out, x
        for d, (lo, hi) in enumerate(pads):
            n = x.shape[d] - max(-lo, 0) - max(-hi, 0)
            if n <= 0:
                return out  # cropped away entirely: only the fill is left
            dst = _views.narrow(dst, d, max(lo, 0), n)
            src = _views.narrow(src, d, max(-lo, 0), n)
        _copy.copy_(dst, src)
        return out
    interior = out
    for d, (lo, _) in enumerate(pads):
        interior = _views.narrow(interior, d, lo, x.shape[d])
    _copy.copy_(interior, x)
    padded = [d for d, (lo, hi) in enumerate(pads) if lo or hi]
    for i, d in enumerate(padded):
        slab = out
        for e in padded[i + 1 :]:  # dims not padded yet: only their interior holds values
            slab = _views.narrow(slab, e, pads[e][0], x.shape[e])
        lo, hi = pads[d]
        n = x.shape[d]
        if mode == "reflect":
            left = _views.flip(_views.narrow(slab, d, lo + 1, lo), (d,))
            right = _views.flip(_views.narrow(slab, d, lo + n - 1 - hi, hi), (d,))
        elif mode == "replicate":
            left = _views.narrow(slab, d, lo, 1)
            right = _views.narrow(slab, d, lo + n - 1, 1)
        else:  # circular
            left = _views.narrow(slab, d, n, lo)
            right = _views.narrow(slab, d, lo, hi)
        if lo:
            _copy.copy_(_views.narrow(slab, d, 0, lo), left)
        if hi:
            _copy.copy_(_views.narrow(slab, d, lo + n, hi), right)
    return out


_dispatch.register("pad", "CPU", _pad_cpu)
_dispatch.register("pad", "CUDA", _pad_cpu)  # device-generic: see above


def pad(x, pad, mode="constant", value=None):
    """``x`` with borders added, as PyTorch's ``torch.nn.functional.pad``.

    ``pad`` is a flat tuple of (left, right) pairs starting from the *last* dim and going
    backward: ``(1, 2)`` pads the last dim by 1 before and 2 after, ``(1, 2, 3, 4)`` also pads
    the second-to-last dim by 3 and 4. (NumPy's ``np.pad`` takes one pair per dim, first dim
    first.) Modes (see Note [Padding with views]):

    - ``"constant"``: borders hold ``value`` (default 0); negative pads crop;
    - ``"reflect"``: the mirror image without the edge (NumPy's ``"reflect"``); each pad must
      be smaller than its dim;
    - ``"replicate"``: the edge value repeated (NumPy's ``"edge"``); the dim must not be empty;
    - ``"circular"``: wrap around (NumPy's ``"wrap"``); each pad at most its dim.

    A fresh contiguous tensor.

    Examples
    --------
    >>> import strided
    >>> x = strided.asarray([1, 2, 3])
    >>> strided.pad(x, (2, 1))
    tensor([0, 0, 1, 2, 3, 0])
    >>> strided.pad(x, (2, 1), mode="reflect")
    tensor([3, 2, 1, 2, 3, 2])
    """
    x = _tensor(x)
    pads = _ints(pad, "pad", "pad")
    if len(pads) % 2:
        raise ValueError(
            f"pad: {len(pads)} pad sizes {pads}; they come in (left, right) pairs, so their "
            "number must be even"
        )
    if len(pads) // 2 > x.ndim:
        raise ValueError(
            f"pad: {len(pads) // 2} (left, right) pairs for a tensor with {x.ndim} dims "
            f"(shape {x.shape}); at most one pair per dim"
        )
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {_PAD_MODES}, got {mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"pad: value is only for mode='constant', not {mode!r}")
    # pairs from the last dim backward -> one pair per dim, first dim first
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pads) // 2):
        pairs[x.ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    for d, (lo, hi) in enumerate(pairs):
        n = x.shape[d]
        if n + lo + hi < 0:
            raise ValueError(
                f"pad: pads ({lo}, {hi}) on dim {d} of size {n} give a negative size {n + lo + hi}"
            )
        if mode == "constant" or (lo == 0 and hi == 0):
            continue
        if lo < 0 or hi < 0:
            raise ValueError(
                f"pad: negative pads ({lo}, {hi}) on dim {d} crop, which only mode='constant' "
                f"does; mode={mode!r} needs pads >= 0"
            )
        if mode == "reflect" and max(lo, hi) >= n:
            raise ValueError(
                f"pad: reflect pads ({lo}, {hi}) on dim {d} of size {n} (shape {x.shape}); "
                "each must be smaller than the dim's size (the mirror excludes the edge)"
            )
        if mode == "replicate" and n == 0:
            raise ValueError(f"pad: replicate has no edge to repeat on the empty dim {d}")
        if mode == "circular" and max(lo, hi) > n:
            raise ValueError(
                f"pad: circular pads ({lo}, {hi}) on dim {d} of size {n} (shape {x.shape}); "
                "each must be at most the dim's size (it would wrap more than once)"
            )
    if value is None:
        value = 0
    elif isinstance(value, (_core.TensorBase, np.generic)):
        value = value.item()
    return _dispatched("pad", _pad_cpu, x, tuple(pairs), mode, value)
