"""``pad``: PyTorch's ``torch.nn.functional.pad``, widths from the last dim backward.

``strided.pad`` is NumPy's ``numpy.pad``; this is PyTorch's, where PyTorch keeps it (Note [Two
pads] in strided/_ops/padding.py). Both end in the one kernel, ``pad_pairs``.
"""

from __future__ import annotations

from strided import _check
from strided._ops import padding as _padding
from strided._ops.shape import _ints

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """``input`` with borders added, as PyTorch's ``torch.nn.functional.pad``.

    ``pad`` is a flat tuple of (left, right) pairs starting from the *last* dim and going
    backward: ``(1, 2)`` pads the last dim by 1 before and 2 after, ``(1, 2, 3, 4)`` also pads
    the second-to-last dim by 3 and 4. (``strided.pad``, NumPy's, takes one pair per dim, first
    dim first, and pads every dim.) Modes (see Note [Padding with views]):

    - ``"constant"``: borders hold ``value`` (default 0); negative pads crop;
    - ``"reflect"``: the mirror image without the edge (NumPy's ``"reflect"``); each pad must
      be smaller than its dim;
    - ``"replicate"``: the edge value repeated (NumPy's ``"edge"``); the dim must not be empty;
    - ``"circular"``: wrap around (NumPy's ``"wrap"``); each pad at most its dim.

    A fresh contiguous tensor; gradients flow to ``input``.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> x = strided.asarray([[1, 2, 3]])
    >>> F.pad(x, (2, 1))                      # the last dim only
    tensor([[0, 0, 1, 2, 3, 0]])
    >>> F.pad(x, (2, 1), mode="reflect")
    tensor([[3, 2, 1, 2, 3, 2]])
    >>> F.pad(x, (0, 0, 1, 0), value=7)       # then the dim before it
    tensor([[7, 7, 7],
            [1, 2, 3]])
    """
    x = _check.tensor(input)
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
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {_MODES}, got {mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"pad: value is only for mode='constant', not {mode!r}")
    # pairs from the last dim backward -> one pair per dim, first dim first
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pads) // 2):
        pairs[x.ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    return _padding.pad_pairs(x, pairs, mode, 0 if value is None else value)
